import { htmlToMarkdown } from '../chunking/content/html.ts';
import { RagsyncError, EXIT } from '../core/errors.ts';
import { indexes } from '../engine/engine.ts';
import { fetchPage } from '../sources/web/fetch-page.ts';
import { normalizeUrl } from '../sources/web/url.ts';
import { dropFromIndex, listSources, type RemoveResult, type SourceListing } from '../sync/manage-sources.ts';
import type { IndexResult } from '../sync/run-result.ts';
import type { AddDocSourceOptions, KnowledgeCore } from './core.ts';

export interface Page {
  source: string;
  /** A web page's path is its URL. */
  path: string;
  title: string | null;
  /** The page's passages in order, as indexed (Markdown). */
  content: string;
  chunks: number;
}

export interface FetchedUrl {
  url: string;
  contentType: string;
  /** HTML converted as the crawler converts it (title and URL as front matter); other text as it came. */
  markdown: string;
}

/** Documentation sources (websites, Markdown folders and repositories): added, crawled, read back. */
export class DocIndexer {
  constructor(private readonly km: KnowledgeCore) {}

  addSource(url: string, opts: AddDocSourceOptions = {}): ReturnType<KnowledgeCore['addDocSource']> {
    return this.km.addDocSource(url, opts);
  }

  removeSource(name: string): Promise<RemoveResult> {
    return this.km.removeDocSource(name);
  }

  /** One doc source with what the index holds of it, or null when there is no such doc source. */
  async getSource(name: string): Promise<SourceListing | null> {
    return (await this.listSources()).find((s) => s.name === name) ?? null;
  }

  async listSources(): Promise<SourceListing[]> {
    const names = new Set(this.km.sourcesOf('docs').map((s) => s.name));
    return (await listSources(this.km.config, indexes)).filter((s) => names.has(s.name));
  }

  /** Crawls (or syncs) one doc source. */
  async crawlSource(name: string, opts: { force?: boolean } = {}): Promise<IndexResult> {
    if (!this.km.sourcesOf('docs').some((s) => s.name === name)) {
      throw new RagsyncError(`unknown doc source "${name}" (known: ${this.km.sourcesOf('docs').map((s) => s.name).join(', ') || 'none'})`, EXIT.usage);
    }
    return this.km.index({ sources: [name], force: opts.force });
  }

  crawlAll(opts: { force?: boolean } = {}): Promise<IndexResult | null> {
    return this.km.crawlDocs(opts);
  }

  /** Fetches one URL and converts it, storing nothing. */
  async fetchUrl(url: string, opts: { headers?: Record<string, string> } = {}): Promise<FetchedUrl> {
    const page = await fetchPage(url, opts);
    const html = /html/.test(page.contentType);
    return { url: page.url, contentType: page.contentType, markdown: html ? htmlToMarkdown(page.text, page.url, { excludeSelectors: [] }) : page.text };
  }

  /** A page (or document) as the index holds it; null when it holds none. `source`: when two sources hold the path. */
  async getPage(urlOrPath: string, source?: string): Promise<Page | null> {
    const path = normalizeUrl(urlOrPath) ?? urlOrPath;
    const store = (await this.km.engine().searcher()).store;
    const ids = await store.findChunks({ path, ...(source ? { source } : {}) });
    if (!ids.length) return null;
    const hits = await store.getChunks(ids, { includeBroken: true });
    const first = hits[0]!;
    const own = hits.filter((h) => h.source === first.source).sort((a, b) => (a.startLine ?? 0) - (b.startLine ?? 0) || a.ref - b.ref);
    return { source: first.source, path: first.path, title: first.title, content: own.map((h) => h.content).join('\n\n'), chunks: own.length };
  }

  /** Takes a page out of the index (a page still on the site comes back at the source's next crawl). */
  async removePage(urlOrPath: string, source?: string): Promise<{ documents: number; chunks: number; vectors: number }> {
    const page = await this.getPage(urlOrPath, source);
    if (!page) return { documents: 0, chunks: 0, vectors: 0 };
    return dropFromIndex(this.km.config, page.source, [page.path], { indexes, log: this.km.log });
  }
}
