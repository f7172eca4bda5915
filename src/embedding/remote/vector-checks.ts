/**
 * Whether every component is zero (or so small its square underflows): such a vector has no
 * direction, and a cosine against it is NaN.
 */
export function isZeroVector(v: Float32Array): boolean {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  return !(sum > 0);
}
