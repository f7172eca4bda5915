// zod/mini, the functional API: the same checks and messages as the classic one in a fraction of
// the code, and every command parses the config (a one-shot search paid ~35 ms for classic zod).
import * as z from 'zod/mini';
import './zod-english.ts';
import { PRESETS, allowedDimensionsFor, type RemoteProvider } from './presets.ts';
import { createRequire } from 'node:module';
import { unsafeGitUrl } from './git-url.ts';
import { didYouMean } from '../core/text/nearest.ts';
import { CHAT_PROVIDERS, RERANK_PROVIDERS } from './model-presets.ts';

// node-cron loads only when a config has a schedule to check (its import costs every command ~30 ms).
const validCron = (expr: string): boolean =>
  (createRequire(import.meta.url)('node-cron') as typeof import('node-cron')).validate(expr);

const name = z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'letters, digits, "_", "-" or "." only'));

/** A node-cron expression: 5 fields, or 6 with seconds first. */
const cronExpression = z.string().check(
  z.minLength(1),
  z.refine((v: string) => validCron(v), {
    error: (iss) => `not a valid cron expression (5 fields, or 6 with seconds first) (got ${JSON.stringify(iss.input)})`,
  }),
);

/** Classic zod's `.int().min(min).max(max)`. */
const int = (min: number, max: number) => z.number().check(z.int(), z.minimum(min), z.maximum(max));
const str1 = () => z.string().check(z.minLength(1));

function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export const daemonSchema = z.strictObject({
  /** When `ragsync daemon` syncs every source without a schedule of its own. */
  schedule: z._default(cronExpression, '0 * * * *'),
  /** IANA zone the schedules are read in (default: the system's). */
  timezone: z.optional(
    z.string().check(
      z.minLength(1),
      z.refine(validTimeZone, { error: (iss) => `not a known IANA time zone (got ${JSON.stringify(iss.input)})` }),
    ),
  ),
  /** Also run once when the daemon starts. */
  runOnStart: z._default(z.boolean(), false),
  /** On SIGTERM/SIGINT, how long to wait for the current batch before giving up. */
  stopTimeoutMs: z._default(int(1000, 600_000), 20_000),
  /** /healthz (and `status`) turn unhealthy after this many failed runs in a row. */
  failuresToUnhealthy: z._default(int(1, 1000), 1),
  /** Watched folders: sync once no change has come for this long. */
  watchDebounceMs: z._default(int(10, 600_000), 1000),
  /**
   * Postgres workers: a source whose worker has not renewed its lease for this many seconds is
   * taken over by another worker (renewed every third of it while the source is indexed).
   */
  leaseSeconds: z._default(int(1, 86_400), 120),
});

/** "name" or "name:port": a DNS name, an IPv4 address or a bracketed IPv6 one, nothing else. */
function validHostEntry(v: string): boolean {
  const m = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.?)(?::(\d{1,5}))?$/.exec(v);
  return !!m && (m[1] === undefined || Number(m[1]) <= 65535);
}
const hostEntry = z.string().check(
  z.refine(validHostEntry, {
    error: (iss) => `not a host name or "host:port" (no scheme, path or wildcard) (got ${JSON.stringify(iss.input)})`,
  }),
);

export const serveSchema = z.strictObject({
  /**
   * Names the HTTP server answers to besides the loopback's (localhost, 127.0.0.1, [::1]): the name
   * a reverse proxy forwards, "name" or "name:port". Any other Host is refused (421).
   */
  allowedHosts: z._default(z.array(hostEntry), []),
});

export const chunkingSchema = z.strictObject({
  /** Target chunk size in estimated tokens (a CJK character counts as one). */
  targetTokens: z._default(int(50, 8000), 500),
  /** Fraction of the target carried over from the previous chunk. */
  overlap: z._default(z.number().check(z.minimum(0), z.maximum(0.5)), 0.15),
});

/**
 * A web source's own fields (sources/web/types.ts says what each does); unset ones take its defaults.
 * Typed here (the crawler reads them); the web kind's registry entry names them as its own.
 */
export const webFields = {
  sitemap: z.optional(str1()),
  maxPages: z.optional(int(1, 1_000_000)),
  maxDepth: z.optional(int(0, 100)),
  delayMs: z.optional(int(0, 600_000)),
  concurrency: z.optional(int(1, 64)),
  timeoutMs: z.optional(int(100, 600_000)),
  /** Sent with every request; values never logged. */
  headers: z.optional(z.record(z.string().check(z.regex(/^[A-Za-z0-9-]+$/, 'an HTTP header name')), z.string())),
  allowOrigins: z.optional(z.array(z.url({ protocol: /^https?$/ }))),
  /** A host answering 429/503 with a longer Retry-After than this is asked nothing more this run. */
  maxRetryAfterMs: z.optional(int(1000, 86_400_000)),
  /** The crawl stops asking for pages this long after it started (pages not reached keep their indexed copy). */
  deadlineMs: z.optional(int(1000, 7 * 86_400_000)),
};

/** One of the source-kind registry's names (sources/registry.ts); absent: the registry's first (git). */
export const sourceKindField = z.optional(str1());

export const sourceSchema = z
  .strictObject({
    name,
    kind: sourceKindField,
    /** git: the upstream to clone (URL or local path). Never an option or a transport-helper command. */
    url: z.optional(
      z.string().check(
        z.minLength(1),
        z.refine((u: string) => unsafeGitUrl(u) === null, { error: (iss) => `${unsafeGitUrl(String(iss.input))} (got ${JSON.stringify(iss.input)})` }),
      ),
    ),
    branch: z._default(
      z.string().check(
        z.minLength(1),
        // Not an option ("-…"), no whitespace, control or revision-syntax characters: a branch name git accepts.
        z.regex(/^(?!-)(?!.*\.\.)[^\s~^:?*[\\\x00-\x1f\x7f]+$/, 'not a valid branch name'),
      ),
      'main',
    ),
    /** git: where the checkout lives (default: <checkouts>/<name>); dir: the folder to index. */
    path: z.optional(str1()),
    /** Globs of the files indexed (default: the profile's, else Markdown). */
    include: z.optional(z.array(str1()).check(z.minLength(1))),
    /** Globs left out, besides the profile's own (a code source leaves out node_modules, dist …). */
    exclude: z._default(z.array(str1()), []),
    chunker: z._default(str1(), 'markdown'),
    /** The profile whose analysis, filters and result fields apply (default: the one bringing the chunker). */
    profile: z.optional(str1()),
    chunking: z.optional(z.partial(chunkingSchema)),
    maxFileBytes: z._default(z.number().check(z.int(), z.positive()), 2_000_000),
    /** Daemon: sync this source on its own cron schedule instead of the daemon's. */
    schedule: z.optional(cronExpression),
    /** Daemon: sync this source this long after its last sync instead of on a cron schedule. */
    refreshIntervalMs: z.optional(int(1000, 366 * 86_400_000)),
    /** Daemon (dir sources): also sync as soon as a file under the folder changes. */
    watch: z.optional(z.boolean()),
    /** This source may list no files and so lose every document (else such a run is refused). */
    allowEmpty: z._default(z.boolean(), false),
    /** Largest share of this source's passages (distinct chunk texts) one run may drop (default: the top-level maxDeleteShare). */
    maxDeleteShare: z.optional(z.number().check(z.minimum(0), z.maximum(1))),
    /** Build and use the corpus lexicon (English → Chinese words) for this source (default: its profile's choice). */
    lexicon: z.optional(z.boolean()),
    ...webFields,
    /** HTML documents of any kind of source (web pages, .html files): the part kept, the parts dropped, before conversion to Markdown. */
    contentSelector: z.optional(str1()),
    excludeSelectors: z.optional(z.array(str1())),
  })
  .check(
    z.superRefine((s, ctx) => {
      // Each kind's own rules are its registry entry's (config/source-kinds.ts: sourceIssues).
      if (s.schedule !== undefined && s.refreshIntervalMs !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['refreshIntervalMs'], message: 'give schedule or refreshIntervalMs, not both' });
      }
    }),
  );

/** Both size keys at once: `dimensions` is only another name for `dims`. */
const bothSizeKeys = () => z.optional(z.never({ error: 'give "dims" or "dimensions" (another name for it), not both' }));

const hashEmbedderSchema = z.strictObject({
  provider: z.literal('hash'),
  dims: z._default(int(16, 8192), 1024),
  dimensions: bothSizeKeys(),
  batchSize: z._default(z.number().check(z.int(), z.positive(), z.maximum(4096)), 256),
});

/** Fields every remote provider takes; unset ones come from the provider's preset (src/config/presets.ts). */
const remoteFields = {
  model: z.optional(str1()),
  /** The API root; POST {baseUrl}/embeddings (Ollama: /api/embed, TEI: /embed). */
  baseUrl: z.optional(z.url({ protocol: /^https?$/ })),
  /** The vector size: written `dims` in config (`dimensions` accepted), held here as `dimensions`. */
  dimensions: z.optional(int(1, 16384)),
  dims: bothSizeKeys(),
  /** Name of the environment variable (or .env entry) holding the API key: the key itself never goes in config. */
  apiKeyEnv: z.optional(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name'))),
  /** Texts per request (at most the provider's maximum). */
  batchSize: z.optional(int(1, 4096)),
  /** Longer inputs are truncated (and logged by text hash). */
  maxInputTokens: z.optional(int(16, 1_000_000)),
  /** Requests per minute (sliding window); unset = unlimited. */
  rpm: z.optional(int(1, 1_000_000)),
  /** Estimated tokens per minute (sliding window); unset = unlimited. */
  tpm: z.optional(int(1, 1_000_000_000)),
  /** Requests in flight at once. */
  concurrency: z._default(int(1, 64), 4),
  /** Per request: no response headers or body progress within this long counts as a timeout (retried). */
  timeoutMs: z._default(int(10, 600_000), 60_000),
  /**
   * Per request, whole: a reply not complete within this long counts as a timeout (retried), even
   * if bytes keep trickling in. Bounds how long one request can hold a run and the index lock.
   */
  deadlineMs: z._default(int(10, 3_600_000), 120_000),
  /** Retries of one batch after 429, 5xx, resets, timeouts or a malformed response. */
  maxRetries: z._default(int(0, 20), 5),
  /** This many failed requests in a row open the circuit: the run ends, stored batches stay. */
  breakerThreshold: z._default(int(1, 1000), 8),
  /** Prepended to every document text / query (e.g. instruction-tuned models); part of the fingerprint. */
  inputPrefix: z.optional(z.string()),
  /** Refused with a pointer to apiKeyEnv; the value is never echoed. */
  apiKey: z.optional(
    z.never({ error: 'keys do not belong in config: set apiKeyEnv to the name of an environment variable holding it (got [redacted])' }),
  ),
  queryPrefix: z.optional(z.string()),
};

const remote = <P extends RemoteProvider>(provider: P) =>
  z.strictObject({ provider: z.literal(provider), ...remoteFields }).check(
    z.superRefine((c, ctx) => {
      const preset = PRESETS[provider];
      if (c.batchSize !== undefined && c.batchSize > preset.maxBatch) {
        ctx.addIssue({ code: 'custom', path: ['batchSize'], input: c.batchSize, message: `${provider} takes at most ${preset.maxBatch} inputs per request (got ${c.batchSize})` });
      }
      const model = c.model ?? preset.model;
      const allowed = model ? allowedDimensionsFor(provider, model) : undefined;
      if (c.dimensions !== undefined && allowed && !allowed.includes(c.dimensions)) {
        ctx.addIssue({ code: 'custom', path: ['dims'], input: c.dimensions, message: `${model} produces ${allowed.join('/')} dimensions (got ${c.dimensions})` });
      }
      if (provider === 'openai-compatible') {
        for (const f of ['baseUrl', 'model', 'dimensions'] as const) {
          if (c[f] === undefined) ctx.addIssue({ code: 'custom', path: [f === 'dimensions' ? 'dims' : f], message: 'required for provider "openai-compatible" (got none)' });
        }
      }
    }),
  );

export const EMBEDDER_PROVIDERS = [
  'hash', 'zhipu', 'siliconflow', 'openai', 'dashscope', 'openai-compatible', 'ollama', 'tei', 'llamacpp', 'lmstudio', 'vllm',
] as const;

const discriminated = z.discriminatedUnion(
  'provider',
  [
    hashEmbedderSchema,
    remote('zhipu'),
    remote('siliconflow'),
    remote('openai'),
    remote('dashscope'),
    remote('openai-compatible'),
    // Local servers: no key needed (apiKeyEnv optional); dimensions known for each preset's own model, else asked for.
    remote('ollama'),
    remote('tei'),
    remote('llamacpp'),
    remote('lmstudio'),
    remote('vllm'),
  ],
  {
    error: (iss) =>
      iss.code === 'invalid_union'
        ? `expected one of ${EMBEDDER_PROVIDERS.join('|')} (got ${JSON.stringify((iss.input as { provider?: unknown })?.provider)})${didYouMean(String((iss.input as { provider?: unknown })?.provider), EMBEDDER_PROVIDERS)}`
        : undefined,
  },
);

/**
 * An embedder without a provider is the hash one (configs written before remote providers existed).
 * The vector size is `dims` for every provider, `dimensions` another name for it: the hash embedder
 * holds it as `dims`, remote ones as `dimensions` (their APIs' word).
 */
export function normaliseEmbedder(v: unknown): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  const o: Record<string, unknown> = { ...v };
  if (!('provider' in o)) o.provider = 'hash';
  const [from, to] = o.provider === 'hash' ? ['dimensions', 'dims'] : ['dims', 'dimensions'];
  if (from in o && !(to in o)) {
    o[to] = o[from];
    delete o[from];
  }
  return o;
}

export const embedderSchema = z.pipe(z.transform(normaliseEmbedder), discriminated);

/** The embedder as written in a config file (for the published JSON Schema). */
export const embedderInputSchema = discriminated;

/** Where and how a chat or rerank block calls its provider: the embedder's field names and checks. */
const callFields = (timeoutMs: number, deadlineMs: number, maxRetries: number) => ({
  model: remoteFields.model,
  /** The API root (chat: POST {baseUrl}/chat/completions; rerank: the preset's endpoint under it). */
  baseUrl: remoteFields.baseUrl,
  apiKeyEnv: remoteFields.apiKeyEnv,
  apiKey: remoteFields.apiKey,
  timeoutMs: z._default(int(10, 600_000), timeoutMs),
  deadlineMs: z._default(int(10, 3_600_000), deadlineMs),
  maxRetries: z._default(int(0, 20), maxRetries),
});

const providerOf = <T extends readonly string[]>(names: T) =>
  z.enum(names, { error: (iss) => `expected one of ${names.join('|')} (got ${JSON.stringify(iss.input)})` });

/** openai-compatible has no preset: the block names where and what. */
const namesItsEndpoint = z.superRefine((c: { provider: string; baseUrl?: string; model?: string }, ctx) => {
  if (c.provider !== 'openai-compatible') return;
  for (const f of ['baseUrl', 'model'] as const) {
    if (c[f] === undefined) ctx.addIssue({ code: 'custom', path: [f], message: 'required for provider "openai-compatible" (got none)' });
  }
});

/** The chat model `POST /api/chat`, `ragsync ask` and the MCP tool `ask` answer with. */
export const chatSchema = z
  .strictObject({
    provider: providerOf(CHAT_PROVIDERS),
    ...callFields(60_000, 180_000, 2),
    temperature: z.optional(z.number().check(z.minimum(0), z.maximum(2))),
    maxOutputTokens: z.optional(int(16, 200_000)),
    /** Candidates retrieved (and reranked) per question. */
    candidates: z._default(int(1, 100), 20),
    /** Of those, the passages the model is given and may cite. */
    passages: z._default(int(1, 30), 6),
    /** Replaces the persona of the asked source's profile. */
    systemPrompt: z.optional(str1()),
    /** What counts as on topic when deciding whether to search (default: the profile's). */
    topic: z.optional(str1()),
    /** How the two sides are called in the prompts. */
    names: z.optional(z.strictObject({ user: z.optional(str1()), assistant: z.optional(str1()) })),
    /** Most messages of one conversation, and characters of one message (400 beyond). */
    maxMessages: z._default(int(1, 1000), 50),
    maxMessageChars: z._default(int(100, 200_000), 8000),
  })
  .check(namesItsEndpoint);

/** The second stage over the fused top N (without it, the RAGSYNC_RERANK_* variables still work). */
export const rerankSchema = z
  .strictObject({
    provider: providerOf(RERANK_PROVIDERS),
    ...callFields(5000, 10_000, 1),
    /** Candidates sent per query. */
    topN: z._default(int(1, 200), 20),
  })
  .check(namesItsEndpoint);

/**
 * HNSW build settings a config leaves out (storage/postgres/writer.ts builds with them). Twice
 * pgvector's own (16, 64): on 200k hash vectors of near-duplicate passages they lift recall@10 at
 * ef_search 200 from .72 to .83 for short queries and from .94 to .98 for passages, for about twice
 * the build time (docs/benchmarks/hnsw-scale.md).
 */
export const HNSW_DEFAULTS = { m: 32, efConstruction: 128 } as const;

export const configSchema = z
  .strictObject({
    /** The JSON Schema editors complete the file from (ignored by ragsync). */
    $schema: z.optional(z.string()),
    db: z._default(str1(), 'data/ragsync.db'),
    /** Folder holding git checkouts (default: "checkouts" beside the db). */
    checkouts: z.optional(str1()),
    embedder: z._default(embedderSchema, { provider: 'hash', dims: 1024, batchSize: 256 }),
    chat: z.optional(chatSchema),
    rerank: z.optional(rerankSchema),
    chunking: z._default(chunkingSchema, { targetTokens: 500, overlap: 0.15 }),
    sources: z.array(sourceSchema).check(z.minLength(1)),
    serve: z._default(serveSchema, { allowedHosts: [] }),
    daemon: z._default(daemonSchema, { schedule: '0 * * * *', runOnStart: false, stopTimeoutMs: 20_000, failuresToUnhealthy: 1, watchDebounceMs: 1000, leaseSeconds: 120 }),
    /**
     * Largest share (0..1) of a source's passages (distinct chunk texts) one run may drop — text of removed
     * or rewritten files found nowhere else in the source afterwards; more is refused unless confirmed.
     */
    maxDeleteShare: z._default(z.number().check(z.minimum(0), z.maximum(1)), 0.5),
    /**
     * Search defaults: `expand: false` turns query expansion off for every request. On a Postgres
     * index, `exact: true` ranks vectors by an exact scan instead of the HNSW index, and `efSearch`
     * sets the candidates an HNSW search keeps (pgvector's hnsw.ef_search; ragsync's default 200): higher
     * finds more of the true nearest at some cost in speed.
     */
    search: z._default(
      z.strictObject({ expand: z._default(z.boolean(), true), exact: z.optional(z.boolean()), efSearch: z.optional(int(1, 1000)) }),
      { expand: true },
    ),
    /**
     * How a Postgres index builds each embedder's HNSW graph (at the end of the run that first stores
     * its vectors; an index built with other settings is rebuilt at the end of the next run): `m`
     * neighbours per node (default 32), `efConstruction` candidates kept while inserting (default 128,
     * at least 2 × m), higher finding more of the true nearest at a given efSearch for a slower
     * build; `buildMemoryMb` the
     * build's maintenance_work_mem (default: what the graph needs, up to 2048; a graph that does not
     * fit is built on disk, many times slower).
     */
    hnsw: z.optional(
      z
        .strictObject({ m: z.optional(int(2, 100)), efConstruction: z.optional(int(4, 1000)), buildMemoryMb: z.optional(int(64, 1_048_576)) })
        .check(
          z.superRefine((h, ctx) => {
            const m = h.m ?? HNSW_DEFAULTS.m;
            const ef = h.efConstruction ?? HNSW_DEFAULTS.efConstruction;
            if (ef < 2 * m) ctx.addIssue({ code: 'custom', path: [h.efConstruction === undefined ? 'm' : 'efConstruction'], message: `efConstruction (${ef}) must be at least 2 × m (${m})` });
          }),
        ),
    ),
    /** pino level; $RAGSYNC_LOG_LEVEL wins over it. */
    logLevel: z.optional(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])),
  })
  .check(
    z.superRefine((c, ctx) => {
      const seen = new Set<string>();
      c.sources.forEach((s, i) => {
        if (seen.has(s.name)) ctx.addIssue({ code: 'custom', path: ['sources', i, 'name'], message: `duplicate source name "${s.name}"` });
        seen.add(s.name);
      });
    }),
  );

/** The keys an object in the config may have, by its path (for "did you mean" on a mistyped key). */
export function knownKeysAt(path: readonly PropertyKey[]): string[] {
  const at = path.map((p) => (typeof p === 'number' ? '[]' : String(p))).join('.');
  const keys: Record<string, string[]> = {
    '': Object.keys(configSchema.shape),
    embedder: [...new Set([...Object.keys(hashEmbedderSchema.shape), ...Object.keys(remoteFields), 'provider'])],
    chunking: Object.keys(chunkingSchema.shape),
    daemon: Object.keys(daemonSchema.shape),
    serve: Object.keys(serveSchema.shape),
    search: ['expand', 'exact', 'efSearch'],
    hnsw: ['m', 'efConstruction', 'buildMemoryMb'],
    'sources.[]': Object.keys(sourceSchema.shape),
    'sources.[].chunking': Object.keys(chunkingSchema.shape),
  };
  return keys[at] ?? [];
}

export type ConfigInput = z.input<typeof configSchema>;
export type ChunkingConfig = z.output<typeof chunkingSchema>;
export type EmbedderConfig = z.output<typeof embedderSchema>;
export type HashEmbedderConfig = Extract<EmbedderConfig, { provider: 'hash' }>;
export type RemoteEmbedderConfig = Exclude<EmbedderConfig, { provider: 'hash' }>;
export type DaemonConfig = z.output<typeof daemonSchema>;
export type ChatConfig = z.output<typeof chatSchema>;
export type RerankConfig = z.output<typeof rerankSchema>;
export type SourceConfigRaw = z.output<typeof sourceSchema>;
