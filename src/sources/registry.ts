import type { Logger } from 'pino';
import { isAbsolute, relative, sep } from 'node:path';
import type { Config, SourceConfig } from '../config/load.ts';
import { webFields } from '../config/schema.ts';
import { createSourceKindRegistry, type SourceKindRegistry, type SourceKindSpec } from '../config/source-kinds.ts';
import { sourceNameOf } from '../config/starter.ts';
import type { HtmlPreparer } from '../core/html-page.ts';
import { redactSecrets } from '../core/redact.ts';
import { dirSnapshot } from './dir.ts';
import { gitSnapshot } from './git.ts';
import { pathMatcher } from './match.ts';
import type { Snapshot, UnlistedSnapshot } from './types.ts';
import type { CrawlPreview } from './web/index.ts';

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
 * A kind of source, whole, in one entry: its config rules, fields and `source add` inference
 * (SourceKindSpec: what the config layer reads), how it is listed (snapshot), named in logs and
 * refusals (describe), recorded in the sources table (record), and whether a run that indexed it
 * in full may record a listing key so the next run at the same commit lists nothing. Adding a kind
 * is one entry in a registry: the built-in one below, or a library user's own registry
 * (`createSourceKindRegistry([...builtinSourceKinds.kinds, mine])`) handed to `parseConfig`.
 */
export interface SourceKind extends SourceKindSpec {
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

/** Hosts whose https://host/owner/repo addresses are git repositories (deeper paths are web pages). */
const GIT_HOSTS = new Set(['github.com', 'gitlab.com', 'bitbucket.org', 'codeberg.org', 'gitee.com', 'git.sr.ht', 'huggingface.co']);
const isHttp = (s: string) => /^https?:\/\//i.test(s);

function gitLikeUrl(s: string): boolean {
  if (/^[^/\\\s]+@[^/\\\s]+:/.test(s) || /^(ssh|git|git\+ssh|file):\/\//i.test(s)) return true;
  if (!isHttp(s)) return false;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return false;
  }
  if (/\.git\/?$/.test(u.pathname)) return true;
  const parts = u.pathname.split('/').filter(Boolean);
  return GIT_HOSTS.has(u.hostname.toLowerCase()) && parts.length === 2;
}

const shownUrl = (s: string) => JSON.stringify(redactSecrets(s));

export const gitKind: SourceKind = {
  name: 'git',
  description: 'a git repository (URL or local path), cloned into a checkout and pulled on every run',
  root: 'checkout',
  fileGlobs: true,
  takesBranch: true,
  check: (s) => (s.url ? [] : [{ field: 'url', message: 'required for a git source' }]),
  // A local folder only when it says it is a repository (…/x.git); git@…, ssh://, *.git or a known host's owner/repo.
  claims: (w) => (w.folder !== null ? w.isFolder && /\.git\/?$/.test(w.location) && w.isGitRepo : gitLikeUrl(w.location)),
  refuses: (w) => (w.folder !== null && !w.isGitRepo ? `${w.folder} is not a git repository${w.isFolder ? ' (index it as a folder: --kind dir)' : ''}` : null),
  entry: (w, ctx) => ({ url: w.folder ?? w.location, ...(ctx.branch ? { branch: ctx.branch } : {}) }),
  snapshot: (s, ctx) =>
    gitSnapshot({ name: s.name, url: s.url!, branch: s.branch, root: s.root, updateWorkTree: !ctx.dryRun, log: ctx.log, unlistedAt: ctx.unlistedAt, indexedCommit: ctx.indexedCommit, ...s.checkout }, lazyMatcher(s)),
  describe: (s) => redactSecrets(s.url!),
  record: (s) => ({ url: redactSecrets(s.url!), branch: s.branch }),
  listingKey: true,
};

export const dirKind: SourceKind = {
  name: 'dir',
  description: 'a local folder, read in place (no git)',
  root: 'path',
  fileGlobs: true,
  ownFields: ['watch'],
  check: (s) => (s.path ? [] : [{ field: 'path', message: 'required for a dir source' }]),
  claims: (w) => w.isFolder,
  refuses: (w) =>
    w.folder === null ? `${shownUrl(w.location)} is a URL, not a folder` : w.isFolder ? null : `no such folder: ${w.folder} (give a folder, a git URL or an http(s) URL)`,
  entry: (w, ctx) => {
    const rel = relative(ctx.configDir, w.folder!);
    return { path: rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? w.folder : `./${rel.split(sep).join('/')}` };
  },
  snapshot: (s) => dirSnapshot(s.root, lazyMatcher(s)),
  describe: (s) => s.root,
  record: (s) => ({ url: s.root, branch: null }),
  listingKey: false,
};

export const webKind: SourceKind = {
  name: 'web',
  description: 'a website crawled over http(s) from a start URL or a sitemap',
  root: 'none',
  fileGlobs: false,
  ownFields: Object.keys(webFields),
  check: (s) => {
    const issues = !s.url && !s.sitemap ? [{ field: 'url', message: 'a web source needs url or sitemap' }] : [];
    for (const field of ['url', 'sitemap']) {
      const v = s[field];
      if (v !== undefined && !/^https?:\/\/[^/\s]+/i.test(String(v))) issues.push({ field, message: `an http(s) URL (got ${JSON.stringify(v)})` });
    }
    return issues;
  },
  claims: (w) => w.folder === null && isHttp(w.location),
  refuses: (w) => (isHttp(w.location) && URL.canParse(w.location) ? null : `${shownUrl(w.location)} is not an http(s) URL`),
  entry: (w) => (/sitemap[^/]*\.xml$/i.test(new URL(w.location).pathname) ? { sitemap: w.location } : { url: w.location }),
  nameFor: (location) => {
    try {
      const u = new URL(location);
      const first = u.pathname.split('/').filter(Boolean)[0];
      return sourceNameOf([u.hostname.replace(/^www\./, ''), first && !first.includes('.') ? first : ''].filter(Boolean).join('-'));
    } catch {
      return 'site';
    }
  },
  // The crawler loads with its first web source: a config's loader names this registry for every command.
  snapshot: async (s, ctx) => (await import('./web/index.ts')).webSnapshot(s, await ctx.stored(), { signal: ctx.signal, dryRun: ctx.dryRun, prepareHtml: ctx.prepareHtml }),
  describe: (s) => redactSecrets(s.url ?? s.sitemap!),
  record: (s) => ({ url: redactSecrets(s.url ?? s.sitemap!), branch: null }),
  listingKey: false,
};

/** The kinds ragsync ships; the first (git) is a source's kind when its config names none. */
export const builtinSourceKinds: SourceKindRegistry<SourceKind> = createSourceKindRegistry([gitKind, dirKind, webKind]);

/** A configured source's kind, whole (its snapshot, listing and record), from the registry its config was validated against. */
export const sourceKind = (config: Pick<Config, 'kinds'>, kind: string): SourceKind => {
  const k = config.kinds.get(kind);
  if (!('snapshot' in k)) throw new Error(`source kind "${kind}" has no snapshot: build its registry from SourceKind entries`);
  return k as SourceKind;
};

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
