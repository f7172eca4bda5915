/**
 * The shipped config (config/ragsync.json) pointed at bare clones of the corpora bundles, in a
 * folder of this checkout (git-ignored), for the benchmarks that read an index of both corpora:
 *
 *   npx tsx bench/corpora-config.ts [DIR]        # default bench/.work/corpora; prints the config's path
 *   node bin/ragsync.js index -c bench/.work/corpora/ragsync.json
 *
 * Bundles: $RAGSYNC_CORPORA, else ../shared/corpora or ../../shared/corpora (docs/development.md).
 * Clones already there are kept, so a second call writes the config only.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const corpora = process.env.RAGSYNC_CORPORA ?? [join(root, '..', 'shared', 'corpora'), join(root, '..', '..', 'shared', 'corpora')].find((d) => existsSync(join(d, 'classics.bundle')));
if (!corpora || !existsSync(join(corpora, 'classics.bundle'))) throw new Error('no classics.bundle: set RAGSYNC_CORPORA to the corpora folder');
const dir = resolve(process.argv[2] ?? join(root, 'bench', '.work', 'corpora'));
mkdirSync(dir, { recursive: true });
const shipped = JSON.parse(readFileSync(join(root, 'config', 'ragsync.json'), 'utf8')) as { sources: { name: string }[] };
for (const s of shipped.sources) {
  const bare = join(dir, `${s.name}.git`);
  if (!existsSync(bare)) execFileSync('git', ['clone', '--quiet', '--bare', join(corpora, `${s.name}.bundle`), bare]);
}
const file = join(dir, 'ragsync.json');
const config = { ...shipped, $schema: join(root, 'config', 'schema.json'), db: 'index.db', checkouts: 'checkouts', sources: shipped.sources.map((s) => ({ ...s, url: `${s.name}.git` })) };
writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
console.log(file);
