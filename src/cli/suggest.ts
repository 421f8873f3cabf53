// "Did you mean …?": the known name nearest to what was typed, when it is close enough to be a typo.

/** Edit distance (insertions, deletions, substitutions, and swaps of two neighbours). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The candidate nearest to `typed`, or undefined when none is plausibly meant: a typo costs at most a third of
 * the word's length (at least 1, at most 3 edits); a unique prefix of 3+ characters counts too. */
export function nearest(typed: string, candidates: readonly string[]): string | undefined {
  const word = typed.toLowerCase();
  if (!word) return undefined;
  const prefixed = candidates.filter((c) => c.startsWith(word));
  if (word.length >= 3 && prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const distance = editDistance(word, c);
    if (distance < bestDistance) [best, bestDistance] = [c, distance];
  }
  const allowed = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  return bestDistance <= allowed ? best : undefined;
}
