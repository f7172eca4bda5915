import type { Command } from 'commander';
import type { Config } from '../../config/load.ts';
import { createLogger } from '../../core/log.ts';
import { onStopSignals } from '../../daemon/signals.ts';
import { idleLine, indexJson, indexText } from '../format.ts';
import { say } from '../say.ts';
import { progressBar } from '../progress.ts';
import { colorsOn, painter } from '../color.ts';
import { collect, config, configOption, engineOf, out, positiveInt } from '../options.ts';
import { withRateLimits } from '../../config/rate-limits.ts';
import { keepOldGenerationTight } from '../heap.ts';

export function register(program: Command): void {
  program
    .command('index')
    .description('pull each source, then chunk and embed what changed')
    .addOption(configOption())
    .option('-s, --source <name>', 'only this source (repeatable)', collect)
    .option('--dry-run', 'print the plan; write nothing, embed nothing')
    .option('--force', 're-chunk every file and re-embed every chunk text (also lets deletions over maxDeleteShare through)')
    .option('--allow-empty', 'a source that lists no files may lose all its documents this run')
    .option('--allow-delete', "deletions over a source's maxDeleteShare go through this run")
    .option('--max-docs <n>', 'write at most n changed documents this run', positiveInt('--max-docs'))
    .option('--rpm <n>', 'embedding requests per minute (overrides embedder.rpm)', positiveInt('--rpm'))
    .option('--tpm <n>', 'embedding tokens per minute, estimated (overrides embedder.tpm)', positiveInt('--tpm'))
    .option('--tick <id>', 'Postgres workers: runs given the same tick index each source once between them (e.g. the crontab\'s minute)')
    .option('--json', 'print the result as one JSON line on stdout (the default when stdout is not a terminal)')
    .option('-v, --verbose', 'list every file in the plan (as text, also when piped) and log each step on stderr')
    .addHelpText(
      'after',
      `
Each source's summary line reads:
  NAME STATUS @BEFORE→AFTER  docs +added ~changed -deleted >renamed =unchanged !skipped
  chunks N (M reused)  texts embedded T   (a dry run: texts to embed)
documents are files, chunks are passages, texts are the distinct chunk texts sent to the embedder.
On a terminal: this summary; piped or with --json: one JSON line. Warnings and errors go to stderr.
Exit codes: 0 ok, 1 failed or stopped, 2 bad flags or config, 3 partial, 75 locked by another run.`,
    )
    .action(async (o) => {
      keepOldGenerationTight();
      await indexAndReport(config(o), o);
    });
}

/** Flags of `index` that `indexAndReport` reads (`source add --index` passes a few). */
export interface IndexFlags {
  source?: string[];
  dryRun?: boolean;
  force?: boolean;
  maxDocs?: number;
  rpm?: number;
  tpm?: number;
  json?: boolean;
  verbose?: boolean;
  allowEmpty?: boolean;
  allowDelete?: boolean;
  tick?: string;
}

/** One index run, reported as `index` reports it; its exit code set on the process. */
export async function indexAndReport(base: Config, o: IndexFlags): Promise<void> {
  // The summary below is the run's one report: step logs only when asked (-v, config or env).
  const log = createLogger(o.verbose ? { level: 'info' } : { configLevel: base.logLevel, defaultLevel: 'warn' });
  const engine = engineOf(withRateLimits(base, o.rpm, o.tpm), { log });
  const bar = progressBar();
  // SIGTERM/SIGINT: stop after the batch in flight commits; the run is recorded 'aborted'.
  const stop = new AbortController();
  const off = onStopSignals((signal) => {
    log.warn({ signal }, 'stopping after the batch in flight');
    stop.abort();
  });
  let result;
  try {
    result = await engine.index(
      {
        sources: o.source,
        dryRun: !!o.dryRun,
        force: !!o.force,
        maxDocs: o.maxDocs,
        log,
        signal: stop.signal,
        allowEmpty: !!o.allowEmpty,
        allowDelete: !!o.allowDelete,
        ...(o.tick ? { tick: o.tick } : {}),
      },
      bar,
    );
  } finally {
    off();
    bar.end();
    await engine.close();
  }
  const json = o.json || (!process.stdout.isTTY && !o.verbose);
  out(json ? JSON.stringify(indexJson(result)) : indexText(result, !!o.verbose, painter(colorsOn())));
  if (result.idle) say(idleLine(result.idle));
  process.exitCode = result.exitCode;
}
