// "Did you mean ...?" for a mistyped name (a flag, a command, a tool, a sub-agent): the candidate at the smallest
// edit distance, when it is close enough to be a typo rather than a different name. One rule for every name the
// project suggests. Pure.

/** Edit distance: insertions, deletions, substitutions, and swaps of two neighbours ("cmopact"), each costing 1. */
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

/** The candidate nearest to `typed` (case-insensitively), or undefined when none is plausibly meant: a unique
 * prefix of 3+ characters, or a candidate within a third of the word's length in edits (at least 1 edit for
 * words of 3 characters or fewer, at least 2 for longer ones). */
export function nearestName(typed: string, candidates: readonly string[]): string | undefined {
  const word = typed.toLowerCase();
  if (!word) return undefined;
  const prefixed = candidates.filter((c) => c.toLowerCase().startsWith(word));
  if (word.length >= 3 && prefixed.length === 1) return prefixed[0];
  const limit = Math.max(word.length <= 3 ? 1 : 2, Math.floor(word.length / 3));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}
