import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { RagsyncError, EXIT } from '../core/errors.ts';
import { sourceNameOf } from './starter.ts';
import { redactUrl } from '../core/redact.ts';

/**
 * What `source add` (and the MCP tool `source_add`) is given, turned into the config entry it
 * writes: the kind inferred from the location when not given, a name derived when not given.
 * The entry is then validated as the loader validates every source.
 */
export interface SourceRequest {
  /** A git URL, an http(s) URL, or a local folder. */
  location: string;
  name?: string;
  kind?: 'git' | 'dir' | 'web';
  include?: string[];
  exclude?: string[];
  chunker?: string;
  profile?: string;
  branch?: string;
  schedule?: string;
}

export type SourceKindName = 'git' | 'dir' | 'web';

/** Hosts whose https://host/owner/repo addresses are git repositories (deeper paths are web pages). */
const GIT_HOSTS = new Set(['github.com', 'gitlab.com', 'bitbucket.org', 'codeberg.org', 'gitee.com', 'git.sr.ht', 'huggingface.co']);

const isHttp = (s: string) => /^https?:\/\//i.test(s);
/** A URL (scheme://) or scp-style git address (user@host:path), not a local path. */
export const isUrlLike = (s: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(s) || /^[^/\\\s]+@[^/\\\s]+:/.test(s);

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

/** A folder holding a git repository (a work tree, or a bare one). */
const isGitRepo = (dir: string) => existsSync(join(dir, '.git')) || (existsSync(join(dir, 'HEAD')) && existsSync(join(dir, 'objects')));

/**
 * The kind of source a location is: a local folder → dir (git with --kind git, when it is a
 * repository); git@…, ssh://, *.git or a known git host's owner/repo → git; other http(s) → web.
 * `cwd` resolves relative folders.
 */
export function inferKind(location: string, cwd: string, asked?: SourceKindName): SourceKindName {
  const folder = !isUrlLike(location) ? resolve(cwd, location) : null;
  const isFolder = folder !== null && existsSync(folder) && statSync(folder).isDirectory();
  const kind: SourceKindName = asked ?? (isFolder ? (/\.git\/?$/.test(location) && isGitRepo(folder) ? 'git' : 'dir') : gitLikeUrl(location) ? 'git' : isHttp(location) ? 'web' : 'dir');
  if (kind === 'dir' && !isFolder) {
    throw new RagsyncError(
      isUrlLike(location) ? `--kind dir: ${JSON.stringify(redactUrl(location))} is a URL, not a folder` : `no such folder: ${folder} (give a folder, a git URL or an http(s) URL)`,
      EXIT.usage,
    );
  }
  if (kind === 'web' && (!isHttp(location) || !URL.canParse(location))) throw new RagsyncError(`--kind web: ${JSON.stringify(redactUrl(location))} is not an http(s) URL`, EXIT.usage);
  if (kind === 'git' && folder !== null && !isGitRepo(folder)) {
    throw new RagsyncError(`--kind git: ${folder} is not a git repository${isFolder ? ' (index it as a folder: --kind dir)' : ''}`, EXIT.usage);
  }
  return kind;
}

/** A name for a source from its location: the repository, folder or site name. */
export function nameFor(location: string, kind: SourceKindName): string {
  if (kind === 'web') {
    try {
      const u = new URL(location);
      const first = u.pathname.split('/').filter(Boolean)[0];
      return sourceNameOf([u.hostname.replace(/^www\./, ''), first && !first.includes('.') ? first : ''].filter(Boolean).join('-'));
    } catch {
      return 'site';
    }
  }
  return sourceNameOf(location);
}

/** `base`, or base-2, base-3 … : the first not in `taken`. */
export function uniqueName(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

/**
 * The config entry for a request: keys in the order a person writes them, only what was given
 * (defaults stay the schema's). A folder is written relative to the config file's folder when it
 * lies inside it, else absolute; a local git repository's path absolute.
 */
export function sourceEntry(
  req: SourceRequest,
  ctx: { cwd: string; configDir: string; taken: ReadonlySet<string>; defaultBranch?: string | null },
): Record<string, unknown> {
  const kind = inferKind(req.location, ctx.cwd, req.kind);
  const name = req.name ?? uniqueName(nameFor(req.location, kind), ctx.taken);
  const entry: Record<string, unknown> = { name, kind };
  const local = !isUrlLike(req.location);
  if (kind === 'dir') {
    const abs = resolve(ctx.cwd, req.location);
    const rel = relative(ctx.configDir, abs);
    entry.path = rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? abs : `./${rel.split(sep).join('/')}`;
  } else if (kind === 'git') {
    entry.url = local ? resolve(ctx.cwd, req.location) : req.location;
    const branch = req.branch ?? ctx.defaultBranch;
    if (branch) entry.branch = branch;
  } else if (/sitemap[^/]*\.xml$/i.test(new URL(req.location).pathname)) entry.sitemap = req.location;
  else entry.url = req.location;
  if (req.branch && kind !== 'git') throw new RagsyncError(`--branch is only for a git source (this is ${kind})`, EXIT.usage);
  if (req.include?.length) entry.include = req.include;
  if (req.exclude?.length) entry.exclude = req.exclude;
  if (req.chunker) entry.chunker = req.chunker;
  if (req.profile) entry.profile = req.profile;
  if (req.schedule) entry.schedule = req.schedule;
  return entry;
}
