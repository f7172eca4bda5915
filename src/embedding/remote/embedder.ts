import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { estimateTokens } from '../../core/text/tokens.ts';
import type { EmbedderInfo } from '../../core/types.ts';
import { sha256 } from '../../core/hash.ts';
import { silentLogger } from '../../core/log.ts';
import { RagsyncError, EXIT, errorMessage } from '../../core/errors.ts';
import { redactUrl } from '../../core/redact.ts';
import type { Embedder, EmbedStats } from '../types.ts';
import { LruCache } from '../../core/lru.ts';
import { HttpClient } from '../../core/remote/client.ts';
import { blockApiKey } from '../../core/remote/env.ts';
import { CircuitOpenError, ProviderError } from '../../core/remote/errors.ts';
import type { RemoteSettings } from '../../config/presets.ts';
import { RateLimiter } from './ratelimit.ts';
import { DEFAULT_BACKOFF, withRetries, type BackoffOptions, type RetryPolicy } from '../../core/remote/retry.ts';
import { truncateToTokens } from './truncate.ts';
import { parseVectors } from './validate.ts';
import { checkReply } from '../../core/remote/reply.ts';
import { WIRE_FORMATS, type WireFormat } from './wire.ts';

export interface RemoteDeps {
  log?: Logger;
  /** Rate-limit window; one minute unless a test or benchmark scales it down. */
  windowMs?: number;
  backoff?: Partial<BackoffOptions>;
  /** How retries wait; tests pass one that records the delay. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Query vectors kept in memory. */
  queryCacheSize?: number;
  /** How long an open circuit refuses calls before trying again (long-lived searchers). */
  breakerCooldownMs?: number;
  /** Where the key comes from (default: the environment / .env). */
  apiKey?: () => string | null;
}

/** "siliconflow:BAAI/bge-m3:1024", plus a hash of the input prefixes when there are any. Never the key. */
export function remoteFingerprint(s: RemoteSettings): string {
  const base = `${s.provider}:${s.model}:${s.dimensions ?? '?'}`;
  return s.inputPrefix || s.queryPrefix ? `${base}:p${sha256(`${s.inputPrefix}\0${s.queryPrefix}`).slice(0, 8)}` : base;
}

const infoOf = (s: RemoteSettings): EmbedderInfo => ({ fingerprint: remoteFingerprint(s), provider: s.provider, model: s.model, dims: s.dimensions ?? 0 });

/** A text ready to send, with its estimated tokens (counted once: the estimate is not free). */
type Prepared = { text: string; tokens: number };

const sleepFor = (ms: number, signal?: AbortSignal) => delay(ms, undefined, { signal });

/**
 * An embedder behind an HTTP embeddings endpoint (OpenAI-style /embeddings, Ollama, TEI: wire.ts):
 * rate-limited, retried with backoff, every reply validated before anything is returned, a circuit
 * breaker against a provider that is down, and an LRU cache for queries. Constructed without
 * `dimensions` (detect.ts only), it accepts any size the vectors of a reply share.
 */
export class RemoteEmbedder implements Embedder {
  private _info: EmbedderInfo;
  private _settings: RemoteSettings;
  readonly batchSize: number;
  readonly normalized: boolean;
  /** Batches the sync may have in flight at once. */
  readonly concurrency: number;
  readonly endpoint: string;
  readonly stats: EmbedStats = { requests: 0, tokens: 0, retries: 0 };
  readonly limiter: RateLimiter;
  readonly queryCache: LruCache<Float32Array>;
  private readonly client: HttpClient;
  private readonly wire: WireFormat;
  private readonly log: Logger;
  private readonly label: string;
  private readonly backoff: BackoffOptions;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private apiKey: string | null | undefined;
  private failuresInRow = 0;
  private openUntil = 0;
  private lastFailure = '';

  constructor(
    settings: RemoteSettings,
    private readonly deps: RemoteDeps = {},
  ) {
    const s = settings;
    this._settings = s;
    this._info = infoOf(s);
    this.batchSize = s.batchSize;
    this.normalized = s.normalized;
    this.concurrency = s.concurrency;
    this.endpoint = redactUrl(s.baseUrl);
    this.label = `${s.provider} ${s.model}`;
    this.log = deps.log ?? silentLogger;
    this.backoff = { ...DEFAULT_BACKOFF, ...deps.backoff };
    this.sleep = deps.sleep ?? sleepFor;
    this.queryCache = new LruCache(deps.queryCacheSize ?? 256);
    this.limiter = new RateLimiter({
      rpm: s.rpm,
      tpm: s.tpm,
      concurrency: s.concurrency,
      windowMs: deps.windowMs,
      log: this.log,
      label: this.info.fingerprint,
    });
    this.wire = WIRE_FORMATS[s.wire];
    this.client = new HttpClient(
      s.baseUrl,
      {
        timeoutMs: s.timeoutMs,
        connections: s.concurrency,
        deadlineMs: s.deadlineMs,
        // A full batch written out as JSON takes far less than 32 bytes a value (size unknown: assume 4096).
        maxReplyBytes: Math.max(8 * 2 ** 20, s.batchSize * (s.dimensions || 4096) * 32),
        setting: 'embedder.deadlineMs',
      },
      this.wire.endpoint,
    );
  }

  get info(): EmbedderInfo {
    return this._info;
  }

  get settings(): RemoteSettings {
    return this._settings;
  }

  /**
   * A local server runs whatever model was pulled into it, so the size of its vectors may be known
   * neither to the config nor to the preset. The size is part of the fingerprint every vector is
   * stored under, so it must be known before a run or search: this asks the server once (one short
   * text, at most two retries: no retry storm against a server that is not up), says so in the log,
   * and from then on this embedder is that size. Nothing is asked when the size is known.
   */
  async learnDimensions(): Promise<number> {
    const s = this._settings;
    if (s.dimensions !== null) return s.dimensions;
    let dims: number;
    try {
      dims = (await this.request([this.prepare('dimensions', s.inputPrefix)], undefined, Math.min(s.maxRetries, 2)))[0]!.length;
    } catch (err) {
      throw new RagsyncError(
        `embedder.dims: not set for ${s.provider} model "${s.model}", and asking ${s.baseUrl} failed ` +
          `(${errorMessage(err)}): start the server, or set "dims" in config`,
        EXIT.usage,
      );
    }
    this.log.info(
      { embedder: `${s.provider}:${s.model}`, dimensions: dims },
      `embedder.dims not set: ${s.provider} model "${s.model}" returned ${dims}-dimensional vectors, using ${dims} ` +
        `(put "dims": ${dims} in config to skip this request)`,
    );
    this._settings = { ...s, dimensions: dims };
    this._info = infoOf(this._settings);
    return dims;
  }

  async embed(texts: string[], opts: { signal?: AbortSignal; purpose?: 'document' | 'query' } = {}): Promise<Float32Array[]> {
    if (!texts.length) return [];
    if (opts.purpose === 'query') return this.embedQueries(texts, opts.signal);
    return this.request(texts.map((t) => this.prepare(t, this.settings.inputPrefix)), opts.signal);
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private async embedQueries(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: (Float32Array | undefined)[] = texts.map((t) => this.queryCache.get(t));
    const missing = [...new Set(texts.filter((_, i) => !out[i]))];
    for (let i = 0; i < missing.length; i += this.batchSize) {
      const part = missing.slice(i, i + this.batchSize);
      const vectors = await this.request(part.map((t) => this.prepare(t, this.settings.queryPrefix)), signal);
      part.forEach((t, k) => this.queryCache.set(t, vectors[k]!));
    }
    return texts.map((t, i) => out[i] ?? this.queryCache.get(t)!);
  }

  /** Prefix, then truncate to the model's limit; logs which text (by hash prefix), never the text. */
  private prepare(text: string, prefix: string): Prepared {
    const r = truncateToTokens(prefix + text, this.settings.maxInputTokens);
    if (r.truncated) {
      this.log.warn(
        { textHash: sha256(text).slice(0, 12), tokens: estimateTokens(prefix + text), maxInputTokens: this.settings.maxInputTokens },
        'input over the model limit: truncated',
      );
    }
    return r;
  }

  /** A run checks this before it starts: a missing key is a configuration error, not a failed batch. */
  ready(): void {
    this.key();
  }

  private key(): string | null {
    if (this.apiKey === undefined) this.apiKey = blockApiKey('embedder', this.settings.apiKeyEnv, this.deps.apiKey);
    return this.apiKey;
  }

  /** One batch: limiter → POST → validate, retried (core/remote); throws rather than return anything partial. */
  private async request(prepared: Prepared[], signal?: AbortSignal, maxRetries?: number): Promise<Float32Array[]> {
    const key = this.key();
    const s = this.settings;
    const inputs = prepared.map((p) => p.text);
    const body = this.wire.body(s.model, inputs, s.sendDimensions ? s.dimensions : null);
    const tokens = prepared.reduce((n, p) => n + p.tokens, 0);
    const policy: RetryPolicy = {
      maxRetries: maxRetries ?? s.maxRetries,
      label: this.label,
      backoff: this.backoff,
      sleep: this.sleep,
      before: () => this.checkCircuit(),
      onFailure: (f) => this.recordFailure(f),
      onRetry: (f, attempt, wait) => {
        // A 429 slows every request, not just this one.
        if (f.status === 429) this.limiter.hold(Date.now() + wait);
        this.stats.retries++;
        this.log.warn({ embedder: this.info.fingerprint, status: f.status, attempt: attempt + 1, retryInMs: wait }, f.message);
      },
    };
    return withRetries(policy, signal, async () => {
      const release = await this.limiter.acquire(tokens, signal);
      try {
        this.stats.requests++;
        this.stats.tokens += tokens;
        const reply = await this.client.post(body, key, signal);
        checkReply(reply, this.label, key);
        const vectors = parseVectors(reply.body, inputs.length, s.dimensions, this.label, this.wire);
        this.failuresInRow = 0;
        return vectors;
      } finally {
        release();
      }
    });
  }

  private recordFailure(f: ProviderError): void {
    this.failuresInRow++;
    this.lastFailure = f.message;
    if (this.failuresInRow >= this.settings.breakerThreshold) {
      this.openUntil = Date.now() + (this.deps.breakerCooldownMs ?? 60_000);
      this.failuresInRow = 0;
      throw this.circuitError();
    }
  }

  private checkCircuit(): void {
    if (Date.now() < this.openUntil) throw this.circuitError();
  }

  private circuitError(): CircuitOpenError {
    return new CircuitOpenError(
      `${this.label}: ${this.settings.breakerThreshold} failed requests in a row, giving up (last: ${this.lastFailure}); ` +
        'vectors already stored are kept and the next run resumes from there',
    );
  }
}
