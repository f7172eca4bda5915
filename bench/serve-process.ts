/** What the serve benches share: their flags, a `ragsync serve` child on a fixed loopback port, and its memory from /proc. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** `node <entry…> serve -c <config> --port <port>`, once /healthz answers (up to a minute). */
export async function startServeOn(entry: string[], config: string, port: number, cwd?: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...entry, 'serve', '-c', config, '--port', String(port)], {
    cwd,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exit: number | null | undefined;
  child.on('exit', (code) => (exit = code));
  for (let i = 0; i < 600 && exit === undefined; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).status) return child;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error(`serve (${entry.join(' ')}) did not start${exit === undefined ? '' : `: exited ${exit}`}`);
}

/** RSS figures of a process in MB: total, anonymous, file-backed, and the peak (VmHWM). */
export function procMemory(pid: number): { rss: number; anon: number; file: number; hwm: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? NaN) / 1024;
  return { rss: mb('VmRSS'), anon: mb('RssAnon'), file: mb('RssFile'), hwm: mb('VmHWM') };
}

/** Removes `name VALUE` from `args` and returns VALUE, or `def` when the flag is absent. */
export function takeOption(args: string[], name: string, def: string): string {
  const i = args.indexOf(name);
  if (i < 0) return def;
  const v = args[i + 1]!;
  args.splice(i, 2);
  return v;
}

/** Removes the flag `name` from `args` and returns whether it was there. */
export function takeFlag(args: string[], name: string): boolean {
  const i = args.indexOf(name);
  if (i >= 0) args.splice(i, 1);
  return i >= 0;
}
