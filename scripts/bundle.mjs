// Bundles the CLI into dist/bundle/ (npm run build runs this after tsc). A one-shot command then
// loads a few large files instead of resolving hundreds of ES modules: see "Cold start" in
// BENCHMARKS.md for what it gives. Code split at the dynamic imports, so a command still loads
// only its own chunks (no MCP SDK, undici or AI SDK on paths that do not use them).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

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
  logLevel: 'warning',
});
