import pino, { type Logger } from 'pino';
import { setTimeout as delay } from 'node:timers/promises';
import { embedderSchema } from '../../src/config/schema.ts';
import { createEmbedder } from '../../src/embedding/create.ts';
import { RemoteEmbedder, type RemoteDeps } from '../../src/embedding/remote/embedder.ts';
import { REDACT_PATHS } from '../../src/core/log.ts';
import type { FakeProvider } from './fake-provider.ts';

/** A pino logger whose lines (JSON strings) land in `lines`, with the production redaction paths. */
export function captureLog(level = 'debug'): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log = pino({ level, base: undefined, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, { write: (s: string) => void lines.push(s) });
  return { log, lines };
}

/** An openai-compatible embedder pointed at a fake provider; retries' delays are recorded (and really waited). */
export function fakeEmbedder(fake: FakeProvider, cfg: Record<string, unknown> = {}, deps: RemoteDeps = {}) {
  const delays: number[] = [];
  const parsed = embedderSchema.parse({
    provider: 'openai-compatible',
    baseUrl: fake.baseUrl,
    model: 'fake-model',
    dimensions: fake.opts.dims,
    timeoutMs: 2000,
    ...cfg,
  });
  const embedder = createEmbedder(parsed, {
    backoff: { baseMs: 10, maxMs: 200, random: () => 0.5 },
    sleep: async (ms, signal) => {
      delays.push(ms);
      await delay(ms, undefined, { signal });
    },
    ...deps,
  }) as RemoteEmbedder;
  return { embedder, delays };
}
