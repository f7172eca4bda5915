import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinProfiles } from '../../src/builtin.ts';
import { readEvalFile } from '../../src/search/eval.ts';
import { needCorpora } from '../helpers/corpora.ts';
import { CORPORA, REPO_ROOT, tempDir } from '../helpers/tmp.ts';

const corpora = needCorpora('code.bundle');
const squash = (s: string) => s.replace(/\s+/g, '');

/** eval/dev/code.jsonl against qmd's tip: every gold path exists and some `code` chunk of it holds the evidence. */
describe.runIf(corpora.ok)(corpora.title('eval/dev/code.jsonl over code.bundle'), () => {
  const t = tempDir('ragsync-eval-code-');
  afterAll(t.cleanup);
  it('every gold file is at the tip and a code chunk of it holds its evidence', async () => {
    const dir = join(t.dir, 'qmd');
    execFileSync('git', ['clone', '--quiet', '--branch', 'main', join(CORPORA, 'code.bundle'), dir]);
    const cases = readEvalFile(join(REPO_ROOT, 'eval', 'dev', 'code.jsonl'));
    expect(cases.length).toBe(22);
    const chunker = builtinProfiles.createChunker('code', { targetTokens: 500, overlap: 0.15 });
    await chunker.prepare!(cases.flatMap((c) => c.gold.map((g) => g.path)));
    for (const c of cases) {
      for (const g of c.gold) {
        const text = readFileSync(join(dir, g.path), 'utf8');
        const chunks = chunker.chunk({ path: g.path, text }).chunks.map((x) => squash(x.content));
        expect(g.evidence.some((e) => chunks.some((x) => x.includes(squash(e)))), `${c.id} ${g.path}`).toBe(true);
      }
    }
  }, 60_000);
});
