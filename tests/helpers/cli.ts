import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './tmp.ts';

const ENTRY = join(REPO_ROOT, 'src', 'cli', 'run.ts');
/** The installed `ragsync` command (package.json "bin"), which runs the bundle `npm run build` writes. */
export const BIN = join(REPO_ROOT, 'bin', 'ragsync.js');
export const BUNDLE_DIR = join(REPO_ROOT, 'dist', 'bundle');

/** Node's arguments before ragsync's own: the sources through tsx, or the bundled bin. */
export const FROM_SOURCES: readonly string[] = ['--import', 'tsx', ENTRY];
export const FROM_BIN: readonly string[] = [BIN];

/**
 * How the suites run the CLI: the bundled bin when the build is at least as new as every file it
 * is built from (the same code, started ~5× cheaper than through tsx, and a suite spawns it
 * hundreds of times), the sources through tsx otherwise, so an edit is never tested against a
 * stale build. RAGSYNC_TEST_CLI=sources|bin forces one.
 */
export const FROM_CLI: readonly string[] = chooseCli(process.env.RAGSYNC_TEST_CLI);

/** FROM_CLI runnable from any working directory (tsx named by its path when it runs the sources). */
export const FROM_CLI_ANYWHERE: readonly string[] =
  FROM_CLI === FROM_BIN ? FROM_BIN : ['--import', createRequire(join(REPO_ROOT, 'package.json')).resolve('tsx'), ENTRY];

function chooseCli(forced: string | undefined): readonly string[] {
  if (forced === 'sources') return FROM_SOURCES;
  if (forced === 'bin') return FROM_BIN;
  if (forced) throw new Error(`RAGSYNC_TEST_CLI=${forced}: expected "sources" or "bin"`);
  return builtSince(['src', 'migrations', 'config', 'bin', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) ? FROM_BIN : FROM_SOURCES;
}

/** Whether the bundle was written after every file under `inputs` (paths from the repository root) last changed. */
function builtSince(inputs: string[]): boolean {
  const outputs = ['boot.cjs', 'ragsync.cjs'].map((f) => join(BUNDLE_DIR, f));
  if (!outputs.every((f) => existsSync(f))) return false;
  const built = Math.min(...outputs.map((f) => statSync(f).mtimeMs));
  const newest = (path: string): number => {
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) return 0;
    if (!st.isDirectory()) return st.mtimeMs;
    let m = st.mtimeMs;
    for (const e of readdirSync(path)) m = Math.max(m, newest(join(path, e)));
    return m;
  };
  return inputs.every((p) => newest(join(REPO_ROOT, p)) <= built);
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `node <nodeArgs> <args>` from the repository root and collects its output. */
export function runNode(nodeArgs: readonly string[], args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, RAGSYNC_LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Runs the ragsync CLI in a child process, as a user would run it (FROM_CLI: the fresh build, else the sources). */
export const runCli = (args: string[], env: Record<string, string> = {}): Promise<CliResult> => runNode(FROM_CLI, args, env);

/**
 * Runs the ragsync CLI as installed: `node bin/ragsync.js`, the bundle in dist/bundle/. Throws a
 * one-line error when there is no build (the bin cannot run without one).
 */
export function runBin(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  assertBuilt();
  return runNode(FROM_BIN, args, env);
}

export function assertBuilt(): void {
  if (!existsSync(join(BUNDLE_DIR, 'boot.cjs'))) throw new Error('dist/bundle/boot.cjs is missing: run `npm run build` first');
}

export function runCliSync(args: string[], env: Record<string, string> = {}): CliResult {
  const r = spawnSync(process.execPath, [...FROM_CLI, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}
