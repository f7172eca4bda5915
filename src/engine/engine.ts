import type { Config } from '../config/load.ts';
import type { Logger } from '../core/log.ts';
import { silentLogger } from '../core/log.ts';
import { openEmbedder } from '../embedding/create.ts';
import { CustomEmbedder, isEmbedderInput, type EmbedderInput } from '../embedding/custom.ts';
import type { Embedder } from '../embedding/types.ts';
import type { RemoteDeps } from '../embedding/remote/embedder.ts';
import { indexExists, openIndex, type IndexLocation, type IndexOpener } from '../storage/open.ts';
export type { IndexOpener };
import type { AdminStore, SearchStore, SyncStore } from '../storage/roles.ts';
import type { Progress } from '../sync/apply.ts';
import type { IndexOptions, IndexResult } from '../sync/run-result.ts';
import type { Reranker } from '../search/rerank.ts';
import type { Searcher } from '../search/search.ts';
import type { Answerer } from '../answer/answer.ts';

/**
 * The one composition root: a config turned into the live objects every surface works with — the
 * embedder (its vector size asked of the server once, when nobody knows it), the reranker, the
 * searcher, the answerer and the stores — each built once, and only when a surface first asks
 * (a no-op `index` builds no searcher, reranker or chat model, nor loads their code).
 */

/**
 * How long the process lives: a one-shot CLI command answers a query or two and exits (it streams
 * vectors rather than load them: SearcherOptions.oneShot); `serve`, `mcp`, the daemon, agent tools
 * and a library user keep one searcher for many queries.
 */
export type Lifetime = 'one-shot' | 'long-lived';

export interface EngineOptions {
  lifetime?: Lifetime;
  log?: Logger;
  /**
   * Instead of the configured embedder: an Embedder of the caller's (the caller closes it), or a
   * plain function or AI SDK embedding model (embedding/custom.ts: fingerprinted provider:model:size).
   */
  embedder?: Embedder | EmbedderInput;
  /** The caller's reranker, or null for none (`search --no-rerank`); default: the configured one. */
  reranker?: Reranker | null;
  /** Knobs for a remote embedder (tests, benchmarks: backoff, rate-limit window). */
  remote?: Omit<RemoteDeps, 'log'>;
}

/** An index's stores, opened at any location: what `copy` (two indexes) and the source tools (a config that changes) need. */
export const indexes: IndexOpener = { open: openIndex, exists: indexExists };

/** The engine over a config. Nothing is built (nor any code loaded) until a surface asks for it. */
export function openEngine(config: Config, opts: EngineOptions = {}): Engine {
  return new Engine(config, opts);
}

export class Engine {
  readonly lifetime: Lifetime;
  readonly log: Logger;
  private embedderP: Promise<Embedder> | null = null;
  private ownEmbedder = false;
  private rerankerP: Promise<Reranker | null> | null = null;
  private searcherP: Promise<Searcher> | null = null;
  private answererP: Promise<Answerer | null> | null = null;
  private closed = false;

  constructor(
    readonly config: Config,
    private readonly opts: EngineOptions = {},
  ) {
    this.lifetime = opts.lifetime ?? 'long-lived';
    this.log = opts.log ?? silentLogger;
  }

  /**
   * The embedder, built on first use and then the same one for every run and query. When neither
   * config nor preset knows its vector size (another model on a local server), its server is asked
   * once, here, and the answer logged.
   */
  embedder(): Promise<Embedder> {
    const given = this.opts.embedder;
    if (given && !isEmbedderInput(given)) return Promise.resolve(given);
    if (given) {
      return (this.embedderP ??= (async () => {
        const e = new CustomEmbedder(given);
        await e.learnDimensions();
        return e;
      })());
    }
    return (this.embedderP ??= openEmbedder(this.config.embedder, { ...this.opts.remote, log: this.log }).then((e) => {
      this.ownEmbedder = true;
      return e;
    }));
  }

  /** The fingerprint vectors of the configured embedder are stored under. */
  async fingerprint(): Promise<string> {
    return (await this.embedder()).info.fingerprint;
  }

  /** The configured reranker (the rerank block, or the RAGSYNC_RERANK_* variables), or none. */
  reranker(): Promise<Reranker | null> {
    return (this.rerankerP ??= this.opts.reranker !== undefined ? Promise.resolve(this.opts.reranker) : import('../search/create-reranker.ts').then((m) => m.createReranker(this.config)));
  }

  /** The searcher every surface of this process queries: this engine's embedder and reranker, its lifetime's strategy. */
  searcher(): Promise<Searcher> {
    return (this.searcherP ??= (async () => {
      const [{ Searcher }, reranker, embedder] = await Promise.all([import('../search/search.ts'), this.reranker(), this.embedder()]);
      const oneShot = this.lifetime === 'one-shot';
      return new Searcher(this.openStore('search', { oneShot }), embedder, this.config, reranker, { oneShot });
    })());
  }

  /**
   * The answerer over this engine's searcher when the config has a `chat` block, else null. Its code
   * (the AI SDK) loads only here. A chat block whose key variable is unset is refused now, not on
   * the first question.
   */
  answerer(log: (line: string) => void = () => {}): Promise<Answerer | null> {
    return (this.answererP ??= (async () => {
      const chat = this.config.chat;
      if (!chat) return null;
      const [{ Answerer }, searcher] = await Promise.all([import('../answer/answer.ts'), this.searcher()]);
      const a = new Answerer(searcher, chat, { log });
      a.call.apiKey();
      return a;
    })());
  }

  /** A store on the configured index in one role; the caller closes it. */
  openStore(role: 'sync', opts?: { dryRun?: boolean }): SyncStore;
  openStore(role: 'search', opts?: { oneShot?: boolean }): SearchStore;
  openStore(role: 'admin', opts?: { readOnly?: boolean }): AdminStore;
  openStore(role: 'sync' | 'search' | 'admin', opts: { dryRun?: boolean; oneShot?: boolean; readOnly?: boolean } = {}): SyncStore | SearchStore | AdminStore {
    return openIndex(this.config, role as 'admin', opts);
  }

  /** Whether the configured index is there to read. */
  indexExists(): Promise<boolean> {
    return indexExists(this.config);
  }

  /** One index run with this engine's embedder (`opts.store`: the caller's store, else one opened for the run). */
  async *indexRun(opts: IndexOptions = {}): AsyncGenerator<Progress, IndexResult> {
    const { syncRun } = await import('../sync/run.ts');
    const embedder = opts.embedder ?? (await this.embedder());
    const store = opts.store ?? this.openStore('sync', { dryRun: !!opts.dryRun });
    try {
      return yield* syncRun(this.config, { log: this.log, ...opts }, { embedder, store });
    } finally {
      if (!opts.store) await store.close();
    }
  }

  /** indexRun to the end, each progress event handed to `onProgress`. */
  async index(opts: IndexOptions = {}, onProgress?: (p: Progress) => void): Promise<IndexResult> {
    const { toEnd } = await import('../sync/run.ts');
    return toEnd(this.indexRun(opts), onProgress);
  }

  /** Closes what this engine built (a caller's embedder or reranker stays open). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const answerer = await this.answererP?.catch(() => null);
    await answerer?.close();
    const searcher = await this.searcherP?.catch(() => null);
    await searcher?.store.close();
    if (this.ownEmbedder) await (await this.embedderP)?.close?.();
    if (this.opts.reranker === undefined) await (await this.rerankerP?.catch(() => null))?.close?.();
  }
}

/** The location of a config's index, for code that must name one (status pages, errors). */
export type { IndexLocation };
