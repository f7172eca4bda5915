// Bundles the CLI into dist/bundle/ (npm run build runs this after tsc). A one-shot command then
// loads a few large files instead of resolving hundreds of ES modules: see "Cold start" in
// BENCHMARKS.md for what it gives. Code split at the dynamic imports, so a command still loads
// only its own chunks (no MCP SDK, undici or AI SDK on paths that do not use them).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

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
const STUBS = {
  'zod-locales': 'export {};',
  'ajv-provider': `export class AjvJsonSchemaValidator {
  getValidator() { throw new Error('ragsync mcp does not validate elicitation answers (no JSON Schema validator bundled)'); }
}`,
};

const outdir = new URL('../dist/bundle/', import.meta.url).pathname;
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { run: new URL('../src/cli/run.ts', import.meta.url).pathname },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Native addons load their .node files relative to their own package.
  external: ['better-sqlite3', 'sqlite-vec'],
  // Bundled CommonJS packages (commander, pino …) call require() for node: built-ins.
  banner: { js: "import { createRequire as __ragsyncRequire } from 'node:module'; const require = __ragsyncRequire(import.meta.url);" },
  chunkNames: 'chunks/[name]-[hash]',
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  plugins: [noZodLocales, noAjvInMcpServer],
  logLevel: 'warning',
});
