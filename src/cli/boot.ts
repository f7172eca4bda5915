import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { COMMAND_NAMES, quickAnswer } from './help.ts';
import { underCodeCacheFlags } from './v8-flags.ts';

/**
 * What the `ragsync` bin runs, from dist/bundle/boot.cjs. The CLI is one CommonJS bundle
 * (ragsync.cjs) that this compiles with a V8 code cache for the command at hand: a one-shot command
 * then skips parsing and compiling most of its code, the largest start-up cost left (Node 20 has no
 * module compile cache; a vm.Script's cachedData is the way to one). `npm run build` writes a cache
 * per command by running it once (writeCodeCache: a real run for the commands a small build-time
 * index serves, `<command> --help` for the rest) and one per vendor file, each filed under the size
 * and modification time of the file it was made from, so a cache never meets another file; without
 * one, or when V8 rejects it (another Node, other V8 flags), the file compiles as usual.
 */

const here = dirname(fileURLToPath(import.meta.url));
const BUNDLE = join(here, 'ragsync.cjs');

// The CommonJS wrapper, on the file's first line so that its line numbers stay those of the file.
const HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const TAIL = '\n})';

interface Loaded {
  exports: unknown;
  script: Script;
  /** This file's code-cache folder: its caches are `<name>.bin` there. */
  cacheDir: string;
}

/**
 * Compiles and runs a CommonJS file of dist/bundle with its code cache `name` when there is one.
 * The caches' folder is named by the file's size and modification time (as a Python .pyc names its
 * source): V8 checks no more than a source's length, so a cache made before an edit of the same
 * length would run the code the file held before. Hashing the bytes instead costs a start ~4 ms
 * (node:crypto's load and the hash); a stat, microseconds.
 */
function run(file: string, name: string | undefined, require: NodeJS.Require): Loaded {
  const { size, mtimeMs } = statSync(file);
  const cacheDir = join(here, 'code-cache', `${relative(here, file).replace(/[\\/]/g, '_')}-${size}-${Math.trunc(mtimeMs)}`);
  let cachedData: Buffer | undefined;
  try {
    if (name) cachedData = readFileSync(join(cacheDir, `${name}.bin`));
  } catch {
    // No cache of that name (or a build without caches, or for another file): compile as usual.
  }
  const source = HEAD + readFileSync(file, 'utf8') + TAIL;
  const script = cachedData ? underCodeCacheFlags(() => new Script(source, { filename: file, cachedData })) : new Script(source, { filename: file });
  const module = { exports: {} };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, require, module, file, dirname(file));
  if (process.env.RAGSYNC_DEBUG && name) {
    const cache = !cachedData ? 'none' : script.cachedDataRejected ? 'rejected by V8' : 'used';
    process.stderr.write(`ragsync: code cache for ${name === VENDOR ? relative(here, file) : name}: ${cache}\n`);
  }
  return { exports: module.exports, script, cacheDir };
}

/** The cache name of a vendor file (one cache each, made by loading it). */
const VENDOR = 'module';

/**
 * The bundle's require: the vendor files (./vendor/*.cjs, the libraries few commands use) compile
 * with their own code caches, the rest (Node's built-ins, the addons) load as usual.
 */
function bundleRequire(): NodeJS.Require {
  const plain = createRequire(BUNDLE);
  const vendors = new Map<string, unknown>();
  const vendorRequire = (id: string): unknown => {
    if (!id.startsWith('./vendor/')) return plain(id);
    if (!vendors.has(id)) {
      const file = join(here, id);
      vendors.set(id, run(file, VENDOR, createRequire(file)).exports);
    }
    return vendors.get(id);
  };
  return Object.assign(vendorRequire, { resolve: plain.resolve, cache: plain.cache, extensions: plain.extensions, main: plain.main });
}

type Bundle = { start(argv: string[]): Promise<void> };

/** The command a command line runs (the first word that names one), which picks its code cache. */
const commandOf = (argv: readonly string[]) => argv.find((a) => !a.startsWith('-') && COMMAND_NAMES.includes(a));

export { COMMAND_NAMES };

export async function boot(argv: string[] = process.argv.slice(2)): Promise<void> {
  const quick = quickAnswer(argv, process.stdout.isTTY ? process.stdout.columns : undefined);
  if (quick !== undefined) {
    process.stdout.write(quick);
    return;
  }
  const command = commandOf(argv);
  const { exports } = run(BUNDLE, command, bundleRequire());
  await (exports as Bundle).start(argv);
}

/** Writes what V8 compiled of a loaded file as its cache `name`. */
function writeCache({ script, cacheDir }: Loaded, name: string): void {
  const cacheFile = join(cacheDir, `${name}.bin`);
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(`${cacheFile}.tmp`, underCodeCacheFlags(() => script.createCachedData()));
  renameSync(`${cacheFile}.tmp`, cacheFile);
}

/**
 * Run at build time, once per command: compiles the bundle, runs the command line `args` (a real
 * run over a small index the build makes, or `<command> --help`, which loads the command's modules
 * and nothing else) and writes what V8 compiled as that command's cache.
 */
export async function writeCodeCache(command: string, args: string[] = [command, '--help']): Promise<void> {
  const loaded = run(BUNDLE, undefined, bundleRequire());
  await (loaded.exports as Bundle).start(args);
  writeCache(loaded, command);
}

/** Run at build time, once per vendor file (`vendor/<name>.cjs`): loads it and writes its cache. */
export function writeVendorCache(file: string): void {
  const path = join(here, file);
  const loaded = run(path, undefined, createRequire(path));
  writeCache(loaded, VENDOR);
}
