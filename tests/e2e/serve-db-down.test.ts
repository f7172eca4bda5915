// `ragsync serve` over a Postgres index whose server goes away and comes back: /healthz and /search
// answer 503 naming the server (host, port, error code, never the password) while it is gone, and
// 200 again on their own once it is back. The test PostgreSQL sits behind a loopback TCP relay
// that is closed and reopened on the same port, so the server really disappears for serve.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freshSchema, needPostgres } from '../helpers/postgres.ts';
import { runCli } from '../helpers/cli.ts';
import { startServe, type Served } from '../helpers/serve.ts';
import { tempDir } from '../helpers/tmp.ts';

const pg = needPostgres();

/** A TCP relay to the test server, on a fixed port, that can be taken down and brought back. */
class Relay {
  private server: Server | null = null;
  private sockets = new Set<Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}
  async up(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }
  async down(): Promise<void> {
    if (!this.server) return;
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server?.close(r));
    this.server = null;
  }
}

describe.skipIf(!pg.ok)(pg.title('serve with the database down'), () => {
  let t: ReturnType<typeof tempDir>;
  let relay: Relay;
  let srv: Served;
  let drop: () => Promise<void>;
  const PASSWORD = 'Sekr3tPw';

  beforeAll(async () => {
    t = tempDir('ragsync-dbdown-');
    const s = freshSchema('dbdown');
    drop = s.drop;
    const real = new URL(s.url);
    relay = new Relay({ host: real.hostname, port: Number(real.port) });
    await relay.up();
    // Trust auth ignores the password; it is there to be kept out of every answer.
    const db = new URL(s.url);
    db.port = String(relay.port);
    db.password = PASSWORD;
    const notes = join(t.dir, 'notes');
    mkdirSync(notes);
    writeFileSync(join(notes, 'kestrel.md'), '# Kestrel\n\nThe kestrel hovers over the field.\n');
    const config = join(t.dir, 'ragsync.json');
    writeFileSync(config, JSON.stringify({ db: db.toString(), embedder: { provider: 'hash', dims: 64 }, sources: [{ name: 'notes', kind: 'dir', path: notes }] }));
    const r = await runCli(['index', '-c', config]);
    expect(r.code, r.stderr).toBe(0);
    srv = await startServe(config);
  }, 90_000);
  afterAll(async () => {
    await srv?.stop();
    await drop?.();
    await relay?.down();
    t?.cleanup();
  });

  const get = async (path: string) => {
    const res = await fetch(srv.url + path);
    return { status: res.status, retryAfter: res.headers.get('retry-after'), text: await res.text() };
  };

  it('503 with the cause while the server is gone, 200 again once it is back', async () => {
    const t0 = Date.now();
    expect((await get('/search?q=kestrel')).status).toBe(200);
    expect((await get('/healthz')).status).toBe(200);

    await relay.down();
    // The pooled connection the relay cut fails its next query as lost; every later one is refused.
    const lost = await get('/search?q=kestrel');
    expect(lost.status, lost.text).toBe(503);
    expect(JSON.parse(lost.text).error).toMatch(new RegExp(`^index unavailable: .*127\\.0\\.0\\.1:${relay.port}`));
    for (const path of ['/search?q=kestrel', '/healthz', '/status']) {
      const r = await get(path);
      expect(r.status, `${path}: ${r.text}`).toBe(503);
      expect(r.retryAfter).toBe('5');
      expect(r.text).not.toContain(PASSWORD);
      expect(r.text).not.toContain('\n');
      const body = JSON.parse(r.text);
      expect(body.error).toMatch(new RegExp(`^index unavailable: .*127\\.0\\.0\\.1:${relay.port}.*(ECONNREFUSED|connection refused)`));
      expect(body.database).toMatchObject({ host: '127.0.0.1', port: relay.port, code: 'ECONNREFUSED', kind: 'unreachable' });
    }
    expect(srv.stderr()).not.toContain(PASSWORD);
    expect(srv.stderr()).toMatch(/GET \/search: 503: index unavailable/);

    // Refused at once, not after a connect timeout.
    expect(Date.now() - t0).toBeLessThan(10_000);
    await relay.up();
    const back = await get('/search?q=kestrel');
    expect(back.status, back.text).toBe(200);
    expect(JSON.parse(back.text).results[0].path).toBe('kestrel.md');
    expect((await get('/healthz')).status).toBe(200);
  });
});
