/**
 * What a code source leaves out by default, and why: dependencies, build output, lock files,
 * minified bundles, source maps and generated files. The globs are the code profile's default
 * `exclude` (nothing listed is read); the same rules are checked again on each file the chunker
 * is given, so a file included on purpose is still recorded with its reason rather than chunked.
 */
const RULES: [glob: string, test: RegExp, reason: string][] = [
  ['**/node_modules/**', /(^|\/)node_modules\//, 'a dependency folder (node_modules)'],
  ['**/vendor/**', /(^|\/)vendor\//, 'vendored dependencies (vendor)'],
  ['**/{dist,build,out,target}/**', /(^|\/)(dist|build|out|target)\//, 'build output'],
  ['**/coverage/**', /(^|\/)coverage\//, 'test coverage output'],
  ['**/.git/**', /(^|\/)\.git\//, 'git metadata'],
  [
    '**/{package-lock.json,npm-shrinkwrap.json,yarn.lock,pnpm-lock.yaml,bun.lock,bun.lockb,Cargo.lock,go.sum,poetry.lock,uv.lock,Pipfile.lock,composer.lock,Gemfile.lock}',
    /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?|Cargo\.lock|go\.sum|poetry\.lock|uv\.lock|Pipfile\.lock|composer\.lock|Gemfile\.lock)$/,
    'a lock file',
  ],
  ['**/*.min.{js,css}', /\.min\.(js|css)$/, 'minified'],
  ['**/*.map', /\.map$/, 'a source map'],
];

export const CODE_EXCLUDES: readonly string[] = RULES.map(([glob]) => glob);

/** A generated file says so in a comment among its first lines. */
const GENERATED = /(do not edit|don't edit|auto-?generated|@generated)\b/i;
const COMMENT = /^\s*(\/\/|#|\/\*|\*|--|<!--|;)/;
/** Bundled or minified code: long lines on average over a file of some size. */
const MINIFIED_LINE = 400;

/** Why a file is not chunked as code, or null. */
export function skipReason(path: string, text: string): string | null {
  for (const [, test, reason] of RULES) if (test.test(path)) return `excluded by default: ${reason}`;
  const head = text.slice(0, 2000).split('\n', 6);
  if (head.some((l) => COMMENT.test(l) && GENERATED.test(l))) return 'generated: a "do not edit" header';
  const lines = text.split('\n', 200);
  if (text.length > 5000 && lines.reduce((n, l) => n + l.length, 0) / lines.length > MINIFIED_LINE) return 'minified: lines average over 400 characters';
  return null;
}
