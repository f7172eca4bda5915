import pino, { type Logger } from 'pino';

export type { Logger };

/** Paths pino blanks out wherever they appear, so an API key passed along by mistake never reaches a log line. */
export const REDACT_PATHS = [
  'apiKey',
  '*.apiKey',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'key',
  '*.key',
  'token',
  '*.token',
];

/**
 * One-shot commands log JSON to stderr (fd 2) so that `--json` output on stdout stays clean;
 * the daemon passes fd 1.
 */
export function createLogger(opts: { level?: string; fd?: 1 | 2 } = {}): Logger {
  const level = opts.level ?? process.env.RAGSYNC_LOG_LEVEL ?? process.env.LOG_LEVEL ?? 'info';
  return pino(
    { level, base: undefined, redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
    pino.destination({ fd: opts.fd ?? 2, sync: true }),
  );
}

/** A logger that drops everything: the library default when the caller passes none. */
export const silentLogger: Logger = pino({ level: 'silent' });
