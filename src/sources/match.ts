import picomatch from 'picomatch';

/** include/exclude globs → one predicate over '/'-separated relative paths. */
export function pathMatcher(include: string[], exclude: string[]): (path: string) => boolean {
  const inc = picomatch(include, { dot: false });
  const exc = exclude.length ? picomatch(exclude, { dot: true }) : () => false;
  return (p) => inc(p) && !exc(p);
}
