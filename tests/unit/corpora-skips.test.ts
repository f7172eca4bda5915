// Every suite that reads the shared corpora skips through needCorpora (which says why, and fails
// under CI=true), never through a bare existsSync check that would skip silently.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/tmp.ts';

it('corpora-backed suites use needCorpora', () => {
  const dir = join(REPO_ROOT, 'tests', 'e2e');
  const offenders: string[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.test.ts'))) {
    const src = readFileSync(join(dir, f), 'utf8');
    const usesCorpora = /CORPORA|\.bundle['`]|hasClassics|classicsUpstream/.test(src);
    const skipsRight = /needCorpora\(|classicsCorpus\.title\(/.test(src);
    if (usesCorpora && !skipsRight) offenders.push(f);
    if (/skipIf\(\s*!existsSync\(/.test(src)) offenders.push(`${f} (bare existsSync skip)`);
  }
  expect(offenders).toEqual([]);
});
