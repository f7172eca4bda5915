import type { Pool } from 'undici';
import { withDeadline } from './deadline.ts';
import { readCapped } from '../read-capped.ts';

export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Replies of a full batch are megabytes at most; this bounds a client built without a size to go by. */
const DEFAULT_MAX_REPLY_BYTES = 256 * 2 ** 20;

/**
 * POST {baseUrl}{endpoint} over one keep-alive undici pool: the embedder's /embeddings (or
 * /api/embed, /embed), the reranker's endpoint. It only moves bytes: status codes, retries and
 * validation are the caller's business (call.ts, the embedder). A
 * response whose headers or body stall longer than `timeoutMs` fails with undici's
 * HeadersTimeout/BodyTimeout error; one that is not complete within `deadlineMs` (however
 * steadily it trickles) fails with a DeadlineError; one longer than `maxReplyBytes` (a peer that
 * streams without end, too fast for either timeout) with ReplyTooLarge.
 */
export class HttpClient {
  private pool: Pool | null = null;
  private readonly origin: string;
  private readonly path: string;

  constructor(
    baseUrl: string,
    private readonly opts: { timeoutMs: number; connections: number; deadlineMs: number; maxReplyBytes?: number; /** Named when the deadline passes. */ setting?: string },
    endpoint = '',
  ) {
    const u = new URL(baseUrl);
    this.origin = u.origin;
    this.path = u.pathname.replace(/\/+$/, '') + endpoint || '/';
  }

  async post(body: unknown, apiKey: string | null, signal?: AbortSignal): Promise<HttpReply> {
    // Created on first use, so a command that never embeds (status, an index run with nothing new)
    // opens nothing and does not even load undici (~150 ms of start-up).
    this.pool ??= new (await import('undici')).Pool(this.origin, {
      connections: this.opts.connections,
      keepAliveTimeout: 30_000,
      headersTimeout: this.opts.timeoutMs,
      bodyTimeout: this.opts.timeoutMs,
      connect: { timeout: Math.min(this.opts.timeoutMs, 30_000) },
    });
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    const pool = this.pool;
    return withDeadline(this.opts.deadlineMs, this.opts.setting ?? 'deadlineMs', signal, async (whole) => {
      const res = await pool.request({ path: this.path, method: 'POST', headers, body: JSON.stringify(body), signal: whole });
      return { status: res.statusCode, headers: res.headers, body: await readCapped(res.body, this.opts.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES) };
    });
  }

  async close(): Promise<void> {
    const p = this.pool;
    this.pool = null;
    await p?.close();
  }
}
