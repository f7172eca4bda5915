// Bundles the CLI into dist/bundle/ (npm run build runs this after tsc): ragsync.cjs, the whole
// CLI; boot.cjs, which the bin runs and which compiles ragsync.cjs with a V8 code cache; and a
// code cache per command. A one-shot command then neither resolves hundreds of ES modules nor
// compiles most of its code: see docs/benchmarks/cold-start.md for what each step gives.
import { build } from 'esbuild';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * zod's classic API re-exports every locale (about 300 kB, 40 % of what `search` parses) as
 * `z.locales`; ragsync uses only English, which zod imports on its own. The namespace becomes empty.
 */
const noZodLocales = {
  name: 'no-zod-locales',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core|mini)[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'ragsync-stub' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'ragsync-stub' }, (args) => ({ contents: STUBS[args.path], loader: 'js' }));
  },
};

/**
 * The MCP SDK's Server builds an ajv validator (ajv, ajv-formats, fast-uri: half of the MCP chunk,
 * and costly to construct) for one feature ragsync does not use: checking a client's answer to an
 * elicitation request. The bundled CLI gets a validator that says so if it is ever asked.
 */
const noAjvInMcpServer = {
  name: 'no-ajv-in-mcp-server',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/validation\/ajv-provider\.js$/ }, (args) =>
      /[\\/]@modelcontextprotocol[\\/]sdk[\\/].*[\\/]server[\\/]index\.js$/.test(args.importer)
        ? { path: 'ajv-provider', namespace: 'ragsync-stub' }
        : undefined,
    );
  },
};
/**
 * Libraries that few one-shot commands use, bundled into files of their own under vendor/: undici
 * (remote embedders, reranking, web crawls), saxes (sitemaps), csv-stringify and hyparquet-writer
 * (export), simple-git (a source's first clone), the AI SDK (answers), and zod's classic API
 * with the MCP SDK built on it (mcp, the AI SDK tool, eval). The CLI bundle, which every command
 * reads and whose code cache every command deserialises, is then half the size. A vendor file holds
 * one copy of what it bundles, so the MCP SDK and ragsync's own schemas share one zod; the config
 * and request schemas use zod/mini, whose core the CLI bundle keeps a copy of (zod's global
 * config, the English messages, lives on globalThis: both copies read it).
 */
const VENDOR = {
  undici: ['undici'],
  saxes: ['saxes'],
  'csv-stringify': ['csv-stringify'],
  'hyparquet-writer': ['hyparquet-writer'],
  'simple-git': ['simple-git'],
  // The Postgres client, loaded (dynamically) only for a postgres:// db.
  pg: ['pg'],
  mcp: ['zod', '@modelcontextprotocol/sdk/server/mcp.js', '@modelcontextprotocol/sdk/server/stdio.js'],
  // The AI SDK and its OpenAI-compatible provider: only answering (serve with chat, ask) loads them.
  ai: ['ai', '@ai-sdk/openai-compatible'],
};
const vendorOf = new Map(Object.entries(VENDOR).flatMap(([file, specifiers]) => specifiers.map((s) => [s, file])));
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** In the CLI bundle: an import of a vendored package reads it from its vendor file. */
const fromVendorFiles = {
  name: 'from-vendor-files',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^(${[...vendorOf.keys()].map(escape).join('|')})$`) }, (args) => ({ path: args.path, namespace: 'ragsync-vendor' }));
    b.onLoad({ filter: /.*/, namespace: 'ragsync-vendor' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(`./vendor/${vendorOf.get(args.path)}.cjs`)}).modules[${JSON.stringify(args.path)}];`,
      loader: 'js',
    }));
    b.onResolve({ filter: /^\.\/vendor\// }, (args) => ({ path: args.path, external: true }));
  },
};
/** A vendor file's entry: its packages' namespaces, by specifier. */
const vendorEntries = {
  name: 'vendor-entries',
  setup(b) {
    b.onResolve({ filter: /^vendor-entry:/ }, (args) => ({ path: args.path.slice('vendor-entry:'.length), namespace: 'vendor-entry' }));
    b.onLoad({ filter: /.*/, namespace: 'vendor-entry' }, (args) => {
      const specifiers = VENDOR[args.path];
      return {
        contents: `${specifiers.map((s, i) => `import * as m${i} from ${JSON.stringify(s)};`).join('\n')}\nexport const modules = { ${specifiers.map((s, i) => `${JSON.stringify(s)}: m${i}`).join(', ')} };`,
        loader: 'js',
        resolveDir: new URL('..', import.meta.url).pathname,
      };
    });
  },
};
/** sqlite-vec's CommonJS entry: its ES module finds the extension through import.meta.resolve, which a CommonJS bundle lacks. */
const sqliteVecCommonJs = {
  name: 'sqlite-vec-commonjs',
  setup(b) {
    b.onResolve({ filter: /^sqlite-vec$/ }, () => ({ path: createRequire(import.meta.url).resolve('sqlite-vec') }));
  },
};
/**
 * jsonc-parser's "main" is a UMD build whose requires go through the factory's parameter, which
 * esbuild cannot follow (the bundle would require './impl/format' at run time): its ES module build instead.
 */
const jsoncParserEsm = {
  name: 'jsonc-parser-esm',
  setup(b) {
    b.onResolve({ filter: /^jsonc-parser$/ }, () => ({ path: createRequire(import.meta.url).resolve('jsonc-parser').replace(/lib[\\/]umd[\\/]main\.js$/, 'lib/esm/main.js') }));
  },
};
const STUBS = {
  'zod-locales': 'export {};',
  'ajv-provider': `export class AjvJsonSchemaValidator {
  getValidator() { throw new Error('ragsync mcp does not validate elicitation answers (no JSON Schema validator bundled)'); }
}`,
};

const outdir = new URL('../dist/bundle/', import.meta.url).pathname;
rmSync(outdir, { recursive: true, force: true });
const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // ES modules' import.meta.url, as the bundle file's URL (package-root walks up from it).
  define: { 'import.meta.url': '__ragsync_import_meta_url' },
  banner: { js: "var __ragsync_import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
  outExtension: { '.js': '.cjs' },
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
};
// The whole CLI in one file: commands stay lazy (esbuild turns their dynamic imports into module
// initialisers run on first use), and one file is what a code cache can cover.
await build({
  ...common,
  entryPoints: { ragsync: new URL('../src/cli/start.ts', import.meta.url).pathname },
  outdir,
  // Native code stays where npm put it: better-sqlite3's addon is named to it
  // (storage/sqlite/open-sqlite.ts), and sqlite-vec resolves its extension's package at run time.
  plugins: [noZodLocales, fromVendorFiles, sqliteVecCommonJs, jsoncParserEsm],
});
asciiOnly(join(outdir, 'ragsync.cjs'));
await build({
  ...common,
  entryPoints: Object.fromEntries(Object.keys(VENDOR).map((file) => [`vendor/${file}`, `vendor-entry:${file}`])),
  outdir,
  // pg's optional native binding (libpq) is never asked for.
  external: ['pg-native'],
  plugins: [noZodLocales, noAjvInMcpServer, vendorEntries],
});
await build({
  ...common,
  entryPoints: { boot: new URL('../src/cli/boot.ts', import.meta.url).pathname },
  outdir,
});

// One V8 code cache per command, each made by a process of its own that ran only that command, and
// one per vendor file. The hourly no-op `index` and a one-shot `search` or `status` warm up on a
// real run over a small index made here (what V8 compiles for `--help` leaves out the code of the
// run itself: ~10 ms of a no-op `index`); every other command, and these should that index fail to
// build, on `<command> --help`.
const boot = join(outdir, 'boot.cjs');
const bin = new URL('../bin/ragsync.js', import.meta.url).pathname;
const node = (args) => spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'ignore'] }).status === 0;
/** Calls one of boot.cjs's cache writers in a process of its own; whether it succeeded. */
const bootCall = (fn, ...args) => node(['-e', `require(${JSON.stringify(boot)}).${fn}(${args.map((a) => JSON.stringify(a)).join(', ')})`]);

const warm = warmIndex();
try {
  const realRuns = warm && {
    index: ['index', '-c', warm.config],
    search: ['search', '伤官配印 retry backoff', '--source', 'classics', '-c', warm.config],
    status: ['status', '-c', warm.config],
  };
  for (const command of createRequire(import.meta.url)(boot).COMMAND_NAMES) {
    if (realRuns?.[command] && bootCall('writeCodeCache', command, realRuns[command])) continue;
    if (!bootCall('writeCodeCache', command, [command, '--help'])) throw new Error(`bundle: writing the code cache of '${command}' failed`);
  }
} finally {
  if (warm) rmSync(warm.dir, { recursive: true, force: true });
}
for (const file of Object.keys(VENDOR)) {
  if (!bootCall('writeVendorCache', `vendor/${file}.cjs`)) throw new Error(`bundle: writing the code cache of vendor/${file}.cjs failed`);
}

/**
 * esbuild escapes what is not ASCII in strings and templates but leaves regular expression
 * literals as written (the CJK ones of the profiles and chunkers): a handful of characters that
 * made the whole source a two-byte string, which every command reads, copies and scans at twice
 * the size (~1 ms of a start). A \uXXXX escape means the same character in a regular expression
 * (in `u` mode a pair of escaped surrogates is one code point) and in an identifier.
 */
function asciiOnly(file) {
  const text = readFileSync(file, 'utf8');
  // An escaped character (`\。`, an odd run of backslashes before it) is that character: its escape replaces both.
  const escaped = text.replace(/(\\*)([^\0-\x7f])/g, (_, slashes, c) => `${slashes.slice(slashes.length % 2)}\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  writeFileSync(file, escaped);
}

/**
 * A temporary git repository of two Markdown files, indexed once by the built bin (so that the
 * `index` warm-up run is the no-op the hourly job usually is): what the warm-up runs read. Null
 * when that fails (no git, say): the caches are then made from `--help`.
 */
function warmIndex() {
  const dir = mkdtempSync(join(tmpdir(), 'ragsync-build-'));
  try {
    const upstream = join(dir, 'upstream');
    mkdirSync(upstream);
    writeFileSync(join(upstream, 'a.md'), '# 伤官配印\n\n伤官配印，用印制伤。甲木生于寅月，以丙火为用。\n\n## 用神\n\n身弱财旺，以印比为用。\n');
    writeFileSync(join(upstream, 'b.md'), '# Retries\n\nRetry with exponential backoff and jitter; give up after a deadline.\n');
    const git = (...args) => execFileSync('git', ['-C', upstream, '-c', 'user.name=ragsync build', '-c', 'user.email=build@ragsync.invalid', '-c', 'commit.gpgsign=false', ...args], { stdio: 'ignore' });
    git('init', '--quiet', '--initial-branch=main');
    git('add', '.');
    git('commit', '--quiet', '-m', 'warm-up');
    const config = join(dir, 'ragsync.json');
    writeFileSync(
      config,
      JSON.stringify({
        db: 'warm.db',
        embedder: { provider: 'hash', dims: 256 },
        sources: [
          { name: 'classics', url: upstream, chunker: 'classics' },
          { name: 'notes', url: upstream, chunker: 'bookmarks' },
        ],
      }),
    );
    if (!node([bin, 'index', '-c', config])) throw new Error('index failed');
    return { dir, config };
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
}
