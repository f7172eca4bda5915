/**
 * The position of `id` in ascending `ids`, or -1. Chunk ids are dense until deletions leave gaps,
 * so the position the first id implies is tried before the binary search.
 */
export function indexOfSorted(ids: Int32Array, id: number): number {
  const guess = id - ids[0]!;
  if (guess >= 0 && guess < ids.length && ids[guess] === id) return guess;
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid]!;
    if (v === id) return mid;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
