import { resolve } from 'node:path';
import { builtinProfiles, loadConfig } from '../builtin.ts';
import type { Config, SourceConfig } from '../config/load.ts';
import { silentLogger, type Logger } from '../core/log.ts';
import type { EmbedderInput } from '../embedding/custom.ts';
import { indexes, openEngine, type Engine } from '../engine/engine.ts';
import type { SearchOptions } from '../search/request.ts';
import type { SearchResult } from '../search/search.ts';
import { runTool } from '../search/tools.ts';
import { codeSearchTool, type CodeReference } from '../profiles/code/tool.ts';
import { addSource, dropFromIndex, listSources, removeSource, type RemoveResult, type SourceListing } from '../sync/manage-sources.ts';
import type { IndexOptions, IndexResult } from '../sync/run-result.ts';
import { CodeIndexer } from './code-indexer.ts';
import { DocIndexer } from './doc-indexer.ts';
import { isCodeSource, type AddDocSourceOptions, type KindStats, type KnowledgeCore } from './core.ts';

export type { AddDocSourceOptions, KindStats };

/**
 * The library as an agent framework's knowledge manager: code and documentation sources of one
 * ragsync config file, indexed, crawled, searched and watched through the same engine, source
 * management and index as the CLI (one index: `ragsync search` sees what this indexed).
 */

export interface KnowledgeManagerOptions {
  /** The ragsync config file (JSON or JSONC). Its sources are the knowledge; doc sources added or removed are written to it. */
  configFile: string;
  /** Instead of the configured embedder: a function (texts → vectors) or an AI SDK embedding model. */
  embedder?: EmbedderInput;
  /** Logs of runs and watches (default: none). */
  log?: Logger;
}

export interface KnowledgeStats {
  /** The fingerprint the vectors in use are stored under (provider:model:dimensions). */
  embedder: string;
  code: KindStats;
  docs: KindStats;
  sources: SourceListing[];
}

export class KnowledgeManager implements KnowledgeCore {
  readonly code: CodeIndexer;
  readonly docs: DocIndexer;
  readonly configFile: string;
  private embedderInput: EmbedderInput | undefined;
  private engineNow: Engine | null = null;
  private runs: Promise<unknown> = Promise.resolve();
  readonly log: Logger;

  constructor(opts: KnowledgeManagerOptions) {
    this.configFile = resolve(opts.configFile);
    this.embedderInput = opts.embedder;
    this.log = opts.log ?? silentLogger;
    this.code = new CodeIndexer(this);
    this.docs = new DocIndexer(this);
  }

  /** Reads the config (a bad one is a one-line error naming file and field) and opens the engine. */
  async initialize(): Promise<void> {
    this.engine();
  }

  /** Stops watching and closes the index and the models' connections. */
  async close(): Promise<void> {
    this.code.stopWatching();
    await this.runs.catch(() => {});
    await this.engineNow?.close();
    this.engineNow = null;
  }

  /** The engine over the config file as it is now. */
  engine(): Engine {
    return (this.engineNow ??= openEngine(loadConfig(this.configFile), { lifetime: 'long-lived', log: this.log, embedder: this.embedderInput }));
  }

  get config(): Config {
    return this.engine().config;
  }

  /** After the config file or the embedder changed: the next call opens an engine over the new state. */
  async reload(): Promise<void> {
    await this.runs.catch(() => {});
    const old = this.engineNow;
    this.engineNow = null;
    await old?.close();
  }

  /** One index run at a time from this manager (another process's run is waited on by the index lock, exit 75 as `locked`). */
  index(opts: IndexOptions): Promise<IndexResult> {
    const run = this.runs.catch(() => {}).then(() => this.engine().index(opts));
    this.runs = run;
    return run;
  }

  sourcesOf(kind: 'code' | 'docs'): SourceConfig[] {
    return this.config.sources.filter((s) => isCodeSource(s) === (kind === 'code'));
  }

  /** Hybrid search over every source (or `opts.sources`). */
  async search(query: string, opts: SearchOptions = {}): Promise<SearchResult[]> {
    return (await this.engine().searcher()).search(query, opts);
  }

  /** Search over the code sources only. */
  searchCode(query: string, opts: SearchOptions = {}): Promise<SearchResult[]> {
    return this.searchKind('code', query, opts);
  }

  /**
   * The code chunks that use a symbol (`createStore`, or `Store.create`), not its definition: path,
   * line range and the lines naming it, in path order (codeSearch's `references`). Read from the
   * index as it is, so current after every run.
   */
  async referencesOf(symbol: string, opts: { k?: number; languages?: string[]; filePatterns?: string[] } = {}): Promise<CodeReference[]> {
    return (await runTool(await this.engine().searcher(), codeSearchTool, { ...opts, references: symbol })) as CodeReference[];
  }

  /** Search over the documentation sources only. */
  searchDocs(query: string, opts: SearchOptions = {}): Promise<SearchResult[]> {
    return this.searchKind('docs', query, opts);
  }

  private async searchKind(kind: 'code' | 'docs', query: string, opts: SearchOptions): Promise<SearchResult[]> {
    const own = this.sourcesOf(kind).map((s) => s.name);
    const sources = opts.sources?.length ? opts.sources.filter((s) => own.includes(s)) : own;
    if (!sources.length) return [];
    return this.search(query, { ...opts, sources });
  }

  /** Syncs every code source (`force`: re-chunk and re-embed everything). Null when there is none. */
  async indexCode(opts: { force?: boolean } = {}): Promise<IndexResult | null> {
    const sources = this.sourcesOf('code').map((s) => s.name);
    return sources.length ? this.index({ sources, force: opts.force }) : null;
  }

  /** Crawls every documentation source (`force`: fetch and embed everything again). Null when there is none. */
  async crawlDocs(opts: { force?: boolean } = {}): Promise<IndexResult | null> {
    const sources = this.sourcesOf('docs').map((s) => s.name);
    return sources.length ? this.index({ sources, force: opts.force }) : null;
  }

  /** Adds a website as a doc source to the config file (as `ragsync source add`), crawled now when asked. */
  async addDocSource(url: string, opts: AddDocSourceOptions = {}): Promise<{ source: SourceListing; result: IndexResult | null }> {
    const r = await addSource(builtinProfiles, this.configFile, { location: url, kind: 'web', name: opts.name, include: opts.include, exclude: opts.exclude }, { indexes });
    await this.reload();
    const name = r.source.name;
    const result = opts.crawl ? await this.index({ sources: [name] }) : null;
    return { source: (await this.docs.getSource(name))!, result };
  }

  /** Removes a doc source: its pages, chunks and unused vectors from the index, its entry from the config file. */
  async removeDocSource(name: string): Promise<RemoveResult> {
    const s = this.config.sources.find((x) => x.name === name);
    if (s && isCodeSource(s)) throw new Error(`"${name}" is a code source, not documentation`);
    const r = await removeSource(builtinProfiles, this.configFile, name, { indexes, log: this.log });
    await this.reload();
    return r;
  }

  /** Every source with what the index holds of it, and the totals per kind. */
  async getStats(): Promise<KnowledgeStats> {
    const sources = await listSources(this.config, indexes);
    const kinds = new Map(this.config.sources.map((s) => [s.name, isCodeSource(s) ? 'code' : 'docs']));
    const total = (kind: string): KindStats => {
      const of = sources.filter((s) => (kinds.get(s.name) ?? 'docs') === kind);
      return { sources: of.length, documents: of.reduce((n, s) => n + s.documents, 0), chunks: of.reduce((n, s) => n + s.chunks, 0) };
    };
    return { embedder: await this.engine().fingerprint(), code: total('code'), docs: total('docs'), sources };
  }

  /**
   * Empties the index of what ragsync wrote for every source — documents, chunks, their unused
   * vectors, the sources' rows — under the index lock. The config file, your folders and any other
   * table in the database are left as they are; the next run indexes everything again.
   */
  async clear(): Promise<{ documents: number; chunks: number; vectors: number }> {
    await this.runs.catch(() => {});
    const out = { documents: 0, chunks: 0, vectors: 0 };
    for (const s of await listSources(this.config, indexes)) {
      if (!s.indexed && !s.documents) continue;
      const r = await dropFromIndex(this.config, s.name, 'source', { indexes, log: this.log });
      out.documents += r.documents;
      out.chunks += r.chunks;
      out.vectors += r.vectors;
    }
    await this.reload();
    return out;
  }

  /**
   * Embeds with this from now on: a function (texts → vectors) or an AI SDK embedding model. Its
   * vectors are stored under their own fingerprint beside the others', so the next run embeds every
   * text again (as after any model switch) and switching back costs nothing.
   */
  async setEmbedFunction(embedder: EmbedderInput): Promise<void> {
    this.embedderInput = embedder;
    await this.reload();
  }
}

/** A knowledge manager over a ragsync config file (call `initialize()` first, `close()` when done). */
export function createKnowledgeManager(config: string | KnowledgeManagerOptions): KnowledgeManager {
  return new KnowledgeManager(typeof config === 'string' ? { configFile: config } : config);
}
