/** The `n` best positions among `scored`, best first (ties: lower position first), by one pass keeping the best n. */
export function topPositions(score: Float64Array, scored: readonly number[], n: number, pass?: (p: number) => boolean): number[] {
  const top: number[] = [];
  const before = (a: number, b: number) => score[a]! > score[b]! || (score[a] === score[b] && a < b);
  for (const p of scored) {
    if (top.length >= n && !before(p, top[top.length - 1]!)) continue;
    if (pass && !pass(p)) continue;
    let i = top.length;
    if (i < n) top.push(p);
    else i = n - 1;
    // Insertion into the sorted head: most candidates stop at the first comparison above.
    while (i > 0 && before(p, top[i - 1]!)) (top[i] = top[i - 1]!), i--;
    top[i] = p;
  }
  return top;
}
