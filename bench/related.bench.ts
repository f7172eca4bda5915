/**
 * Do `related` bookmarks share a topic? For bookmarks sampled at random (fixed seed) among those
 * whose file has a `- Tags:` line, the share of their related bookmarks (k 5, bookmarks only) that
 * share one of their tags — tags most bookmarks carry (more than a quarter of the tagged ones,
 * e.g. #read) left out as no topic — among the related that have such tags. Run for any checkout
 * on an index it built, so one script gives before and after.
 *
 *   npx tsx bench/related.bench.ts -c CONFIG [--root CHECKOUT] [--n 150] [--k 5]
 *
 * CONFIG: as bench/literal.bench.ts (a `bookmarks` source, a clone of the bundle, indexed).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { loadConfig as LoadConfig } from '../src/builtin.ts';
import type { Searcher as SearcherClass } from '../src/search/search.ts';
import { corpusDocs } from '../tests/helpers/sentences.ts';
import { xorshift } from '../tests/helpers/rng.ts';
import { openSearcher } from '../src/engine/library.ts';

const here = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const configFile = opt('-c');
if (!configFile) throw new Error('usage: related.bench.ts -c CONFIG [--root CHECKOUT] [--n N] [--k K]');
const root = resolve(opt('--root') ?? here);
const n = Number(opt('--n') ?? 150);
const k = Number(opt('--k') ?? 5);
const { loadConfig } = (await import(join(root, 'src/builtin.ts'))) as { loadConfig: typeof LoadConfig };
const { Searcher } = (await import(join(root, 'src/search/search.ts'))) as { Searcher: typeof SearcherClass };

const config = loadConfig(configFile);
const dir = config.sources.find((s) => s.name === 'bookmarks')!.root;
const tagsOf = new Map<string, string[]>();
for (const d of corpusDocs(config, 'bookmarks', dir)) {
  const line = /^- Tags:(.*)$/m.exec(readFileSync(join(dir, d.path), 'utf8'));
  if (line) tagsOf.set(d.path, [...line[1]!.matchAll(/#?([^\s#,]+)/g)].map((m) => m[1]!.toLowerCase()));
}
const count = new Map<string, number>();
for (const ts of tagsOf.values()) for (const t of new Set(ts)) count.set(t, (count.get(t) ?? 0) + 1);
const generic = new Set([...count].filter(([, c]) => c > tagsOf.size / 4).map(([t]) => t));
const topical = (p: string) => (tagsOf.get(p) ?? []).filter((t) => !generic.has(t));

const rand = xorshift(20261126);
const pool = [...tagsOf.keys()].filter((p) => topical(p).length).sort();
for (let i = pool.length - 1; i > 0; i--) {
  const j = Math.floor(rand() * (i + 1));
  [pool[i], pool[j]] = [pool[j]!, pool[i]!];
}
const sample = pool.slice(0, n);

const searcher = openSearcher(config);
let related = 0;
let tagged = 0;
let sharing = 0;
let anyShare = 0;
const t0 = Date.now();
try {
  for (const path of sample) {
    const mine = new Set(topical(path));
    const out = await searcher.related({ source: 'bookmarks', path }, { k, sources: ['bookmarks'] });
    let shared = false;
    for (const r of out) {
      related++;
      const theirs = topical(r.path);
      if (!theirs.length) continue;
      tagged++;
      if (theirs.some((t) => mine.has(t))) (sharing++, (shared = true));
    }
    if (shared) anyShare++;
  }
} finally {
  await searcher.close();
}
const f = (x: number) => x.toFixed(3);
console.log(`generic tags left out: ${[...generic].join(', ') || '(none)'}; ${tagsOf.size} tagged bookmarks, ${pool.length} with a topical tag`);
console.log('| bookmarks | related (k) | related with topical tags | share sharing a tag | bookmarks with ≥ 1 related sharing a tag |');
console.log('|---:|---:|---:|---:|---:|');
console.log(`| ${sample.length} | ${related} (${k}) | ${tagged} | ${f(sharing / tagged)} | ${f(anyShare / sample.length)} |`);
console.log(`root ${root}; ${((Date.now() - t0) / 1000).toFixed(0)} s`);
