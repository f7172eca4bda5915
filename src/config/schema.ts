import { z } from 'zod';
import { validate as validCron } from 'node-cron';

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
    /** git: the upstream to clone (URL or local path). */
    url: z.string().min(1).optional(),
    branch: z.string().min(1).default('main'),
    /** git: where the checkout lives (default: <checkouts>/<name>); dir: the folder to index. */
    path: z.string().min(1).optional(),
    include: z.array(z.string().min(1)).min(1).default(['**/*.md']),
    exclude: z.array(z.string().min(1)).default([]),
    chunker: z.string().min(1).default('markdown'),
    chunking: chunkingSchema.partial().optional(),
    maxFileBytes: z.number().int().positive().default(2_000_000),
    /** Daemon: sync this source on its own cron schedule instead of the daemon's. */
    schedule: cronExpression.optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.kind === 'git' && !s.url) ctx.addIssue({ code: 'custom', path: ['url'], message: 'required for a git source' });
    if (s.kind === 'dir' && !s.path) ctx.addIssue({ code: 'custom', path: ['path'], message: 'required for a dir source' });
  });

export const embedderSchema = z
  .object({
    provider: z.literal('hash').default('hash'),
    dims: z.number().int().min(16).max(8192).default(1024),
    batchSize: z.number().int().positive().max(4096).default(256),
  })
  .strict();

export const configSchema = z
  .object({
    db: z.string().min(1).default('data/ragsync.db'),
    /** Folder holding git checkouts (default: "checkouts" beside the db). */
    checkouts: z.string().min(1).optional(),
    embedder: embedderSchema.default({ provider: 'hash', dims: 1024, batchSize: 256 }),
    chunking: chunkingSchema.default({ targetTokens: 500, overlap: 0.15 }),
    sources: z.array(sourceSchema).min(1),
    daemon: daemonSchema.default({ schedule: '0 * * * *', runOnStart: false, stopTimeoutMs: 20_000 }),
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
export type DaemonConfig = z.output<typeof daemonSchema>;
export type SourceConfigRaw = z.output<typeof sourceSchema>;
