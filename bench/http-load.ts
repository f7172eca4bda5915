/**
 * A closed-loop HTTP/1.1 load generator for the serve benches: C keep-alive connections, each
 * sending its next GET as soon as the previous answer is complete, for a fixed time.
 *
 * It runs on a thread of its own over raw sockets (the answer framed by its content-length, which
 * the server always sends) so that what it measures is the server: driven from the bench's own
 * event loop with fetch, a response could sit in the client while the client parsed other
 * responses, and that wait was counted as the server's latency (see docs/benchmarks/query-path.md, "serve under 20
 * clients").
 */
import { connect } from 'node:net';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

export interface LoadOptions {
  port: number;
  paths: string[];
  clients: number;
  seconds: number;
  /** Seconds of the same load first, not counted (the server's JIT and heap settle; so do the client's). */
  warmup?: number;
}

export interface LoadResult {
  /** Milliseconds per request, in completion order. */
  latencies: number[];
  /** Answers with a status other than 200. */
  errors: number;
  seconds: number;
}

/** Runs the load on a worker thread and resolves with every counted request's latency; `counting` is called as counting starts. */
export function runLoad(opts: LoadOptions, counting?: () => void): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    // The thread runs this file too, through tsx's loader (Node 20 gives a worker no --import hooks).
    const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((t) => { t.register(); return import(${JSON.stringify(import.meta.url)}); })`;
    const w = new Worker(boot, { eval: true, workerData: opts });
    w.on('message', (m: LoadResult | 'counting') => (m === 'counting' ? counting?.() : resolve(m)));
    w.once('error', reject);
    w.once('exit', (code) => code && reject(new Error(`load thread exited ${code}`)));
  });
}

/** p (0..1) of sorted values: the value at or above that share of them. */
export const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function load({ port, paths, clients, seconds }: Omit<LoadOptions, 'warmup'>): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  const client = () =>
    new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.setNoDelay(true);
      let buf = Buffer.alloc(0);
      let sent = 0;
      let bodyAt = -1; // where the body starts in buf, once the head is in
      let length = 0;
      const send = () => {
        if (performance.now() >= end) return void socket.end(resolve);
        sent = performance.now();
        socket.write(`GET ${paths[next++ % paths.length]} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`);
      };
      socket.on('connect', send);
      socket.on('error', reject);
      socket.on('close', () => reject(new Error('the server closed a connection mid-run'))); // a no-op once resolved
      socket.on('data', (chunk) => {
        buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
        if (bodyAt < 0) {
          const head = buf.indexOf('\r\n\r\n');
          if (head < 0) return;
          const text = buf.toString('latin1', 0, head);
          const len = /\r\ncontent-length: *(\d+)/i.exec(text);
          if (!len) return reject(new Error(`answer without content-length: ${text.split('\r\n')[0]}`));
          if (!text.startsWith('HTTP/1.1 200 ')) errors++;
          bodyAt = head + 4;
          length = Number(len[1]);
        }
        if (buf.length < bodyAt + length) return;
        latencies.push(performance.now() - sent);
        buf = buf.subarray(bodyAt + length);
        bodyAt = -1;
        send();
      });
    });
  await Promise.all(Array.from({ length: clients }, client));
  return { latencies, errors, seconds: (performance.now() - start) / 1000 };
}

if (!isMainThread && parentPort) {
  const opts = workerData as LoadOptions;
  const warm = opts.warmup ? load({ ...opts, seconds: opts.warmup }) : Promise.resolve();
  warm
    .then(() => {
      parentPort!.postMessage('counting');
      return load(opts);
    })
    .then((r) => parentPort!.postMessage(r));
}
