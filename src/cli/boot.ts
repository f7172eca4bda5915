import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { COMMAND_NAMES, quickAnswer } from './help.ts';

/**
 * What the `ragsync` bin runs, from dist/bundle/boot.cjs. The CLI is one CommonJS bundle
 * (ragsync.cjs) that this compiles with a V8 code cache for the command at hand: a one-shot command
 * then skips parsing and compiling most of its code, the largest start-up cost left (Node 20 has no
 * module compile cache; a vm.Script's cachedData is the way to one). `npm run build` writes a cache
 * per command by running `<command> --help` once (writeCodeCache), filed under the size and
 * modification time of the bundle it was made from, so a cache never meets another bundle; without
 * one, or when V8 rejects it (another Node, other V8 flags), the bundle compiles as usual.
 */

const here = dirname(fileURLToPath(import.meta.url));
const BUNDLE = join(here, 'ragsync.cjs');

/**
 * The bundle's text and its code caches' folder, named by the bundle's size and modification time
 * (as a Python .pyc names its source): V8 checks no more than a source's length, so a cache made
 * for the bundle before an edit of the same length would run the code it held before. Hashing the
 * bytes instead costs a start ~4 ms (node:crypto's load and the hash); a stat, microseconds.
 */
function readBundle(): { source: string; cacheDir: string } {
  const { size, mtimeMs } = statSync(BUNDLE);
  return { source: readFileSync(BUNDLE, 'utf8'), cacheDir: join(here, 'code-cache', `${size}-${Math.trunc(mtimeMs)}`) };
}
// The CommonJS wrapper, on the bundle's first line so that its line numbers stay those of the file.
const HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const TAIL = '\n})';

type Bundle = { start(argv: string[]): Promise<void> };

function load(source: string, cachedData: Buffer | undefined): { bundle: Bundle; script: Script } {
  const script = new Script(HEAD + source + TAIL, { filename: BUNDLE, cachedData });
  const module = { exports: {} as Bundle };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(BUNDLE), module, BUNDLE, here);
  return { bundle: module.exports, script };
}

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
  const { source, cacheDir } = readBundle();
  let cachedData: Buffer | undefined;
  try {
    if (command) cachedData = readFileSync(join(cacheDir, `${command}.bin`));
  } catch {
    // No cache for this command (or a build without caches, or for another bundle): compile as usual.
  }
  const { bundle, script } = load(source, cachedData);
  if (process.env.RAGSYNC_DEBUG) {
    const state = !cachedData ? 'none' : script.cachedDataRejected ? 'rejected by V8' : 'used';
    process.stderr.write(`ragsync: code cache for ${command ?? '(no command)'}: ${state}\n`);
  }
  await bundle.start(argv);
}

/**
 * Run at build time, once per command: compiles the bundle, runs `<command> --help` (which loads the
 * command's modules and nothing else) and writes what V8 compiled as that command's cache.
 */
export async function writeCodeCache(command: string): Promise<void> {
  const { source, cacheDir } = readBundle();
  const { bundle, script } = load(source, undefined);
  await bundle.start([command, '--help']);
  const file = join(cacheDir, `${command}.bin`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, script.createCachedData());
  renameSync(`${file}.tmp`, file);
}
