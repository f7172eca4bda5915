// Bundles the CLI into dist/bundle/ (npm run build runs this after tsc): ragsync.cjs, the whole
// CLI; boot.cjs, which the bin runs and which compiles ragsync.cjs with a V8 code cache; and a
// code cache per command. A one-shot command then neither resolves hundreds of ES modules nor
// compiles most of its code: see "Cold start" in BENCHMARKS.md for what each step gives.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
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
 * Large leaf libraries that few one-shot commands use (undici: remote embedders and reranking;
 * csv-stringify and hyparquet-writer: export), each bundled into a file of its own under vendor/:
 * the CLI bundle, which every command reads and whose code cache every command deserialises, stays
 * a third smaller. They hold no state that ragsync's modules share, so a second file is safe.
 */
const VENDOR = ['undici', 'csv-stringify', 'hyparquet-writer'];
const vendorFiles = {
  name: 'vendor-files',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^(${VENDOR.join('|')})$`) }, (args) => ({ path: args.path, namespace: 'ragsync-vendor' }));
    b.onLoad({ filter: /.*/, namespace: 'ragsync-vendor' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(`./vendor/${args.path}.cjs`)});`,
      loader: 'js',
    }));
    b.onResolve({ filter: /^\.\/vendor\// }, (args) => ({ path: args.path, external: true }));
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
  // Native addons load their .node files relative to their own package.
  external: ['better-sqlite3', 'sqlite-vec'],
  plugins: [noZodLocales, noAjvInMcpServer, vendorFiles],
});
await build({
  ...common,
  entryPoints: Object.fromEntries(VENDOR.map((name) => [`vendor/${name}`, createRequire(import.meta.url).resolve(name)])),
  outdir,
});
await build({
  ...common,
  entryPoints: { boot: new URL('../src/cli/boot.ts', import.meta.url).pathname },
  outdir,
});

// One V8 code cache per command, each made by a process of its own that loaded only that command.
const boot = join(outdir, 'boot.cjs');
for (const command of createRequire(import.meta.url)(boot).COMMAND_NAMES) {
  const made = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(boot)}).writeCodeCache(${JSON.stringify(command)})`], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (made.status !== 0) throw new Error(`bundle: writing the code cache of '${command}' failed (exit ${made.status})`);
}
