import { z } from 'zod';
import { PRESETS, allowedDimensionsFor, type RemoteProvider } from './presets.ts';
import { createRequire } from 'node:module';
import { unsafeGitUrl } from './git-url.ts';

// node-cron loads only when a config has a schedule to check (its import costs every command ~30 ms).
const validCron = (expr: string): boolean =>
  (createRequire(import.meta.url)('node-cron') as typeof import('node-cron')).validate(expr);

const name = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'letters, digits, "_", "-" or "." only');

/** A node-cron expression: 5 fields, or 6 with seconds first. */
const cronExpression = z
  .string()
  .min(1)
  .refine((v) => validCron(v), {
    error: (iss) => `not a valid cron expression (5 fields, or 6 with seconds first) (got ${JSON.stringify(iss.input)})`,
  });

function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export const daemonSchema = z
  .object({
    /** When `ragsync daemon` syncs every source without a schedule of its own. */
    schedule: cronExpression.default('0 * * * *'),
    /** IANA zone the schedules are read in (default: the system's). */
    timezone: z
      .string()
      .min(1)
      .refine(validTimeZone, { error: (iss) => `not a known IANA time zone (got ${JSON.stringify(iss.input)})` })
      .optional(),
    /** Also run once when the daemon starts. */
    runOnStart: z.boolean().default(false),
    /** On SIGTERM/SIGINT, how long to wait for the current batch before giving up. */
    stopTimeoutMs: z.number().int().min(1000).max(600_000).default(20_000),
    /** /healthz (and `status`) turn unhealthy after this many failed runs in a row. */
    failuresToUnhealthy: z.number().int().min(1).max(1000).default(1),
  })
  .strict();

export const chunkingSchema = z
  .object({
    /** Target chunk size in estimated tokens (a CJK character counts as one). */
    targetTokens: z.number().int().min(50).max(8000).default(500),
    /** Fraction of the target carried over from the previous chunk. */
    overlap: z.number().min(0).max(0.5).default(0.15),
  })
  .strict();

export const sourceSchema = z
  .object({
    name,
    kind: z.enum(['git', 'dir']).default('git'),
    /** git: the upstream to clone (URL or local path). Never an option or a transport-helper command. */
    url: z
      .string()
      .min(1)
      .refine((u) => unsafeGitUrl(u) === null, { error: (iss) => `${unsafeGitUrl(String(iss.input))} (got ${JSON.stringify(iss.input)})` })
      .optional(),
    branch: z
      .string()
      .min(1)
      // Not an option ("-…"), no whitespace, control or revision-syntax characters: a branch name git accepts.
      .regex(/^(?!-)(?!.*\.\.)[^\s~^:?*[\\\x00-\x1f\x7f]+$/, 'not a valid branch name')
      .default('main'),
    /** git: where the checkout lives (default: <checkouts>/<name>); dir: the folder to index. */
    path: z.string().min(1).optional(),
    include: z.array(z.string().min(1)).min(1).default(['**/*.md']),
    exclude: z.array(z.string().min(1)).default([]),
    chunker: z.string().min(1).default('markdown'),
    /** The profile whose analysis, filters and result fields apply (default: the one bringing the chunker). */
    profile: z.string().min(1).optional(),
    chunking: chunkingSchema.partial().optional(),
    maxFileBytes: z.number().int().positive().default(2_000_000),
    /** Daemon: sync this source on its own cron schedule instead of the daemon's. */
    schedule: cronExpression.optional(),
    /** This source may list no files and so lose every document (else such a run is refused). */
    allowEmpty: z.boolean().default(false),
    /** Largest share of this source's documents one run may delete (default: the top-level maxDeleteShare). */
    maxDeleteShare: z.number().min(0).max(1).optional(),
    /** Build and use the corpus lexicon (English → Chinese words) for this source (default: its profile's choice). */
    lexicon: z.boolean().optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.kind === 'git' && !s.url) ctx.addIssue({ code: 'custom', path: ['url'], message: 'required for a git source' });
    if (s.kind === 'dir' && !s.path) ctx.addIssue({ code: 'custom', path: ['path'], message: 'required for a dir source' });
  });

const hashEmbedderSchema = z
  .object({
    provider: z.literal('hash'),
    dims: z.number().int().min(16).max(8192).default(1024),
    batchSize: z.number().int().positive().max(4096).default(256),
  })
  .strict();

const int = (min: number, max: number) => z.number().int().min(min).max(max);

/** Fields every remote provider takes; unset ones come from the provider's preset (src/config/presets.ts). */
const remoteFields = {
  model: z.string().min(1).optional(),
  /** The API root; POST {baseUrl}/embeddings (Ollama: /api/embed, TEI: /embed). */
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  dimensions: int(1, 16384).optional(),
  /** Name of the environment variable (or .env entry) holding the API key: the key itself never goes in config. */
  apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name').optional(),
  /** Texts per request (at most the provider's maximum). */
  batchSize: int(1, 4096).optional(),
  /** Longer inputs are truncated (and logged by text hash). */
  maxInputTokens: int(16, 1_000_000).optional(),
  /** Requests per minute (sliding window); unset = unlimited. */
  rpm: int(1, 1_000_000).optional(),
  /** Estimated tokens per minute (sliding window); unset = unlimited. */
  tpm: int(1, 1_000_000_000).optional(),
  /** Requests in flight at once. */
  concurrency: int(1, 64).default(4),
  /** Per request: no response headers or body progress within this long counts as a timeout (retried). */
  timeoutMs: int(10, 600_000).default(60_000),
  /**
   * Per request, whole: a reply not complete within this long counts as a timeout (retried), even
   * if bytes keep trickling in. Bounds how long one request can hold a run and the index lock.
   */
  deadlineMs: int(10, 3_600_000).default(120_000),
  /** Retries of one batch after 429, 5xx, resets, timeouts or a malformed response. */
  maxRetries: int(0, 20).default(5),
  /** This many failed requests in a row open the circuit: the run ends, stored batches stay. */
  breakerThreshold: int(1, 1000).default(8),
  /** Prepended to every document text / query (e.g. instruction-tuned models); part of the fingerprint. */
  inputPrefix: z.string().optional(),
  /** Refused with a pointer to apiKeyEnv; the value is never echoed. */
  apiKey: z
    .never({ error: 'keys do not belong in config: set apiKeyEnv to the name of an environment variable holding it (got [redacted])' })
    .optional(),
  queryPrefix: z.string().optional(),
};

const remote = <P extends RemoteProvider>(provider: P) =>
  z
    .object({ provider: z.literal(provider), ...remoteFields })
    .strict()
    .superRefine((c, ctx) => {
      const preset = PRESETS[provider];
      if (c.batchSize !== undefined && c.batchSize > preset.maxBatch) {
        ctx.addIssue({ code: 'custom', path: ['batchSize'], input: c.batchSize, message: `${provider} takes at most ${preset.maxBatch} inputs per request (got ${c.batchSize})` });
      }
      const model = c.model ?? preset.model;
      const allowed = model ? allowedDimensionsFor(provider, model) : undefined;
      if (c.dimensions !== undefined && allowed && !allowed.includes(c.dimensions)) {
        ctx.addIssue({ code: 'custom', path: ['dimensions'], input: c.dimensions, message: `${model} produces ${allowed.join('/')} dimensions (got ${c.dimensions})` });
      }
      if (provider === 'openai-compatible') {
        for (const f of ['baseUrl', 'model', 'dimensions'] as const) {
          if (c[f] === undefined) ctx.addIssue({ code: 'custom', path: [f], message: 'required for provider "openai-compatible" (got none)' });
        }
      }
    });

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
        ? `expected one of ${EMBEDDER_PROVIDERS.join('|')} (got ${JSON.stringify((iss.input as { provider?: unknown })?.provider)})`
        : undefined,
  },
);

/** An embedder without a provider is the hash one (configs written before remote providers existed). */
export const embedderSchema = z.preprocess(
  (v) => (v && typeof v === 'object' && !Array.isArray(v) && !('provider' in v) ? { ...v, provider: 'hash' } : v),
  discriminated,
);

export const configSchema = z
  .object({
    db: z.string().min(1).default('data/ragsync.db'),
    /** Folder holding git checkouts (default: "checkouts" beside the db). */
    checkouts: z.string().min(1).optional(),
    embedder: embedderSchema.default({ provider: 'hash', dims: 1024, batchSize: 256 }),
    chunking: chunkingSchema.default({ targetTokens: 500, overlap: 0.15 }),
    sources: z.array(sourceSchema).min(1),
    daemon: daemonSchema.default({ schedule: '0 * * * *', runOnStart: false, stopTimeoutMs: 20_000, failuresToUnhealthy: 1 }),
    /** Largest share (0..1) of a source's documents one run may delete; more is refused unless confirmed. */
    maxDeleteShare: z.number().min(0).max(1).default(0.5),
    /** Search defaults: `expand: false` turns query expansion off for every request. */
    search: z.object({ expand: z.boolean().default(true) }).strict().default({ expand: true }),
    /** pino level; $RAGSYNC_LOG_LEVEL wins over it. */
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.sources.forEach((s, i) => {
      if (seen.has(s.name)) ctx.addIssue({ code: 'custom', path: ['sources', i, 'name'], message: `duplicate source name "${s.name}"` });
      seen.add(s.name);
    });
  });

export type ConfigInput = z.input<typeof configSchema>;
export type ChunkingConfig = z.output<typeof chunkingSchema>;
export type EmbedderConfig = z.output<typeof embedderSchema>;
export type HashEmbedderConfig = Extract<EmbedderConfig, { provider: 'hash' }>;
export type RemoteEmbedderConfig = Exclude<EmbedderConfig, { provider: 'hash' }>;
export type DaemonConfig = z.output<typeof daemonSchema>;
export type SourceConfigRaw = z.output<typeof sourceSchema>;
