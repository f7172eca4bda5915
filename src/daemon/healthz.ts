import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Health } from './health.ts';

/**
 * A minimal HTTP server for `ragsync daemon --serve` that answers only GET /healthz. Kept apart so
 * the full API server (`ragsync serve`) can replace it and mount the same `health()` callback.
 */
export interface HealthServer {
  url: string;
  close(): Promise<void>;
}

export async function startHealthServer(
  health: () => Promise<Health>,
  opts: { host: string; port: number },
): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/healthz' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not found' }));
      return;
    }
    health().then(
      (h) => res.writeHead(h.statusCode, { 'content-type': 'application/json' }).end(JSON.stringify(h)),
      (err: unknown) =>
        res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error: String(err) })),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
