import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';

import { Searcher } from '../../src/search/search.ts';
import { openSearcher, runIndex } from '../../src/engine/library.ts';

// The keyword index must follow real sync runs (plan/apply → writeDocuments), and a long-lived
// Searcher must see each committed run without being reopened.
let dir: string;
let cfg: Config;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ragsync-search-sync-'));
  mkdirSync(join(dir, 'docs'));
  writeFileSync(join(dir, 'docs', 'a.md'), '# 论甲木\n\n甲木参天，脱胎要火。寅月用神先丙后癸。\n');
  writeFileSync(join(dir, 'docs', 'b.md'), '# Retries\n\nExponential backoff with jitter.\n');
  cfg = parseConfig({
    db: join(dir, 'index.db'),
    embedder: { provider: 'hash', dims: 128 },
    sources: [{ name: 'notes', kind: 'dir', path: join(dir, 'docs') }],
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const paths = async (s: Searcher, q: string) => (await s.search(q, { mode: 'keyword' })).map((r) => r.path);

describe('keyword index through ragsync index runs', () => {
  it('adds, replaces and removes FTS rows with the documents', async () => {
    expect((await runIndex(cfg)).status).toBe('ok');
    const s = openSearcher(cfg);
    expect(await paths(s, '用神')).toEqual(['a.md']);
    expect(await paths(s, 'jitter')).toEqual(['b.md']);

    writeFileSync(join(dir, 'docs', 'a.md'), '# 论乙木\n\n乙木生于寅月，宜丙火。\n');
    unlinkSync(join(dir, 'docs', 'b.md'));
    expect((await runIndex(cfg)).status).toBe('ok');
    // Same Searcher: the generation moved, so vectors reload; FTS is read live.
    expect(await paths(s, '用神')).toEqual([]);
    expect(await paths(s, '乙木')).toEqual(['a.md']);
    expect(await paths(s, 'jitter')).toEqual([]);
    const [v] = await s.search('乙木寅月', { mode: 'vector', k: 1 });
    expect(v!.content).toContain('乙木生于寅月');
    await s.close();
  });
});
