import { spawn, type ChildProcess } from 'node:child_process';
import { FROM_SOURCES } from './cli.ts';
import { REPO_ROOT } from './tmp.ts';

export interface Served {
  url: string;
  child: ChildProcess;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** `ragsync serve -c <config> --port 0 [args]` as a child process, once it is listening. */
export async function startServe(config: string, env: Record<string, string> = {}, args: string[] = []): Promise<Served> {
  const child = spawn(process.execPath, [...FROM_SOURCES, 'serve', '-c', config, '--port', '0', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (b: Buffer) => {
      err += b.toString();
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`serve exited ${code} before listening: ${err}`)));
  });
  return {
    url,
    child,
    stderr: () => err,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
