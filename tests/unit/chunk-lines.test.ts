import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinProfiles, parseConfig } from '../../src/builtin.ts';
import { locateLines } from '../../src/core/text/lines.ts';

import { Searcher } from '../../src/search/search.ts';
import { resultJson } from '../../src/search/present.ts';
import { searchText } from '../../src/cli/format.ts';
import { tempDir } from '../helpers/tmp.ts';
import { openSearcher, runIndex } from '../../src/engine/library.ts';

const settings = { targetTokens: 60, overlap: 0.15 };
const tmp = tempDir('ragsync-lines-');
afterAll(tmp.cleanup);

const doc = [
  '---', 'title: Notes', '---', '', '# Notes', '', '## Retries', '',
  'Exponential backoff with jitter spreads the retries of many clients.', '',
  'A circuit breaker stops calling a failing service for a while.', '',
  '## Caches', '', 'An LRU cache evicts the entry used least recently.', '',
].join('\n');

describe('line ranges on chunks', () => {
  it('the registry fills them for a chunker that makes none, from the document text', () => {
    const chunks = builtinProfiles.createChunker('markdown', settings).chunk({ path: 'n.md', text: doc }).chunks;
    const lines = doc.split('\n');
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.startLine, c.content).toBeGreaterThan(0);
      expect(c.endLine!).toBeGreaterThanOrEqual(c.startLine!);
      const first = c.content.split('\n')[0]!.trim();
      expect(lines[c.startLine! - 1]).toContain(first);
      expect(lines[c.endLine! - 1]).toContain(c.content.split('\n').at(-1)!.trim());
    }
    const caches = chunks.find((c) => c.content.includes('LRU'))!;
    expect(caches.startLine).toBe(15);
  });

  it('leaves a chunk whose text is not in the document without a range', () => {
    const [c] = locateLines('a\nb\n', [{ key: 'k', heading: '', content: 'rewritten', text: 'rewritten', metadata: {} }]);
    expect(c!.startLine).toBeUndefined();
  });

  it('are stored and come back with search results (JSON and path:start-end)', async () => {
    mkdirSync(join(tmp.dir, 'docs'));
    writeFileSync(join(tmp.dir, 'docs', 'n.md'), doc);
    const cfg = parseConfig({ db: join(tmp.dir, 'index.db'), embedder: { provider: 'hash', dims: 64 }, chunking: settings,
      sources: [{ name: 'notes', kind: 'dir', path: join(tmp.dir, 'docs') }] });
    expect((await runIndex(cfg)).status).toBe('ok');
    const s = openSearcher(cfg);
    try {
      const [hit] = await s.search('LRU cache evicts', { mode: 'keyword', k: 1 });
      expect(hit).toMatchObject({ path: 'n.md', startLine: 15, endLine: 15 });
      expect(resultJson(hit!)).toMatchObject({ startLine: 15, endLine: 15 });
      expect(searchText([hit!])).toContain('notes:n.md:15-15');
    } finally {
      await s.close();
    }
  });
});
