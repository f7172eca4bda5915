import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RagsyncError, EXIT } from '../core/errors.ts';
import { sourceNameOf } from './starter.ts';
import { redactSecrets } from '../core/redact.ts';
import type { SourceKindRegistry, SourceKindSpec, SourceLocation } from './source-kinds.ts';

/**
 * What `source add` (and the MCP tool `source_add`) is given, turned into the config entry it
 * writes: the kind inferred from the location when not given, a name derived when not given.
 * The entry is then validated as the loader validates every source.
 */
export interface SourceRequest {
  /** A git URL, an http(s) URL, or a local folder. */
  location: string;
  name?: string;
  /** A kind of the registry (default: inferred from the location). */
  kind?: string;
  include?: string[];
  exclude?: string[];
  chunker?: string;
  profile?: string;
  branch?: string;
  schedule?: string;
}

/** A URL (scheme://) or scp-style git address (user@host:path), not a local path. */
export const isUrlLike = (s: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(s) || /^[^/\\\s]+@[^/\\\s]+:/.test(s);

/** A folder holding a git repository (a work tree, or a bare one). */
const isGitRepo = (dir: string) => existsSync(join(dir, '.git')) || (existsSync(join(dir, 'HEAD')) && existsSync(join(dir, 'objects')));

/** The location looked at once (`cwd` resolves a relative folder). */
export function locate(location: string, cwd: string): SourceLocation {
  const folder = !isUrlLike(location) ? resolve(cwd, location) : null;
  const isFolder = folder !== null && existsSync(folder) && statSync(folder).isDirectory();
  return { location, folder, isFolder, isGitRepo: isFolder && isGitRepo(folder) };
}

/**
 * The kind of source a location is: the one asked for, else the first kind of the registry that
 * claims it (built in: git@…, ssh://, *.git or a known host's owner/repo → git; a folder → dir;
 * other http(s) → web); refused in words when it does not fit.
 */
export function inferKind<K extends SourceKindSpec>(kinds: SourceKindRegistry<K>, location: string, cwd: string, asked?: string): K {
  const where = locate(location, cwd);
  if (asked !== undefined && !kinds.has(asked)) throw new RagsyncError(`--kind: one of ${kinds.names.join(', ')} (got ${JSON.stringify(asked)})`, EXIT.usage);
  const kind = asked !== undefined ? kinds.get(asked) : kinds.kinds.find((k) => k.claims?.(where));
  if (!kind) {
    const what = where.folder !== null && !where.isFolder ? `no such folder: ${where.folder}` : `no kind of source takes ${JSON.stringify(redactSecrets(location))}`;
    throw new RagsyncError(`${what} (give a folder, a git URL or an http(s) URL)`, EXIT.usage);
  }
  const refused = kind.refuses?.(where);
  if (refused) throw new RagsyncError(asked !== undefined ? `--kind ${kind.name}: ${refused}` : refused, EXIT.usage);
  return kind;
}

/** A name for a source from its location: the kind's own way, else the repository or folder name. */
export function nameFor(location: string, kind: SourceKindSpec): string {
  return kind.nameFor?.(location) ?? sourceNameOf(location);
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
  kinds: SourceKindRegistry,
  req: SourceRequest,
  ctx: { cwd: string; configDir: string; taken: ReadonlySet<string>; defaultBranch?: string | null },
): Record<string, unknown> {
  const kind = inferKind(kinds, req.location, ctx.cwd, req.kind);
  if (req.branch && !kind.takesBranch) {
    const which = kinds.kinds.filter((k) => k.takesBranch).map((k) => k.name).join(' or ');
    throw new RagsyncError(`--branch is only for a ${which} source (this is ${kind.name})`, EXIT.usage);
  }
  const name = req.name ?? uniqueName(nameFor(req.location, kind), ctx.taken);
  const entry: Record<string, unknown> = {
    name,
    kind: kind.name,
    ...kind.entry(locate(req.location, ctx.cwd), { cwd: ctx.cwd, configDir: ctx.configDir, branch: req.branch ?? ctx.defaultBranch }),
  };
  if (req.include?.length) entry.include = req.include;
  if (req.exclude?.length) entry.exclude = req.exclude;
  if (req.chunker) entry.chunker = req.chunker;
  if (req.profile) entry.profile = req.profile;
  if (req.schedule) entry.schedule = req.schedule;
  return entry;
}
