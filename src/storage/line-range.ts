/** A chunk's line range as callers see it: both ends, or none where the store recorded none. */
export function lineRange(startLine: number | null, endLine: number | null): { startLine: number; endLine: number } | Record<string, never> {
  return startLine !== null && endLine !== null ? { startLine, endLine } : {};
}
