/** The `n` best positions among `scored`, best first (ties: lower position first), by one pass keeping the best n. */
export function topPositions(score: Float64Array, scored: ArrayLike<number>, n: number, pass?: (p: number) => boolean): number[] {
  const top: number[] = [];
  if (n <= 0) return top;
  // The last of a full head: most candidates fall below it, tested without a call.
  let floor = -Infinity;
  let floorAt = -1;
  for (let j = 0, size = scored.length; j < size; j++) {
    const p = scored[j]!;
    const s = score[p]!;
    if (top.length >= n && (s < floor || (s === floor && p >= floorAt))) continue;
    if (pass && !pass(p)) continue;
    let i = top.length;
    if (i < n) top.push(p);
    else i = n - 1;
    // Insertion into the sorted head: most candidates stop at the first comparison above.
    while (i > 0 && (s > score[top[i - 1]!]! || (s === score[top[i - 1]!] && p < top[i - 1]!))) (top[i] = top[i - 1]!), i--;
    top[i] = p;
    if (top.length >= n) (floorAt = top[n - 1]!), (floor = score[floorAt]!);
  }
  return top;
}
