/** Edit distance (insertions, deletions, substitutions) between two short strings. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** 'YYYY-MM' (or 'YYYYMM') → months since year 0, or null. */
const monthIndex = (v: string) => {
  const m = /^(\d{4})-?(\d{2})$/.exec(v);
  return m ? Number(m[1]) * 12 + Number(m[2]) - 1 : null;
};

/**
 * The `n` values of `known` nearest to `value`: months by time apart, other values by edit
 * distance without case (a value containing the one typed, or contained in it, counts as nearer).
 */
export function closestValues(value: string, known: readonly string[], n: number, months = false): string[] {
  const target = value.toLowerCase();
  const at = months ? monthIndex(value) : null;
  const distance = (k: string): number => {
    if (at !== null) return Math.abs((monthIndex(k) ?? Infinity) - at);
    const key = k.toLowerCase();
    const d = editDistance(target, key);
    return key.includes(target) || target.includes(key) ? d / 2 : d;
  };
  return known
    .map((k, i) => ({ k, d: distance(k), i }))
    .sort((a, b) => a.d - b.d || a.i - b.i)
    .slice(0, n)
    .map((e) => e.k);
}
