import { PassThrough, type Readable, type Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { packageVersion } from '../core/package-root.ts';

/**
 * The first moments of `ragsync mcp`: a client spawns the server and waits for its answer to
 * `initialize` before anything else. That answer depends on nothing ragsync loads (no config, no
 * index, not even the MCP SDK), so it is written at once, and the rest — the SDK, the config, the
 * index — loads when the first message that needs it arrives (usually `tools/list`). The SDK server
 * then sees every message from the start, `initialize` included (it records the client's
 * capabilities), and its own answer to that one is not sent twice.
 *
 * What the SDK would answer is kept equal to what is written here by tests/e2e/mcp.test.ts.
 */
/** The server's name and version (ragsync's package version). */
export function serverInfo(): { name: string; version: string } {
  return { name: 'ragsync', version: packageVersion(import.meta.url) };
}
/** What McpServer announces for a server with tools. */
export const CAPABILITIES = { tools: { listChanged: true } };
/** The SDK's SUPPORTED_PROTOCOL_VERSIONS, newest first: a client asking for another gets the newest. */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

export function initializeResult(requested: string): { protocolVersion: string; capabilities: typeof CAPABILITIES; serverInfo: { name: string; version: string } } {
  return {
    protocolVersion: PROTOCOL_VERSIONS.includes(requested) ? requested : PROTOCOL_VERSIONS[0]!,
    capabilities: CAPABILITIES,
    serverInfo: serverInfo(),
  };
}

type Id = string | number;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A well-formed initialize request (anything doubtful is left to the SDK to answer). */
function initializeId(msg: unknown): Id | undefined {
  if (!isObject(msg) || msg.jsonrpc !== '2.0' || msg.method !== 'initialize') return undefined;
  if (typeof msg.id !== 'string' && !(typeof msg.id === 'number' && Number.isInteger(msg.id))) return undefined;
  const p = msg.params;
  if (!isObject(p) || typeof p.protocolVersion !== 'string' || !isObject(p.capabilities)) return undefined;
  if (!isObject(p.clientInfo) || typeof p.clientInfo.name !== 'string' || typeof p.clientInfo.version !== 'string') return undefined;
  return msg.id;
}

const isNotification = (msg: unknown) => isObject(msg) && msg.jsonrpc === '2.0' && typeof msg.method === 'string' && !('id' in msg);

/** What the full server is handed: every byte read so far and what follows, and the id already answered. */
export interface FrontHandoff {
  stdin: Readable;
  answered?: Id;
}

/**
 * Answers a first `initialize` itself, then hands stdin (replayed from its first byte) to `serve`
 * on the first message that needs more. Input that ends with nothing but that request and
 * notifications never loads the server.
 */
export function serveWithEarlyInitialize(
  serve: (io: FrontHandoff) => Promise<void>,
  stdin: Readable = process.stdin,
  stdout: Writable = process.stdout,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const decoder = new StringDecoder('utf8');
    let pending = '';
    let first = true;
    let answered: Id | undefined;
    let started = false;
    let ended = false;
    const start = () => {
      if (started) return;
      started = true;
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      const feed = new PassThrough();
      for (const c of chunks) feed.write(c);
      if (ended) feed.end();
      else stdin.pipe(feed);
      // Done or failed (a bad config): stop reading, or an open stdin would keep the process alive.
      const release = () => {
        stdin.unpipe(feed);
        stdin.pause();
      };
      serve({ stdin: feed, answered }).then(
        () => (release(), resolve()),
        (err: unknown) => (release(), reject(err)),
      );
    };
    const onData = (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      chunks.push(buf);
      pending += decoder.write(buf);
      for (let nl = pending.indexOf('\n'); nl >= 0 && !started; nl = pending.indexOf('\n')) {
        const line = pending.slice(0, nl).replace(/\r$/, '');
        pending = pending.slice(nl + 1);
        let msg: unknown;
        try {
          msg = JSON.parse(line);
        } catch {
          msg = undefined;
        }
        const id = first ? initializeId(msg) : undefined;
        first = false;
        if (id !== undefined) {
          answered = id;
          stdout.write(`${JSON.stringify({ result: initializeResult((msg as { params: { protocolVersion: string } }).params.protocolVersion), jsonrpc: '2.0', id })}\n`);
        } else if (!isNotification(msg)) start();
      }
    };
    const onEnd = () => {
      ended = true;
      // Something unanswered (a request, a partial or malformed line): the server answers it.
      if (pending.trim() || first) start();
      else resolve();
    };
    stdin.on('data', onData);
    stdin.on('end', onEnd);
  });
}
