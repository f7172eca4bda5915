/**
 * Serve-time memory of query expansion: two child processes open the same index and answer every
 * query of the eval sets in hybrid mode, one with expansion off and one with it on; each prints its
 * peak RSS. The lexicon is read from the index per query, so the difference should be noise.
 *
 *   npx tsx bench/expansion-rss.bench.ts DB   # DB: an index of both corpora (bench/expansion.bench.ts --db DB makes one)
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinProfiles } from '../src/builtin.ts';
import { parseConfig } from '../src/config/load.ts';
import { readEvalFile } from '../src/search/eval.ts';
import { Searcher } from '../src/search/search.ts';
import { builtinSourceKinds } from '../src/sources/registry.ts';
import { openSearcher } from '../src/engine/library.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const [db, child] = process.argv.slice(2);
if (!db) throw new Error('usage: expansion-rss.bench.ts DB');
if (child) {
  const config = parseConfig(builtinProfiles, builtinSourceKinds, {
    db: resolve(db),
    sources: [
      { name: 'classics', kind: 'dir', path: '/nonexistent/classics', chunker: 'classics' },
      { name: 'bookmarks', kind: 'dir', path: '/nonexistent/bookmarks', chunker: 'bookmarks' },
    ],
  });
  const s = openSearcher(config);
  const files = ['eval/classics.jsonl', 'eval/bookmarks.jsonl', ...readdirSync(join(root, 'eval/dev')).map((f) => `eval/dev/${f}`)];
  let peak = 0;
  for (let round = 0; round < 2; round++) {
    for (const f of files) {
      for (const c of readEvalFile(join(root, f))) {
        await s.search(c.query, { sources: c.source ? [c.source] : undefined, expand: child === 'on' });
        peak = Math.max(peak, process.memoryUsage().rss);
      }
    }
  }
  await s.close();
  console.log(peak);
} else {
  const run = (mode: string) => Number(execFileSync('npx', ['tsx', fileURLToPath(import.meta.url), db, mode], { encoding: 'utf8' }).trim().split('\n').pop());
  const off = run('off');
  const on = run('on');
  console.log(`peak RSS serving the eval queries: expansion off ${(off / 1e6).toFixed(1)} MB, on ${(on / 1e6).toFixed(1)} MB (+${((on - off) / 1e6).toFixed(1)} MB)`);
}
