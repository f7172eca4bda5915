import type { Logger } from 'pino';
import type { SourceConfig } from '../config/load.ts';
import type { HtmlPreparer } from '../core/html-page.ts';
import { redactSecrets } from '../core/redact.ts';
import { dirSnapshot } from './dir.ts';
import { gitSnapshot } from './git.ts';
import { pathMatcher } from './match.ts';
import type { Snapshot, UnlistedSnapshot } from './types.ts';
import { webSnapshot, type CrawlPreview } from './web/index.ts';

/** What a kind's snapshot may use of the run. */
export interface SnapshotContext {
  dryRun: boolean;
  log: Logger;
  /** git: the commit at which the files need not be listed (sync/listing.ts). */
  unlistedAt?: string;
  /** git: the commit the index holds the source at (never taken for local work in the checkout). */
  indexedCommit?: string | null;
  /** What the index holds of the source (path → stamp): a web crawl revalidates these pages. */
  stored(): Promise<ReadonlyMap<string, string>>;
  signal?: AbortSignal;
  /** web: the source's content step for the HTML pages the crawl parses (none: the chunker reads HTML as written). */
  prepareHtml?: HtmlPreparer;
}

/** A file or page the snapshot could not take, and why (the run reports it and ends partial). */
export interface SnapshotSkip {
  path: string;
  reason: string;
  /** Left out as the source asks (robots.txt, noindex, a duplicate of its canonical page): the run is not partial for it. */
  intended?: boolean;
}

/**
 * A kind of source: how it is listed (snapshot), named in logs and refusals (describe), recorded
 * in the sources table (record), and whether a run that indexed it in full may record a listing
 * key so the next run at the same commit lists nothing. Adding a kind is an entry here and its
 * fields in config/schema.ts.
 */
export interface SourceKind {
  readonly kind: SourceConfig['kind'];
  snapshot(source: SourceConfig, ctx: SnapshotContext): Promise<Snapshot | UnlistedSnapshot>;
  describe(source: SourceConfig): string;
  record(source: SourceConfig): { url: string | null; branch: string | null };
  readonly listingKey: boolean;
}

/** include/exclude compiled on the first path: an unchanged source that is not listed needs none. */
function lazyMatcher(source: SourceConfig): (path: string) => boolean {
  let matcher: ((path: string) => boolean) | undefined;
  return (path) => (matcher ??= pathMatcher(source.include, source.exclude))(path);
}

const KINDS: Record<SourceConfig['kind'], SourceKind> = {
  git: {
    kind: 'git',
    snapshot: (s, ctx) =>
      gitSnapshot({ name: s.name, url: s.url!, branch: s.branch, root: s.root, updateWorkTree: !ctx.dryRun, log: ctx.log, unlistedAt: ctx.unlistedAt, indexedCommit: ctx.indexedCommit, ...s.checkout }, lazyMatcher(s)),
    describe: (s) => redactSecrets(s.url!),
    record: (s) => ({ url: redactSecrets(s.url!), branch: s.branch }),
    listingKey: true,
  },
  dir: {
    kind: 'dir',
    snapshot: (s) => dirSnapshot(s.root, lazyMatcher(s)),
    describe: (s) => s.root,
    record: (s) => ({ url: s.root, branch: null }),
    listingKey: false,
  },
  web: {
    kind: 'web',
    snapshot: async (s, ctx) => webSnapshot(s, await ctx.stored(), { signal: ctx.signal, dryRun: ctx.dryRun, prepareHtml: ctx.prepareHtml }),
    describe: (s) => redactSecrets(s.url ?? s.sitemap!),
    record: (s) => ({ url: redactSecrets(s.url ?? s.sitemap!), branch: null }),
    listingKey: false,
  },
};

export const sourceKind = (kind: SourceConfig['kind']): SourceKind => KINDS[kind];

/**
 * Skips a snapshot reports besides the files it lists (a web crawl's failed pages), each reason
 * naming its page as a skipped file's names its file (status and `index -v` show the reason alone).
 */
export const snapshotSkips = (s: Snapshot | UnlistedSnapshot): SnapshotSkip[] =>
  'skipped' in s && Array.isArray(s.skipped)
    ? (s.skipped as { url: string; reason: string; intended?: boolean }[]).map((p) => ({
        path: redactSecrets(p.url),
        reason: redactSecrets(`${p.url}: ${p.reason}`),
        ...(p.intended ? { intended: true } : {}),
      }))
    : [];

/** What a dry run of a source would fetch, when its kind can tell without fetching (web: new, to revalidate, to drop). */
export type FetchPreview = CrawlPreview;
export const snapshotPreview = (s: Snapshot | UnlistedSnapshot): FetchPreview | undefined =>
  'preview' in s && s.preview ? (s.preview as FetchPreview) : undefined;
