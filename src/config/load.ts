import { readFileSync, existsSync } from 'node:fs';
import { dirname, resolve, isAbsolute } from 'node:path';
import type { z } from 'zod';
import { configSchema, knownKeysAt, type ChatConfig, type ChunkingConfig, type DaemonConfig, type EmbedderConfig, type RerankConfig, type SourceConfigRaw } from './schema.ts';
import { RagsyncError, EXIT, errorMessage } from '../core/errors.ts';
import { describeIoError } from '../core/io-errors.ts';
import { isDatabaseUrl } from '../core/db-url.ts';
import { shortHash } from '../core/hash.ts';
import { redactSecrets } from '../core/redact.ts';
import type { Profile, ProfileRegistry } from '../core/profile.ts';
import { didYouMean } from '../core/text/nearest.ts';
import { JsoncSyntaxError, parseJsonc } from './jsonc.ts';
import { sourceIssues, type SourceKindRegistry } from './source-kinds.ts';

export const DEFAULT_CONFIG_PATH = 'config/ragsync.json';

/** A source with every path absolute and chunking settings merged over the global ones. */
export interface SourceConfig extends Omit<SourceConfigRaw, 'chunking' | 'path' | 'profile' | 'maxDeleteShare' | 'lexicon' | 'include' | 'kind'> {
  /** A name in the config's source-kind registry. */
  kind: string;
  /** The source's own globs, else its profile's, else Markdown. */
  include: string[];
  /** Whether the corpus lexicon covers it: the source's own choice, else its profile's. */
  lexicon: boolean;
  /** The source's own limit, else the top-level one. */
  maxDeleteShare: number;
  /** The profile in force: the configured one, or the one that brings the chunker. */
  profile: string;
  /** git: the checkout folder; dir: the folder indexed. Absolute. */
  root: string;
  /**
   * git: the index the checkout serves (recorded in it: two indexes never share one) and, for a
   * default checkout, the folder versions before per-index checkouts used (moved to `root` once).
   */
  checkout?: { index: string; formerRoot?: string };
  chunking: ChunkingConfig;
}

export interface Config {
  /** The config file this came from (absolute), or null when built in code. */
  file: string | null;
  db: string;
  checkouts: string;
  embedder: EmbedderConfig;
  sources: SourceConfig[];
  /** The profiles sources may name (chunkers, analysis, filters, result fields). */
  profiles: ProfileRegistry;
  /** The kinds of source it may hold (sources/registry.ts: snapshot, rules, listing). */
  kinds: SourceKindRegistry;
  /** Absent in configs built in code: the daemon then uses its defaults. */
  daemon?: DaemonConfig;
  /** The HTTP server's settings (absent in configs built in code: loopback names only). */
  serve?: { allowedHosts: string[] };
  logLevel?: string;
  /** Search defaults (absent in configs built in code: expansion on). */
  search?: { expand: boolean; exact?: boolean; efSearch?: number };
  /** A Postgres index's HNSW build settings (absent: the defaults). */
  hnsw?: { m?: number; efConstruction?: number; buildMemoryMb?: number };
  /** The answering model (POST /api/chat, ask); absent: answering is off. */
  chat?: ChatConfig;
  /** The reranker; absent: the RAGSYNC_RERANK_* variables, else none. */
  rerank?: RerankConfig;
}

/** What `ragsync init` writes, found in the working directory without a flag. */
export const LOCAL_CONFIG_NAMES = ['ragsync.jsonc', 'ragsync.json'] as const;

/**
 * --config, else $RAGSYNC_CONFIG, else ragsync.jsonc or ragsync.json in the working directory (as
 * `init` writes it), else config/ragsync.json.
 */
export function resolveConfigPath(flag?: string): string {
  const named = flag ?? process.env.RAGSYNC_CONFIG;
  if (named !== undefined) return resolve(named);
  return LOCAL_CONFIG_NAMES.map((n) => resolve(n)).find((f) => existsSync(f)) ?? resolve(DEFAULT_CONFIG_PATH);
}

export function loadConfig(profiles: ProfileRegistry, kinds: SourceKindRegistry, flag?: string): Config {
  const file = resolveConfigPath(flag);
  if (!existsSync(file)) throw new RagsyncError(`config file not found: ${file}`, EXIT.usage);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new RagsyncError(`cannot read the config file: ${describeIoError(err, file) ?? errorMessage(err)}`, EXIT.usage);
  }
  return parseConfig(profiles, kinds, parseConfigText(text, file), file);
}

/** The config file's JSON (comments and trailing commas allowed); a syntax error names FILE:LINE:COLUMN. */
export function parseConfigText(text: string, file: string): unknown {
  try {
    return parseJsonc(text);
  } catch (err) {
    if (err instanceof JsoncSyntaxError) throw new RagsyncError(`${file}:${err.line}:${err.column}: not valid JSON: ${err.reason}`, EXIT.usage);
    throw new RagsyncError(`${file}: not valid JSON: ${(err as Error).message}`, EXIT.usage);
  }
}

/** Validates a config object; relative paths resolve against the config file's folder (or cwd). */
export function parseConfig(profiles: ProfileRegistry, kinds: SourceKindRegistry, raw: unknown, file: string | null = null): Config {
  const parsed = configSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success) {
    // A mistyped key first: it is usually why a required one is "missing".
    const issues = parsed.error.issues;
    const first = issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0]!;
    throw new RagsyncError(`${file ?? 'config'}: ${describeIssue(first)}`, EXIT.usage);
  }
  const c = parsed.data;
  const where = file ?? 'config';
  const kindOf = c.sources.map((s, i) => {
    const kind = s.kind ?? kinds.defaultKind;
    if (!kinds.has(kind)) {
      throw new RagsyncError(
        `${where}: sources[${i}].kind: Invalid option: expected one of ${kinds.names.map((n) => JSON.stringify(n)).join('|')} (got ${JSON.stringify(kind)})${didYouMean(kind, [...kinds.names])}`,
        EXIT.usage,
      );
    }
    const issue = sourceIssues(kinds, { ...s, kind })[0];
    if (issue) throw new RagsyncError(`${where}: sources[${i}].${issue.field}: ${issue.message}`, EXIT.usage);
    return kinds.get(kind);
  });
  const profileOf = c.sources.map((s, i) => {
    const owner = profiles.ownerOf(s.chunker);
    if (!owner) {
      const names = profiles.chunkerNames();
      throw new RagsyncError(
        `${where}: sources[${i}].chunker: unknown chunker (known: ${names.join(', ')}) (got ${JSON.stringify(s.chunker)})${didYouMean(s.chunker, names)}`,
        EXIT.usage,
      );
    }
    if (s.profile !== undefined && !profiles.has(s.profile)) {
      const names = profiles.profiles.map((p) => p.name);
      throw new RagsyncError(
        `${where}: sources[${i}].profile: unknown profile (known: ${names.join(', ')}) (got ${JSON.stringify(s.profile)})${didYouMean(s.profile, names)}`,
        EXIT.usage,
      );
    }
    return s.profile ?? owner.name;
  });
  const base = file ? dirname(file) : process.cwd();
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(base, p));
  // A server URL is no path; its checkouts default to the config file's folder.
  const db = isDatabaseUrl(c.db) ? c.db : abs(c.db);
  const checkouts = c.checkouts ? abs(c.checkouts) : isDatabaseUrl(db) ? resolve(base, 'checkouts') : resolve(dirname(db), 'checkouts');
  // A config inside an installed package (its example) must not write there: npm owns that folder.
  for (const [key, p] of [...(isDatabaseUrl(db) ? [] : [['db', db] as const]), ['checkouts', checkouts] as const]) {
    if (p.split(/[\\/]/).includes('node_modules')) {
      throw new RagsyncError(
        `${where}: ${key}: ${p} is inside node_modules, and ragsync never writes into an installed package: set "${key}" to a path of your own (\`ragsync init --example DIR\` copies the sample with a config of its own)`,
        EXIT.usage,
      );
    }
  }
  const index = indexIdentity(db);
  const sources: SourceConfig[] = c.sources.map(({ chunking, path, profile: _profile, ...s }, i) => {
    const kind = kindOf[i]!;
    // A checkout's url that is a local path is resolved too, so configs can point at ../upstream.git.
    const url = s.url && kind.root === 'checkout' && isLocalPath(s.url) ? abs(s.url) : s.url;
    const git = kind.root === 'checkout' && url !== undefined;
    return {
      ...s,
      kind: kind.name,
      ...(kind.fileGlobs ? sourceFiles(s, profiles.get(profileOf[i]!)) : { include: s.include ?? [], exclude: s.exclude }),
      profile: profileOf[i]!,
      url,
      root: path ? abs(path) : git ? resolve(checkouts, checkoutFolder(s.name, index)) : resolve(checkouts, s.name),
      ...(git ? { checkout: path ? { index } : { index, formerRoot: resolve(checkouts, s.name) } } : {}),
      chunking: { ...c.chunking, ...chunking },
      maxDeleteShare: s.maxDeleteShare ?? c.maxDeleteShare,
      lexicon: s.lexicon ?? profiles.get(profileOf[i]!).lexicon ?? false,
    };
  });
  // Two sources in one checkout would reset it to each other's upstream in turn.
  const inCheckout = (s: SourceConfig) => kinds.get(s.kind).root === 'checkout';
  sources.forEach((s, i) => {
    const first = sources.findIndex((o) => inCheckout(o) && o.root === s.root);
    if (inCheckout(s) && first !== i) {
      throw new RagsyncError(`${where}: sources[${i}].path: same checkout folder as sources[${first}] (${s.root}): each git source needs its own`, EXIT.usage);
    }
  });
  return {
    file,
    db,
    checkouts,
    embedder: c.embedder,
    daemon: c.daemon,
    serve: c.serve,
    logLevel: c.logLevel,
    search: c.search,
    ...(c.hnsw ? { hnsw: c.hnsw } : {}),
    ...(c.chat ? { chat: c.chat } : {}),
    ...(c.rerank ? { rerank: c.rerank } : {}),
    profiles,
    kinds,
    sources,
  };
}

/** The files a source lists: its own include (else its profile's, else Markdown), less its profile's excludes and its own. */
function sourceFiles(s: Pick<SourceConfigRaw, 'include' | 'exclude'>, profile: Profile): { include: string[]; exclude: string[] } {
  const defaults = profile.sourceDefaults;
  return {
    include: s.include ?? [...(defaults?.include ?? ['**/*.md'])],
    exclude: [...(defaults?.exclude ?? []), ...s.exclude],
  };
}

/** What names an index across configs: its database file (absolute) or server URL (credentials removed). */
export function indexIdentity(db: string): string {
  return isDatabaseUrl(db) ? redactSecrets(db) : db;
}

/**
 * A git source's default checkout folder: its name and a hash of the index it serves, so two
 * configs side by side (one checkouts folder) never share a checkout. (Not of the URL: a source whose
 * URL changes keeps its checkout and fetches from the new one, as before.)
 */
export function checkoutFolder(name: string, index: string): string {
  return `${name}-${shortHash(index).slice(0, 10)}`;
}

function isLocalPath(url: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !/^[^/]+@[^/]+:/.test(url);
}

/** "sources[1].kind: expected one of git|dir, got "svn"" */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
  // A custom (cross-field) issue's input is the whole object: its message names the value itself.
  // Unknown keys are named by the message; their object may hold a secret, so it is not echoed.
  const echo =
    'input' in issue &&
    issue.input !== undefined &&
    !(issue.code === 'custom' && typeof issue.input === 'object') &&
    issue.code !== 'unrecognized_keys' &&
    !issue.message.includes('(got ');
  const shown = echo ? JSON.stringify(issue.input) : '';
  // A long value (a thousand-item list) is cut: the message stays one readable line.
  const got = echo ? ` (got ${shown.length > 80 ? `${shown.slice(0, 77)}…` : shown})` : '';
  return `${path || '(root)'}: ${issue.message}${got}${suggestion(issue)}`;
}

/** "did you mean" for a mistyped key or a value outside a fixed list. */
function suggestion(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys' && issue.keys.length === 1) return didYouMean(issue.keys[0]!, knownKeysAt(issue.path));
  if (issue.code === 'invalid_value' && typeof issue.input === 'string') return didYouMean(issue.input, issue.values.map(String));
  return '';
}
