/**
 * The effects the spreadsheet steps (formula-steps.ts) yield for their drivers to perform, typed end to
 * end. An effect carries the function its answer goes to, typed by the effect, so a step never casts what
 * comes back and a driver never casts what it sends: `call` is a union keyed by backend operation (each
 * one's body and result from the contract's endpoint table, backend.ts), `cached` one keyed by what it
 * caches. ORG.FETCH's own effects live beside its row lookup (fetch-rows.ts).
 */
import type { SearchRequestInput, SearchResponse } from '../contract/v2/search.js';
import type { BackendOp, CallBody, CallResult } from './backend.js';

/**
 * Steps yielding effects `E` and ending with `T`. The driver answers each effect (its `answer`) before
 * resuming, or throws its failure in (client/drive.ts).
 */
export type Steps<E, T> = Generator<E, T, void>;

/** One effect's answer, from the driver's `answer` to the step that resumes. */
class Answer<T> {
  private given: { value: T } | null = null;
  readonly give = (value: T): void => {
    this.given = { value };
  };

  take(): T {
    if (!this.given) throw new Error('A spreadsheet step was resumed without the answer to its effect');
    return this.given.value;
  }
}

/** Yields the effect `make` builds around its answer function; returns what the driver answered. */
export function* answerTo<E, T>(make: (answer: (value: T) => void) => E): Steps<E, T> {
  const answer = new Answer<T>();
  yield make(answer.give);
  return answer.take();
}

/** A backend call of operation `Op`: its body and the function its result goes to. */
interface CallOf<Op extends BackendOp> {
  type: 'call';
  op: Op;
  body: CallBody<Op>;
  /** The cache namespace it is answered through ('search', 'stats' …), or null: asked as is. */
  namespace: string | null;
  answer: (result: CallResult<Op>) => void;
}

/** A backend call, one member per operation (body and result tied together). */
export type CallEffect<Ops extends BackendOp = BackendOp> = { [Op in Ops]: CallOf<Op> }[Ops];

/** A backend call: through the cache under `namespace` (keyed by the body), or with none as is. */
export function backendCall<Op extends BackendOp>(op: Op, body: CallBody<Op>, namespace: string | null = null): Steps<CallEffect<Op>, CallResult<Op>> {
  return answerTo<CallEffect<Op>, CallResult<Op>>((answer) => ({ type: 'call', op, body, namespace, answer }));
}

/** What the `cached` effect keeps, by cache namespace: the request its key is made of, and the value. */
interface CachedSteps {
  /** ORG.SEARCH beyond one page: the walk's rows, cached as one answer (formula-steps.ts `searchRows`). */
  'search-walk': { request: { body: SearchRequestInput; rows: number }; value: SearchResponse['data'] };
}

export type CachedNamespace = keyof CachedSteps;

interface CachedOf<N extends CachedNamespace> {
  type: 'cached';
  namespace: N;
  request: CachedSteps[N]['request'];
  /** Computes the value on a miss; its calls go to the same backend. */
  steps: () => Steps<CallEffect, CachedSteps[N]['value']>;
  answer: (value: CachedSteps[N]['value']) => void;
}

/** The value of steps for a request: from the cache, else by running them. One member per namespace. */
export type CachedEffect<Ns extends CachedNamespace = CachedNamespace> = { [N in Ns]: CachedOf<N> }[Ns];

/** The value of `steps` for `request`, through the cache under `namespace`. */
export function cached<N extends CachedNamespace>(namespace: N, request: CachedSteps[N]['request'], steps: () => Steps<CallEffect, CachedSteps[N]['value']>): Steps<CachedEffect<N>, CachedSteps[N]['value']> {
  return answerTo<CachedEffect<N>, CachedSteps[N]['value']>((answer) => ({ type: 'cached', namespace, request, steps, answer }));
}
