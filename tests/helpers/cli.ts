import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './tmp.ts';

const ENTRY = join(REPO_ROOT, 'src', 'cli', 'run.ts');
/** The installed `ragsync` command (package.json "bin"), which runs the bundle `npm run build` writes. */
export const BIN = join(REPO_ROOT, 'bin', 'ragsync.js');
export const BUNDLE_DIR = join(REPO_ROOT, 'dist', 'bundle');

/** Node's arguments before ragsync's own: the sources through tsx, or the bundled bin. */
export const FROM_SOURCES: readonly string[] = ['--import', 'tsx', ENTRY];
export const FROM_BIN: readonly string[] = [BIN];

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

/** Runs the ragsync CLI from source in a child process, as a user would run it. */
export const runCli = (args: string[], env: Record<string, string> = {}): Promise<CliResult> => runNode(FROM_SOURCES, args, env);

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
  const r = spawnSync(process.execPath, [...FROM_SOURCES, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}
