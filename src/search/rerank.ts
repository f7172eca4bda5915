import { RemoteCall, type RemoteCallDeps } from '../core/remote/call.ts';
import { ProviderError } from '../core/remote/errors.ts';
import { RERANK_PRESETS, resolveCall, type ResolvedCall, type RerankWire } from '../config/model-presets.ts';
import type { RerankConfig } from '../config/schema.ts';

/** Scores for a few dozen candidates fit in kilobytes: a longer answer is a broken peer. */
const MAX_REPLY_BYTES = 4 * 2 ** 20;

/** Reorders documents by relevance to a query: one score per document index. */
export interface Reranker {
  readonly name: string;
  /** Candidates sent per query (the fused top N). */
  readonly topN: number;
  rerank(query: string, documents: string[], signal?: AbortSignal): Promise<{ index: number; score: number }[]>;
  close?(): Promise<void>;
}

/** Where a reranker is and how to call it: a `rerank` block resolved, or the old environment variables. */
export interface RerankSettings extends ResolvedCall {
  /** The endpoint's full URL. */
  url: string;
  wire: RerankWire;
  topN: number;
}

/**
 * Request and reply of each kind of rerank endpoint. Every reply is checked: an index outside the
 * documents or a score that is not a number rejects the whole answer (the searcher keeps the fused order).
 * - dashscope: {model, input: {query, documents}, parameters: {top_n}} → {output: {results: [{index, relevance_score}]}}
 * - jina (SiliconFlow, Jina, Cohere-style): {model, query, documents, top_n} → {results: [{index, relevance_score}]}
 * - tei (text-embeddings-inference): {query, texts} → [{index, score}]
 */
const WIRES: Record<RerankWire, { body(model: string, query: string, docs: string[]): unknown; results(json: unknown): unknown }> = {
  dashscope: {
    body: (model, query, documents) => ({ model, input: { query, documents }, parameters: { top_n: documents.length, return_documents: false } }),
    results: (j) => (j as { output?: { results?: unknown } })?.output?.results,
  },
  jina: {
    body: (model, query, documents) => ({ model, query, documents, top_n: documents.length, return_documents: false }),
    results: (j) => (j as { results?: unknown })?.results,
  },
  tei: {
    body: (_model, query, texts) => ({ query, texts, truncate: true }),
    results: (j) => j,
  },
};

/** A reranker behind an HTTP endpoint, called through the shared remote-call module (retries, deadline, caps, errors). */
export class RemoteReranker implements Reranker {
  readonly name: string;
  readonly topN: number;
  private readonly call: RemoteCall;

  constructor(
    readonly settings: RerankSettings,
    deps: RemoteCallDeps = {},
  ) {
    this.name = `${settings.provider}:${settings.model}`;
    this.topN = settings.topN;
    this.call = new RemoteCall({ ...settings, block: 'rerank', url: settings.url, maxReplyBytes: MAX_REPLY_BYTES }, deps);
  }

  async rerank(query: string, documents: string[], signal?: AbortSignal): Promise<{ index: number; score: number }[]> {
    if (!documents.length) return [];
    const wire = WIRES[this.settings.wire];
    const results = wire.results(await this.call.postJson(wire.body(this.settings.model, query, documents), signal));
    const label = this.call.label;
    if (!Array.isArray(results)) throw new ProviderError(`${label}: no list of results in the answer`, false);
    return results.map((r: { index?: unknown; relevance_score?: unknown; score?: unknown }) => {
      const score = r?.relevance_score ?? r?.score;
      if (!Number.isInteger(r?.index) || (r.index as number) < 0 || (r.index as number) >= documents.length || typeof score !== 'number') {
        throw new ProviderError(`${label}: malformed result ${JSON.stringify(r).slice(0, 200)}`, false);
      }
      return { index: r.index as number, score };
    });
  }

  close(): Promise<void> {
    return this.call.close();
  }
}

/** A `rerank` block with its preset filled in. */
export function rerankSettings(c: RerankConfig): RerankSettings {
  const preset = RERANK_PRESETS[c.provider];
  const call = resolveCall(c.provider, preset, c);
  return { ...call, url: call.baseUrl + preset.endpoint, wire: preset.wire, topN: c.topN };
}

export interface DashScopeRerankOptions {
  apiKey: string;
  /** Default: DashScope's native text-rerank endpoint. */
  url?: string;
  model?: string;
  topN?: number;
  /** Bounds the whole exchange, body included. */
  timeoutMs?: number;
}

export const DASHSCOPE_RERANK_URL = RERANK_PRESETS.dashscope.baseUrl + RERANK_PRESETS.dashscope.endpoint;

/** DashScope's text-rerank with a key in hand (the RAGSYNC_RERANK_* variables, library users). */
export class DashScopeReranker extends RemoteReranker {
  constructor(opts: DashScopeRerankOptions) {
    const timeoutMs = opts.timeoutMs ?? 5000;
    const url = opts.url ?? DASHSCOPE_RERANK_URL;
    super(
      { provider: 'dashscope', model: opts.model ?? 'gte-rerank-v2', baseUrl: url, url, wire: 'dashscope', apiKeyEnv: null, topN: opts.topN ?? 20, timeoutMs, deadlineMs: timeoutMs, maxRetries: 0 },
      { apiKey: () => opts.apiKey },
    );
  }
}

/** The older RAGSYNC_RERANK_* variables as settings (no key held), or null without DASHSCOPE_API_KEY. */
export function legacyRerankFromEnv(env: NodeJS.ProcessEnv = process.env): Omit<DashScopeRerankOptions, 'apiKey'> | null {
  if (!env.DASHSCOPE_API_KEY) return null;
  const positive = (v: string | undefined) => (v && Number.isInteger(Number(v)) && Number(v) > 0 ? Number(v) : undefined);
  return {
    url: env.RAGSYNC_RERANK_URL || undefined,
    model: env.RAGSYNC_RERANK_MODEL || 'gte-rerank-v2',
    topN: positive(env.RAGSYNC_RERANK_TOP_N) ?? 20,
    timeoutMs: positive(env.RAGSYNC_RERANK_TIMEOUT_MS),
  };
}

/** A reranker from the environment (DASHSCOPE_API_KEY; RAGSYNC_RERANK_URL / _MODEL / _TOP_N / _TIMEOUT_MS), or null. */
export function rerankerFromEnv(env: NodeJS.ProcessEnv = process.env): Reranker | null {
  const settings = legacyRerankFromEnv(env);
  return settings ? new DashScopeReranker({ ...settings, apiKey: env.DASHSCOPE_API_KEY! }) : null;
}
