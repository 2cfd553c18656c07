/**
 * "Did you mean …?" for a misspelt name: the one rule every layer suggests by — the spreadsheet functions
 * for their field and option names, the contract's 422 for a key a strict object does not take.
 */

/**
 * The allowed name closest to `word` (case-insensitive edit distance ≤ 2, and less than the shorter name's
 * length, so that `x` suggests no `q`), or null when none is that close.
 */
export function closestName(word: string, allowed: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = 3;
  // Names whose lengths differ by the distance sought cannot be closer: a long word (a request may send a
  // key of a megabyte) is compared with nothing, and no comparison costs more than a short name squared.
  if (word.length === 0 || word.length > 64) return null;
  const a = word.toLowerCase();
  for (const candidate of allowed) {
    if (Math.abs(candidate.length - a.length) >= bestDistance) continue;
    const b = candidate.toLowerCase();
    const row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      let previous = row[0] ?? 0;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const current = row[j] ?? 0;
        row[j] = Math.min((row[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
        previous = current;
      }
    }
    const distance = row[b.length] ?? 99;
    if (distance < bestDistance && distance < Math.min(a.length, b.length)) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
