import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { MAX_QUERY_CHARS } from '../search/request.ts';
import type { Searcher, SearchResult } from '../search/search.ts';
import { resultJson, sourceItem } from '../search/present.ts';
import { RagsyncError, EXIT, errorMessage } from '../core/errors.ts';
import { describeIoError } from '../core/io-errors.ts';
import { HttpError, readJsonBody } from './body.ts';
import { BadRequest, referencesParams, relatedParams, searchBody, searchParams, type Format } from './params.ts';
import { runTool, toolsOf } from '../search/tools.ts';
import { turnTaker } from './turns.ts';
import { servePage } from './page.ts';
import { requestGuard, type RequestGuard } from './guard.ts';
import { redactSecrets } from '../core/redact.ts';
import { isStorageError } from '../storage/errors.ts';

/** The env var holding the optional bearer token. */
export const TOKEN_ENV = 'RAGSYNC_HTTP_TOKEN';

export interface HealthReport {
  /** HTTP status to answer with (200 healthy, 503 not). */
  status: number;
  body: Record<string, unknown>;
}

export interface HttpOptions {
  /** Required as `Authorization: Bearer <token>` on every route but /healthz when set. */
  token?: string | null;
  /** Replaces the built-in /healthz (the run-history health check plugs in here). */
  health?: () => Promise<HealthReport>;
  log?: (line: string) => void;
  /** Connections served at once (default 512); more are closed on arrival. */
  maxConnections?: number;
  /** Answers POST /api/chat (answer/answer.ts); absent: the route says chat is not configured. */
  chat?: { serve(body: unknown, res: ServerResponse): Promise<void> };
  /** Names besides the loopback's the server answers to (`serve.allowedHosts`), "name" or "name:port". */
  allowedHosts?: readonly string[];
}

/** Bodies of POST /search: a long query and its fields fit many times over. */
const MAX_SEARCH_BODY_BYTES = 256 * 1024;
/** Bodies of POST /api/chat: a conversation at the configured message limits. */
const MAX_CHAT_BODY_BYTES = 4 * 2 ** 20;

/** The built-in health: ok, plus the last run's status and times. */
export async function basicHealth(searcher: Searcher): Promise<HealthReport> {
  const { runs } = await searcher.store.status({ runs: 1 });
  const last = runs[0];
  return {
    status: 200,
    body: {
      ok: true,
      lastRun: last ? { id: last.id, status: last.status, startedAt: last.startedAt, finishedAt: last.finishedAt } : null,
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

function authorized(req: IncomingMessage, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  if (!m) return false;
  const a = Buffer.from(m[1]!.trim());
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

const shape = (results: SearchResult[], format: Format): unknown[] =>
  format === 'sourceItem' ? results.map(sourceItem) : results.map(resultJson);

/**
 * The JSON API over one Searcher: GET (or POST with a JSON body) /search, GET /related, /status,
 * /healthz, and POST /api/chat when an answerer is given; the web page at / (and /status for a
 * browser). A Host that does not name the server → 421, a request from another site to the API
 * → 403 (guard.ts), a POST body not sent as JSON → 415. Invalid parameters → 400 with a message,
 * a body over its limit → 413; other failures → 500 with a generic message (details in the log).
 */
export function createHttpServer(searcher: Searcher, opts: HttpOptions = {}): Server {
  const given = opts.log ?? (() => {});
  const log = (line: string) => given(redactSecrets(line));
  const turn = turnTaker();
  // Built at the first request: the rules depend on the address and port actually bound.
  let guard: RequestGuard | null = null;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!guard) {
      const addr = server.address() as AddressInfo;
      guard = requestGuard({ boundAddress: addr.address, port: addr.port, allowedHosts: opts.allowedHosts });
    }
    guard.checkHost(req);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const post = POST_ROUTES.has(url.pathname);
    if (req.method === 'POST' ? !post : req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', post ? 'GET, POST' : 'GET');
      return send(res, 405, { error: `method ${req.method} not allowed` });
    }
    if (req.method !== 'POST' && servePage(url.pathname, req, res)) return;
    // The page may be opened from anywhere (a link); what reads the index or calls a model may not.
    guard.checkSameOrigin(req);
    if (url.pathname === '/healthz') {
      const h = await (opts.health ?? (() => basicHealth(searcher)))();
      return send(res, h.status, h.body);
    }
    if (opts.token && !authorized(req, opts.token)) {
      res.setHeader('www-authenticate', 'Bearer');
      return send(res, 401, { error: 'missing or wrong bearer token' });
    }
    if (req.method === 'POST' && url.pathname === '/api/chat') {
      if (!opts.chat) return send(res, 404, { error: 'chat is not configured: add a "chat" block to the config' });
      return opts.chat.serve(await readJsonBody(req, MAX_CHAT_BODY_BYTES), res);
    }
    switch (url.pathname) {
      case '/search': {
        const { request, format } =
          req.method === 'POST' ? searchBody(await readJsonBody(req, MAX_SEARCH_BODY_BYTES), searcher.filterSpecs()) : searchParams(url.searchParams, searcher.filterSpecs());
        await turn();
        const r = await searcher.run(request);
        if (r.rerankError) log(`rerank failed, fused order kept: ${r.rerankError}`);
        return send(res, 200, {
          results: shape(r.results, format),
          ...(r.reranked === null ? {} : { reranked: r.reranked }),
          ...(r.expansions ? { expansions: r.expansions } : {}),
          ...(r.stages ? { stages: r.stages } : {}),
        });
      }
      case '/related': {
        const { k, format, ...ref } = relatedParams(url.searchParams);
        await turn();
        return send(res, 200, { results: shape(await searcher.related(ref, { k }), format) });
      }
      case '/references': {
        const args = referencesParams(url.searchParams);
        // The code profile's tool, when a code source is configured: where a symbol is used.
        const code = toolsOf(searcher).find((t) => t.name === 'codeSearch');
        if (!code) return send(res, 404, { error: 'no code source is configured (references are of code symbols)' });
        await turn();
        return send(res, 200, { results: await runTool(searcher, code, args) });
      }
      case '/status': {
        const runs = url.searchParams.get('runs');
        if (runs !== null && !/^\d+$/.test(runs)) throw new BadRequest(`runs must be an integer from 1 to 100 (got "${runs}")`);
        const s = await searcher.store.status({ runs: runs === null ? 5 : Math.min(100, Math.max(1, Number(runs))) });
        return send(res, 200, { fingerprint: searcher.embedder.info.fingerprint, ...s });
      }
      default:
        return send(res, 404, { error: `no route ${url.pathname}` });
    }
  };
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (err instanceof HttpError && !res.headersSent) return send(res, err.status, { error: err.message });
      if (err instanceof RagsyncError && err.exitCode === EXIT.usage && !res.headersSent) return send(res, 400, { error: err.message });
      const down = unavailable(err);
      if (down) {
        log(`${req.method} ${req.url?.split('?')[0]}: 503: ${down.error}`);
        if (res.headersSent) return void res.destroy();
        res.setHeader('retry-after', '5');
        return send(res, 503, down);
      }
      log(`${req.method} ${req.url?.split('?')[0]}: ${describeIoError(err) ?? errorMessage(err)}`);
      if (!res.headersSent) send(res, 500, { error: 'internal error' });
      else res.destroy();
    });
  });
  // Bounded: slow or idle clients cannot hold sockets forever, and connections past the cap are
  // refused rather than queued without limit (an oversized request line gets 431, with its reason).
  server.maxConnections = opts.maxConnections ?? MAX_CONNECTIONS;
  server.headersTimeout = 15_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => refuseUnparsable(err, socket));
  return server;
}

/**
 * A request node:http cannot parse gets an answer that says why: a request line and headers over
 * the limit (a megabyte-long query) 431 with the limits in words, anything else 400, instead of a
 * bare status line. What the client still sends is read and discarded before the socket closes:
 * closing with unread input would reset the connection and lose the answer.
 */
function refuseUnparsable(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) return void socket.destroy();
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const error = tooLarge
    ? `request too large: the URL and headers may take at most ${MAX_HEADER_BYTES} bytes (a query at most ${MAX_QUERY_CHARS} characters); use POST /search with a JSON body for long queries`
    : `malformed HTTP request (${err.code ?? 'parse error'})`;
  const body = JSON.stringify({ error });
  socket.on('error', () => {});
  socket.resume();
  socket.end(
    `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
      `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  setTimeout(() => socket.destroy(), 5000).unref();
}

/**
 * The index's database cannot be reached (down, refusing, the credentials refused): 503 with the
 * cause — which server, the error code — never its password (the message names the URL as shown).
 * Nothing is kept broken: the next request connects again.
 */
function unavailable(err: unknown): { error: string; database: { host?: string; port?: number; code?: string; kind: string } } | null {
  if (!isStorageError(err, 'unreachable') && !isStorageError(err, 'auth')) return null;
  let where: { host?: string; port?: number } = {};
  try {
    const u = new URL(err.path ?? '');
    where = { host: u.hostname, port: Number(u.port || 5432) };
  } catch {
    // a file index: its path is in the message
  }
  const code = err.code ?? causeCode(err);
  return {
    error: redactSecrets(`index unavailable: ${err.message}${code && !err.message.includes(code) ? ` [${code}]` : ''}`),
    database: { ...where, ...(code ? { code } : {}), kind: err.kind },
  };
}

const causeCode = (err: Error): string | undefined => {
  const c = err.cause as { code?: unknown } | undefined;
  return typeof c?.code === 'string' ? c.code : undefined;
};

/** Routes that take a POST body. */
const POST_ROUTES = new Set(['/search', '/api/chat']);

/** Open connections served at once; more are closed on arrival. */
const MAX_CONNECTIONS = 512;
/** Request line + headers: a query is at most 1,000 characters, so 16 KiB is plenty. */
const MAX_HEADER_BYTES = 16 * 1024;

/** Listens (127.0.0.1 by default; port 0 = ephemeral) and resolves with the bound URL. */
export async function listen(server: Server, port: number, host = '127.0.0.1'): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return `http://${h}:${addr.port}`;
}
