/** Edit distance (insert, delete, substitute, swap two neighbours: one step each), case-insensitive. */
export function editDistance(a: string, b: string): number {
  a = a.toLowerCase();
  b = b.toLowerCase();
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known word a mistyped one most likely meant, or undefined when none is close: at most a
 * third of the longer word's letters differ (at least one), or one contains the other.
 */
export function nearest(word: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    if (k === word) continue;
    const dist = editDistance(word, k);
    const close = dist <= Math.max(1, Math.floor(Math.max(word.length, k.length) / 3)) || (word.length >= 3 && k.toLowerCase().includes(word.toLowerCase()));
    if (close && dist < bestDistance) {
      best = k;
      bestDistance = dist;
    }
  }
  return best;
}

/** ` (did you mean "x"?)`, or nothing when no known word is close. */
export function didYouMean(word: string, known: Iterable<string>): string {
  const n = nearest(word, known);
  return n === undefined ? '' : ` (did you mean "${n}"?)`;
}
