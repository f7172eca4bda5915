// A run the delete guard refuses leaves ragsync's checkout where the index is: the upstream
// force-pushed back afterwards (the bad reset undone) is followed by the next run with no flag,
// and neither the refused commit nor the indexed one is taken for local work in the checkout.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Config } from '../../src/config/load.ts';
import { gitConfig, index } from '../helpers/index-fixture.ts';
import { tempDir } from '../helpers/tmp.ts';
import { Upstream } from '../helpers/upstream.ts';

const para = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `${topic}第${i + 1}句，论其旺衰喜忌，以月令为纲。`).join('');

let t: ReturnType<typeof tempDir>;
let up: Upstream;
let config: Config;
let indexed: string;
const inCheckout = (...args: string[]) => execFileSync('git', ['-C', config.sources[0]!.root, ...args], { encoding: 'utf8' }).trim();

beforeEach(async () => {
  t = tempDir();
  up = new Upstream(join(t.dir, 'up'));
  config = gitConfig(t.dir, up.bare, { chunking: { targetTokens: 80, overlap: 0 } });
  for (const name of ['a', 'b', 'c', 'd', 'e']) up.write(`${name}.md`, `# ${name}\n\n${para(`${name}木`, 4)}\n\n${para(`${name}火`, 4)}\n`);
  indexed = up.commit('initial');
  expect((await index(config)).status).toBe('ok');
});
afterEach(() => t.cleanup());

/** The upstream branch reset to a commit (unrelated history) that keeps one small file of five. */
function resetToNearlyEmpty(): string {
  up.git('checkout', '--quiet', '--orphan', 'bad');
  up.git('rm', '-rf', '--quiet', '.');
  up.write('only.md', '# only\n\n一句。\n');
  return up.commit('reset by mistake');
}

/** The mistake undone: the branch force-pushed back to the indexed commit. */
function pushBack(): void {
  up.git('checkout', '--quiet', '--force', 'main');
  up.git('push', '--quiet', '--force', 'origin', `${indexed}:main`);
}

describe('a refused run and the checkout', () => {
  it('a refused run leaves the checkout at the indexed commit; the upstream pushed back indexes normally with no flag', async () => {
    const bad = resetToNearlyEmpty();
    const refused = await index(config);
    expect(refused.status).toBe('failed');
    expect(refused.sources[0]!.error).toMatch(/would drop .* passages .*refusing/);
    // The index and the checkout both stay at the indexed commit.
    expect(inCheckout('rev-parse', 'HEAD')).toBe(indexed);
    expect(inCheckout('rev-parse', 'refs/remotes/origin/main')).toBe(bad);

    pushBack();
    const r = await index(config);
    expect(r.sources[0]!.error).toBeNull();
    expect(r.status).toBe('ok');
    expect(r.sources[0]!.commit).toBe(indexed);
    expect(r.textsEmbedded).toBe(0);
    expect(inCheckout('rev-parse', 'HEAD')).toBe(indexed);
  });

  it('refused twice, then the upstream moves on from the indexed commit: the next run follows it', async () => {
    resetToNearlyEmpty();
    expect((await index(config)).status).toBe('failed');
    expect((await index(config)).status).toBe('failed');
    pushBack();
    up.git('reset', '--quiet', '--hard', indexed);
    up.write('f.md', '# f\n\n新的一篇。\n');
    const next = up.commit('add f');
    const r = await index(config);
    expect(r.status, r.sources[0]!.error ?? '').toBe('ok');
    expect(r.sources[0]!.written.documents).toMatchObject({ added: 1, deleted: 0 });
    expect(inCheckout('rev-parse', 'HEAD')).toBe(next);
  });

  it('a dry run that sees the reset, then the upstream pushed back: the next run indexes with no flag', async () => {
    resetToNearlyEmpty();
    const dry = await index(config, { dryRun: true });
    expect(dry.status).toBe('failed');
    pushBack();
    const r = await index(config);
    expect(r.status, r.sources[0]!.error ?? '').toBe('ok');
    expect(r.sources[0]!.commit).toBe(indexed);
  });

  it('--allow-delete applies the reset and moves the checkout with it', async () => {
    const bad = resetToNearlyEmpty();
    const r = await index(config, { allowDelete: true });
    expect(r.status, r.sources[0]!.error ?? '').toBe('ok');
    expect(inCheckout('rev-parse', 'HEAD')).toBe(bad);
    expect(inCheckout('ls-files')).toBe('only.md');
  });

  it('a commit made in the checkout while a refused commit waits upstream is still refused as local work', async () => {
    resetToNearlyEmpty();
    expect((await index(config)).status).toBe('failed');
    inCheckout('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'my local work');
    const head = inCheckout('rev-parse', 'HEAD');
    pushBack();
    const r = await index(config);
    expect(r.sources[0]!.error).toMatch(/1 local commit not on the upstream \([0-9a-f]+ my local work\)/);
    expect(inCheckout('rev-parse', 'HEAD')).toBe(head);
  });
});
