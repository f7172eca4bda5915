import { redactUrl } from '../core/redact.ts';

/** Reorders documents by relevance to a query: one score per document index. */
export interface Reranker {
  readonly name: string;
  /** Candidates sent per query (the fused top N). */
  readonly topN: number;
  rerank(query: string, documents: string[], signal?: AbortSignal): Promise<{ index: number; score: number }[]>;
}

export interface DashScopeRerankOptions {
  apiKey: string;
  /** Default: DashScope's native text-rerank endpoint. */
  url?: string;
  model?: string;
  topN?: number;
  timeoutMs?: number;
}

export const DASHSCOPE_RERANK_URL = 'https://dashscope.aliyuncs.com/api/v1/services/rerank/text-rerank/text-rerank';

/**
 * A DashScope-style rerank client: POST {model, input: {query, documents}, parameters: {top_n}} →
 * {output: {results: [{index, relevance_score}]}}. Throws on HTTP errors, malformed answers and
 * timeouts; the searcher then keeps the fused order. The key never appears in errors.
 */
export class DashScopeReranker implements Reranker {
  readonly name: string;
  readonly topN: number;
  private readonly url: string;
  private readonly model: string;
  private readonly timeoutMs: number;

  constructor(private readonly opts: DashScopeRerankOptions) {
    this.url = opts.url ?? DASHSCOPE_RERANK_URL;
    this.model = opts.model ?? 'gte-rerank-v2';
    this.topN = opts.topN ?? 20;
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.name = `dashscope:${this.model}`;
  }

  async rerank(query: string, documents: string[], signal?: AbortSignal): Promise<{ index: number; score: number }[]> {
    if (!documents.length) return [];
    const timeout = AbortSignal.timeout(this.timeoutMs);
    // Loaded here, not at start-up: undici costs ~150 ms to import and most searches never rerank.
    const { request } = await import('undici');
    let res: Awaited<ReturnType<typeof request>>;
    let body: string;
    // The timeout bounds the whole exchange, body included: a server trickling bytes is cut too.
    try {
      res = await request(this.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.opts.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: this.model,
          input: { query, documents },
          parameters: { top_n: documents.length, return_documents: false },
        }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      body = await res.body.text();
    } catch (err) {
      if (timeout.aborted && !signal?.aborted) throw new Error(`rerank ${redactUrl(this.url)}: no complete answer within ${this.timeoutMs} ms`);
      throw err;
    }
    if (res.statusCode !== 200) {
      throw new Error(`rerank ${redactUrl(this.url)}: HTTP ${res.statusCode}`);
    }
    let parsed: { output?: { results?: { index?: unknown; relevance_score?: unknown }[] } };
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new Error(`rerank ${redactUrl(this.url)}: answer is not JSON`);
    }
    const results = parsed.output?.results;
    if (!Array.isArray(results)) throw new Error(`rerank ${redactUrl(this.url)}: no output.results`);
    return results.map((r) => {
      if (!Number.isInteger(r.index) || (r.index as number) < 0 || (r.index as number) >= documents.length || typeof r.relevance_score !== 'number') {
        throw new Error(`rerank ${redactUrl(this.url)}: malformed result ${JSON.stringify(r)}`);
      }
      return { index: r.index as number, score: r.relevance_score };
    });
  }
}

/** A reranker from the environment (DASHSCOPE_API_KEY; RAGSYNC_RERANK_URL / _MODEL / _TOP_N), or null. */
export function rerankerFromEnv(env: NodeJS.ProcessEnv = process.env): Reranker | null {
  const apiKey = env.DASHSCOPE_API_KEY;
  if (!apiKey) return null;
  const topN = env.RAGSYNC_RERANK_TOP_N ? Number(env.RAGSYNC_RERANK_TOP_N) : undefined;
  return new DashScopeReranker({
    apiKey,
    url: env.RAGSYNC_RERANK_URL || undefined,
    model: env.RAGSYNC_RERANK_MODEL || undefined,
    topN: topN && Number.isInteger(topN) && topN > 0 ? topN : undefined,
  });
}
