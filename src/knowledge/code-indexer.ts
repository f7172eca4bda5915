import { existsSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { builtinProfiles } from '../builtin.ts';
import type { SourceConfig } from '../config/load.ts';
import { RagsyncError, EXIT } from '../core/errors.ts';
import { watchSources } from '../daemon/watch.ts';
import { indexes } from '../engine/engine.ts';
import { addSource, dropFromIndex, listSources, type SourceListing } from '../sync/manage-sources.ts';
import type { IndexResult } from '../sync/run-result.ts';
import type { KindStats, KnowledgeCore } from './core.ts';

export interface FileStatus {
  /** The path as given, made absolute. */
  file: string;
  /** The code source whose folder holds it, and its path there (null: under no code source). */
  source: string | null;
  path: string | null;
  exists: boolean;
  /** Chunks the index holds of it (0: not indexed). */
  chunks: number;
  indexed: boolean;
  /** Indexed as it is on disk now (same size and modification time as when it was read). */
  upToDate: boolean;
}

export interface CodeStatus extends KindStats {
  sourceList: SourceListing[];
  watching: boolean;
}

/** Code sources (folders chunked as code): indexed whole or by the files that changed, and watched. */
export class CodeIndexer {
  private watch: { close(): void } | null = null;

  constructor(private readonly km: KnowledgeCore) {}

  /** The code source whose folder holds `file`, and the file's path in it. */
  locate(file: string): { source: SourceConfig; path: string } | null {
    const abs = resolve(file);
    for (const s of this.km.sourcesOf('code')) {
      if (s.kind === 'web') continue;
      const rel = relative(s.root, abs);
      if (rel && !rel.startsWith('..') && !isAbsolute(rel)) return { source: s, path: rel.split(sep).join('/') };
    }
    return null;
  }

  private sourceOf(file: string): SourceConfig {
    const at = this.locate(file);
    if (!at) throw new RagsyncError(`${resolve(file)}: under no code source's folder (indexDirectory adds one)`, EXIT.usage);
    return at.source;
  }

  /** Syncs the code source holding `file`: the file is read if it changed, as is anything else that did. */
  async indexFile(file: string): Promise<IndexResult> {
    return this.km.index({ sources: [this.sourceOf(file).name] });
  }

  /**
   * Indexes a folder as code: the code source already configured for it, or a new `dir` source with
   * the code chunker written to the config file (as `ragsync source add DIR --chunker code`).
   */
  async indexDirectory(dir: string, opts: { name?: string; force?: boolean; include?: string[]; exclude?: string[] } = {}): Promise<IndexResult> {
    const root = resolve(dir);
    let source = this.km.sourcesOf('code').find((s) => s.kind !== 'web' && resolve(s.root) === root);
    if (!source) {
      const r = await addSource(builtinProfiles, this.km.configFile, { location: root, kind: 'dir', chunker: 'code', name: opts.name, include: opts.include, exclude: opts.exclude }, { indexes });
      await this.km.reload();
      source = r.source;
    }
    return this.km.index({ sources: [source.name], force: opts.force });
  }

  /** Syncs the code sources holding these files (changed, added or deleted); files under none are refused. */
  async updateIndex(changedFiles: string[]): Promise<IndexResult | null> {
    const sources = [...new Set(changedFiles.map((f) => this.sourceOf(f).name))];
    return sources.length ? this.km.index({ sources }) : null;
  }

  /**
   * Takes a file out of the index (its chunks and their unused vectors). A file still on disk comes
   * back at its source's next sync unless the source excludes it.
   */
  async removeFile(file: string): Promise<{ documents: number; chunks: number; vectors: number }> {
    const at = this.locate(file);
    if (!at) throw new RagsyncError(`${resolve(file)}: under no code source's folder`, EXIT.usage);
    return dropFromIndex(this.km.config, at.source.name, [at.path], { indexes, log: this.km.log });
  }

  /** The code sources and what the index holds of them. */
  async getStatus(): Promise<CodeStatus> {
    const names = new Set(this.km.sourcesOf('code').map((s) => s.name));
    const sourceList = (await listSources(this.km.config, indexes)).filter((s) => names.has(s.name));
    return {
      sources: sourceList.length,
      documents: sourceList.reduce((n, s) => n + s.documents, 0),
      chunks: sourceList.reduce((n, s) => n + s.chunks, 0),
      sourceList,
      watching: this.isWatching(),
    };
  }

  /** Whether a file is indexed, and as it is on disk now. */
  async getFileStatus(file: string): Promise<FileStatus> {
    const abs = resolve(file);
    const at = this.locate(abs);
    const exists = existsSync(abs);
    const none: FileStatus = { file: abs, source: at?.source.name ?? null, path: at?.path ?? null, exists, chunks: 0, indexed: false, upToDate: false };
    if (!at || !(await this.km.engine().indexExists())) return none;
    const store = this.km.engine().openStore('sync');
    try {
      const doc = (await store.listDocuments(at.source.name)).find((d) => d.path === at.path);
      if (!doc) return none;
      const chunks = (await (await this.km.engine().searcher()).store.findChunks({ source: at.source.name, path: at.path })).length;
      let upToDate = false;
      if (exists) {
        const st = statSync(abs);
        // A file listed right after a write is stamped racy (sources/dir.ts): same size and time still count.
        upToDate = doc.stamp.replace(/:racy$/, '') === `${st.size}:${Math.trunc(st.mtimeMs)}`;
      }
      return { ...none, chunks, indexed: true, upToDate };
    } finally {
      await store.close();
    }
  }

  /**
   * Watches every code folder and syncs its source once changes settle (`quietMs` without one),
   * as `ragsync daemon --watch` does. Resolves once the watches are set.
   */
  async startWatching(opts: { quietMs?: number } = {}): Promise<void> {
    if (this.watch) return;
    const sources = this.km.sourcesOf('code').filter((s) => s.kind === 'dir');
    const quietMs = opts.quietMs ?? this.km.config.daemon?.watchDebounceMs ?? 1000;
    this.watch = await watchSources(
      sources,
      quietMs,
      (name) => void this.km.index({ sources: [name], trigger: 'watch' }).catch((err: unknown) => this.km.log.warn({ source: name, err: String(err) }, 'watch run failed')),
      this.km.log,
    );
  }

  stopWatching(): void {
    this.watch?.close();
    this.watch = null;
  }

  isWatching(): boolean {
    return this.watch !== null;
  }
}
