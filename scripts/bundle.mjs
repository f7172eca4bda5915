// Bundles the CLI into dist/bundle/ (npm run build runs this after tsc). A one-shot command then
// loads a few large files instead of resolving hundreds of ES modules: see "Cold start" in
// BENCHMARKS.md for what it gives. Code split at the dynamic imports, so a command still loads
// only its own chunks (no MCP SDK, undici or AI SDK on paths that do not use them).
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';

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
 * The config and search-request schemas use zod/mini, which shares zod's core with the classic API
 * (MCP and AI SDK tool schemas). esbuild splits by module, so the shared core chunk would hold all
 * the core the classic API and its JSON Schema export use (~220 kB, parsed by every command). The
 * mini imports of src/ get a private copy of the zod modules instead: a one-shot command loads only
 * what mini uses (~50 kB); `mcp` loads both copies. Global config (the English messages) lives on
 * globalThis, shared by both.
 */
const privateZodMini = {
  name: 'private-zod-mini',
  setup(b) {
    const copy = async (args) => {
      const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { plain: true } });
      return r.errors.length ? { errors: r.errors } : { path: r.path, namespace: 'zod-mini' };
    };
    b.onResolve({ filter: /^zod\/(mini|v4\/locales\/en\.js)$/ }, (args) =>
      args.pluginData?.plain || args.namespace !== 'file' || !/[\\/]src[\\/]/.test(args.importer) ? undefined : copy(args),
    );
    b.onResolve({ filter: /.*/, namespace: 'zod-mini' }, copy);
    b.onLoad({ filter: /.*/, namespace: 'zod-mini' }, (args) => ({ contents: readFileSync(args.path, 'utf8'), loader: 'js', resolveDir: dirname(args.path) }));
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
  plugins: [noZodLocales, noAjvInMcpServer, privateZodMini],
  logLevel: 'warning',
});
