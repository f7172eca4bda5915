import { closeSync, existsSync, fchmodSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { randomHex } from '../core/hash.ts';
import type { Logger } from 'pino';
import { parseConfig, parseConfigText, type Config, type SourceConfig } from '../config/load.ts';
import { appendToArray, removeFromArray } from '../config/jsonc-edit.ts';
import { sourceEntry, inferKind, isUrlLike, type SourceRequest } from '../config/source-entry.ts';
import type { SourceKindRegistry } from '../config/source-kinds.ts';
import { unsafeGitUrl } from '../config/git-url.ts';
import type { ProfileRegistry } from '../core/profile.ts';
import { RagsyncError, EXIT, errorMessage } from '../core/errors.ts';
import { redactSecrets } from '../core/redact.ts';
import type { IndexOpener } from '../storage/open.ts';
import type { RunRecord, SourceState } from '../storage/roles.ts';
import { builtinSourceKinds, sourceKind } from '../sources/registry.ts';
import { isOwnCheckout } from '../sources/checkout-guard.ts';
import { remoteHeadBranch, unsavedWorkIn } from '../sources/git.ts';
import { acquireIndexLock } from './lock.ts';
import { collectGarbageLocked } from './gc.ts';

/**
 * Sources managed from the command line and by agents (`source add|list|remove`, the MCP tools):
 * the config file edited in place — comments, order and layout kept — and validated as loading
 * validates it before a byte is written; the index told of a removal. One implementation for the
 * CLI and MCP.
 */

/** The config file's text and what it says, read as loading reads it. */
function readConfigFile(profiles: ProfileRegistry, kinds: SourceKindRegistry, file: string): { text: string; raw: { sources?: unknown[] }; config: Config } {
  if (!existsSync(file)) throw new RagsyncError(`config file not found: ${file} (\`ragsync init\` writes one)`, EXIT.usage);
  const text = readFileSync(file, 'utf8');
  const raw = parseConfigText(text, file) as { sources?: unknown[] };
  return { text, raw, config: parseConfig(profiles, kinds, raw, file) };
}

/**
 * Validates `next` as loading would, checks the edit did exactly what was meant (`expect`: the
 * sources array it should hold) and returns the config it describes; nothing is written here.
 */
function validateEdit(profiles: ProfileRegistry, kinds: SourceKindRegistry, file: string, next: string, expect: unknown[], what: string): Config {
  let config: Config;
  try {
    config = parseConfig(profiles, kinds, parseConfigText(next, file), file);
  } catch (err) {
    if (err instanceof RagsyncError) throw new RagsyncError(`${err.message} — ${what}, ${file} is unchanged`, err.exitCode);
    throw err;
  }
  const raw = parseConfigText(next, file) as { sources?: unknown[] };
  if (!isDeepStrictEqual(raw.sources, expect)) throw new RagsyncError(`${file}: could not edit "sources" in place — ${what}, the file is unchanged`, EXIT.failed);
  return config;
}

/**
 * Replaces the file's content at once (a reader sees the old text or the new, never half), keeping
 * its mode. The temporary file is created, never opened: something already at its name (a file, a
 * symlink planted there) is left alone and another name taken, and until it replaces the config
 * (which may hold secrets) only its owner can read it.
 */
function writeInPlace(file: string, text: string): void {
  const real = realpathSync(file);
  const mode = statSync(real).mode & 0o777;
  let tmp = '';
  let fd = -1;
  for (let attempt = 0; fd < 0; attempt++) {
    tmp = join(dirname(real), `.${basename(real)}.${process.pid}${attempt ? `.${randomHex(4)}` : ''}.tmp`);
    try {
      fd = openSync(tmp, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= TEMP_ATTEMPTS) throw err;
    }
  }
  try {
    try {
      writeFileSync(fd, text);
      fchmodSync(fd, mode);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, real);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Names tried for the temporary file after the first is found taken. */
const TEMP_ATTEMPTS = 8;

/** The names the index holds (none when there is no index yet, or it cannot be read). */
async function indexedSources(cfg: Config, indexes: IndexOpener): Promise<{ sources: SourceState[]; runs: RunRecord[] } | null> {
  if (!(await indexes.exists(cfg).catch(() => false))) return null;
  const store = indexes.open(cfg, 'admin', { readOnly: true });
  try {
    const r = await store.status({ runs: RUNS_LOOKED_AT });
    return { sources: r.sources, runs: r.runs };
  } finally {
    await store.close();
  }
}

/** Runs searched for each source's last run. */
const RUNS_LOOKED_AT = 100;

export interface AddResult {
  file: string;
  /** The entry as written into the file. */
  entry: Record<string, unknown>;
  /** The same, credentials in its URL masked: what may be shown. */
  shown: Record<string, unknown>;
  /** The config with it, as loaded. */
  config: Config;
  source: SourceConfig;
  written: boolean;
}

/**
 * Adds a source to the config file: the kind inferred and a name derived unless given, the entry
 * validated with the whole file as loading validates it, then written in place after the last
 * source (laid out as that one is). Does not index. `dryRun`: validated, not written.
 */
export async function addSource(
  profiles: ProfileRegistry,
  file: string,
  req: SourceRequest,
  opts: { cwd?: string; dryRun?: boolean; indexes: IndexOpener; kinds?: SourceKindRegistry },
): Promise<AddResult> {
  const cwd = opts.cwd ?? process.cwd();
  const kinds = opts.kinds ?? builtinSourceKinds;
  const { text, raw, config } = readConfigFile(profiles, kinds, file);
  if (req.name !== undefined && config.sources.some((s) => s.name === req.name)) {
    throw new RagsyncError(`--name: a source named "${req.name}" is already in ${file} (got ${JSON.stringify(req.name)})`, EXIT.usage);
  }
  const indexed = await indexedSources(config, opts.indexes).catch(() => null);
  const taken = new Set([...config.sources.map((s) => s.name), ...(indexed?.sources.map((s) => s.name) ?? [])]);
  const kind = inferKind(kinds, req.location, cwd, req.kind);
  let defaultBranch: string | null = null;
  if (kind.takesBranch && req.branch === undefined) {
    const url = isUrlLike(req.location) ? req.location : resolve(cwd, req.location);
    if (unsafeGitUrl(url) === null) defaultBranch = await remoteHeadBranch(url);
  }
  const entry = sourceEntry(kinds, { ...req, kind: kind.name }, { cwd, configDir: dirname(file), taken, defaultBranch });
  const next = appendToArray(text, 'sources', entry);
  const updated = validateEdit(profiles, kinds, file, next, [...(raw.sources ?? []), entry], 'not added');
  if (!opts.dryRun) writeInPlace(file, next);
  const shown = Object.fromEntries(Object.entries(entry).map(([k, v]) => [k, typeof v === 'string' && (k === 'url' || k === 'sitemap') ? redactSecrets(v) : v]));
  return { file, entry, shown, config: updated, source: updated.sources.find((s) => s.name === entry.name)!, written: !opts.dryRun };
}

export interface SourceListing {
  name: string;
  kind: string;
  /** URL (credentials masked), sitemap or folder. */
  location: string | null;
  /** In the config file (a source only in the index was taken out of the config by hand). */
  inConfig: boolean;
  /** Whether any run has indexed it. */
  indexed: boolean;
  /** git: the commit indexed. */
  commit: string | null;
  /** When it was last indexed in full (web: the crawl). */
  indexedAt: string | null;
  documents: number;
  chunks: number;
  /** This source's part of the last run that included it. */
  lastRun: { id: number; status: string; at: string; error: string | null } | null;
}

/** Every source of the config and of the index, with what the index holds of it and its last run. */
export async function listSources(cfg: Config, indexes: IndexOpener): Promise<SourceListing[]> {
  const indexed = await indexedSources(cfg, indexes);
  const state = new Map((indexed?.sources ?? []).map((s) => [s.name, s]));
  const lastRun = (name: string): SourceListing['lastRun'] => {
    for (const r of indexed?.runs ?? []) {
      const s = r.sources.find((x) => x.source === name);
      if (s) return { id: r.id, status: s.status, at: r.finishedAt ?? r.startedAt, error: s.error };
    }
    return null;
  };
  const row = (name: string, kind: SourceListing['kind'], location: string | null, inConfig: boolean): SourceListing => {
    const s = state.get(name);
    const run = lastRun(name);
    return {
      name,
      kind,
      location,
      inConfig,
      indexed: !!s && (s.indexedAt !== null || s.documents > 0),
      commit: s?.commit ?? null,
      indexedAt: s?.indexedAt ?? null,
      documents: Number(s?.documents ?? 0),
      chunks: Number(s?.chunks ?? 0),
      lastRun: run,
    };
  };
  const configured = cfg.sources.map((s) => row(s.name, s.kind, sourceKind(cfg, s.kind).describe(s), true));
  const orphans = [...state.values()].filter((s) => !cfg.sources.some((c) => c.name === s.name)).map((s) => row(s.name, s.kind, s.url ? redactSecrets(s.url) : null, false));
  return [...configured, ...orphans];
}

export interface RemoveResult {
  name: string;
  /** What the index held of it and no longer does. */
  documents: number;
  chunks: number;
  /** Vectors no chunk used any more, deleted (as `ragsync gc`). */
  vectors: number;
  /** Whether its entry left the config file (false: it was only in the index). */
  configEdited: boolean;
  /** ragsync's own checkout of it, deleted; or why it was kept. */
  checkout: { path: string; removed: boolean; reason?: string } | null;
}

/** The names `remove` knows: configured and indexed. */
export async function knownSourceNames(cfg: Config, indexes: IndexOpener): Promise<string[]> {
  const indexed = await indexedSources(cfg, indexes).catch(() => null);
  return [...new Set([...cfg.sources.map((s) => s.name), ...(indexed?.sources.map((s) => s.name) ?? [])])];
}

/**
 * Removes a source: its documents and chunks from the index (one transaction, under the index
 * lock), its row, then the vectors no chunk uses any more; its entry from the config file, in
 * place; and ragsync's own checkout of it, unless it holds work found nowhere else. Never a
 * folder ragsync did not create. The config edit is validated before the index is touched.
 */
export async function removeSource(profiles: ProfileRegistry, file: string, name: string, opts: { log?: Logger; indexes: IndexOpener; kinds?: SourceKindRegistry }): Promise<RemoveResult> {
  const kinds = opts.kinds ?? builtinSourceKinds;
  const { text, raw, config } = readConfigFile(profiles, kinds, file);
  const at = config.sources.findIndex((s) => s.name === name);
  const known = await knownSourceNames(config, opts.indexes);
  if (!known.includes(name)) {
    throw new RagsyncError(`unknown source "${name}" (known: ${known.join(', ') || 'none'})`, EXIT.usage);
  }
  let next: string | null = null;
  if (at >= 0) {
    if (config.sources.length === 1) {
      throw new RagsyncError(`"${name}" is the only source in ${file}, and a config needs one: add another first (the file is unchanged)`, EXIT.usage);
    }
    next = removeFromArray(text, 'sources', at);
    validateEdit(profiles, kinds, file, next, (raw.sources ?? []).filter((_, i) => i !== at), 'not removed');
  }
  const result: RemoveResult = { name, documents: 0, chunks: 0, vectors: 0, configEdited: false, checkout: null };
  Object.assign(result, await dropFromIndex(config, name, 'source', opts));
  if (next !== null) {
    writeInPlace(file, next);
    result.configEdited = true;
  }
  const source = at >= 0 ? config.sources[at]! : null;
  if (source && config.kinds.get(source.kind).root === 'checkout') result.checkout = await dropCheckout(source);
  return result;
}

/**
 * Deletes from the index, under its lock, what ragsync wrote of a source: its documents (with their
 * chunks and keyword rows) — `paths`, or all of them and then the source's row ('source') — and the
 * vectors no chunk uses any more. Nothing else in the database is touched.
 */
export async function dropFromIndex(
  config: Config,
  name: string,
  paths: string[] | 'source',
  opts: { log?: Logger; indexes: IndexOpener },
): Promise<{ documents: number; chunks: number; vectors: number }> {
  const out = { documents: 0, chunks: 0, vectors: 0 };
  if (!(await opts.indexes.exists(config))) return out;
  const store = opts.indexes.open(config, 'sync');
  try {
    const lock = await acquireIndexLock(store, config.db, opts.log);
    try {
      const [state] = (await store.status({ runs: 0 })).sources.filter((s) => s.name === name);
      if (!state) return out;
      const held = new Set((await store.listDocuments(name)).map((d) => d.path));
      const gone = paths === 'source' ? [...held] : paths.filter((p) => held.has(p));
      if (gone.length) await store.writeDocuments(name, [], gone);
      if (paths === 'source') {
        await store.forgetSource(name);
        out.chunks = Number(state.chunks);
      } else {
        const [after] = (await store.status({ runs: 0 })).sources.filter((s) => s.name === name);
        out.chunks = Number(state.chunks) - Number(after?.chunks ?? 0);
      }
      out.documents = gone.length;
      out.vectors = (await collectGarbageLocked(store)).vectors;
      return out;
    } finally {
      await lock.release().catch((err: unknown) => opts.log?.warn({ err: errorMessage(err) }, 'could not release the index lock'));
    }
  } finally {
    await store.close();
  }
}

/** Deletes ragsync's own checkout of a git source; anything else, or one holding unsaved work, is kept. */
async function dropCheckout(source: SourceConfig): Promise<RemoveResult['checkout']> {
  const path = source.root;
  if (!existsSync(path)) return null;
  if (!isOwnCheckout(path, source.url!, source.checkout?.index)) return { path, removed: false, reason: 'not a checkout ragsync made: left alone' };
  let unsaved;
  try {
    unsaved = await unsavedWorkIn(path);
  } catch (err) {
    return { path, removed: false, reason: `git cannot read it (${errorMessage(err).split('\n')[0]}): left alone` };
  }
  if (unsaved) {
    const n = unsaved.files.length + unsaved.commits.length;
    return { path, removed: false, reason: `it holds ${n} uncommitted file(s) or local commit(s) found nowhere else: left alone` };
  }
  rmSync(path, { recursive: true, force: true });
  return { path, removed: true };
}
