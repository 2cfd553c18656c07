/**
 * The one drive loop of a sans-IO generator, for each mode. The client's operations (operation.ts: send
 * a request, wait) and the spreadsheet functions' steps (src/sheet/: backend calls, the cache) differ in
 * what their effects are and who performs them, not in how a generator is run to its end: each effect
 * performed, its outcome handed back, a failure to perform it thrown in where it was yielded (so the
 * generator may catch it, and its `finally` blocks run).
 */

/** Runs `steps` to its end, performing each effect with `perform` (Excel, browsers, Node). */
export async function driveAsync<E, N, T>(steps: Generator<E, T, N>, perform: (effect: E) => Promise<N>): Promise<T> {
  let next = steps.next();
  while (!next.done) {
    let outcome: N;
    try {
      outcome = await perform(next.value);
    } catch (error) {
      next = steps.throw(error);
      continue;
    }
    next = steps.next(outcome);
  }
  return next.value;
}

/** Runs `steps` to its end where every effect is performed before `perform` returns (Apps Script). */
export function driveSync<E, N, T>(steps: Generator<E, T, N>, perform: (effect: E) => N): T {
  let next = steps.next();
  while (!next.done) {
    let outcome: N;
    try {
      outcome = perform(next.value);
    } catch (error) {
      next = steps.throw(error);
      continue;
    }
    next = steps.next(outcome);
  }
  return next.value;
}
