/**
 * A path as it appears in a message: quoted (JSON) when it holds a line break or another control
 * character, so that a file named "a\nb.md" cannot split one error line into two or forge a second.
 */
export function shownPath(path: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\x00-\x1f\x7f]/.test(path) ? JSON.stringify(path) : path;
}
