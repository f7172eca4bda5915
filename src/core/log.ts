import pino, { type Logger } from 'pino';
import { isatty } from 'node:tty';
import { prettyDestination, terminalJsonDestination } from './pretty-log.ts';
import { redactDeep } from './redact.ts';

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
  'password',
  '*.password',
  'headers.*',
  '*.headers.*',
];

/**
 * One-shot commands log JSON to stderr (fd 2) so that `--json` output on stdout stays clean;
 * the daemon passes fd 1.
 */
export function createLogger(opts: { level?: string; fd?: 1 | 2; configLevel?: string; defaultLevel?: string } = {}): Logger {
  const level = opts.level || process.env.RAGSYNC_LOG_LEVEL || process.env.LOG_LEVEL || opts.configLevel || opts.defaultLevel || 'info';
  const fd = opts.fd ?? 2;
  // Readable lines on a terminal; JSON everywhere else (pm2 logs, pipes) or when asked for.
  const tty = isatty(fd);
  const pretty = tty && process.env.RAGSYNC_LOG_FORMAT !== 'json';
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      // Messages and values too: an error's text may carry a URL with its password, a header, a key.
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((a) => redactDeep(a)) as Parameters<typeof method>);
        },
      },
    },
    pretty ? prettyDestination(fd) : tty ? terminalJsonDestination(fd) : pino.destination({ fd, sync: true }),
  );
}

/**
 * A logger that drops everything: the library default when the caller passes none. Its stream is
 * a no-op: pino's default one (buffered on stdout) would flush and fsync stdout at every exit —
 * tens of milliseconds when stdout is a file (`ragsync search … > out.json`, a cron log).
 */
export const silentLogger: Logger = pino({ level: 'silent' }, { write() {} });
