import type { Command } from 'commander';
import { resolve } from 'node:path';
import { isDatabaseUrl, shownDb } from '../../core/db-url.ts';
import { EXIT, RagsyncError } from '../../core/errors.ts';
import { createLogger } from '../../core/log.ts';
import { indexes } from '../../engine/engine.ts';
import { copyIndex, describe } from '../../sync/copy.ts';
import { config, configOption, out } from '../options.ts';
import { summaryOf } from '../help.ts';

/** A file name as the working directory sees it; a server URL as given. */
const located = (db: string) => (isDatabaseUrl(db) ? db : resolve(db));

export function register(program: Command): void {
  program
    .command('copy')
    .description(summaryOf('copy'))
    .addOption(configOption())
    .requiredOption('--to <db>', 'the target: a SQLite file or a postgres:// URL (empty, or new)')
    .option('--from <db>', "the index to copy (default: the config's db)")
    .option('--json', 'print JSON on stdout')
    .action(async (o: { config?: string; to: string; from?: string; json?: boolean }) => {
      const cfg = o.from ? null : config(o);
      const from = o.from ? located(o.from) : cfg!.db;
      const to = located(o.to);
      if (from === to) throw new RagsyncError(`--to names the index being copied (${shownDb(to)}): give another target`, EXIT.usage);
      const source = indexes.open({ db: from }, 'admin', { readOnly: true });
      try {
        const target = indexes.open({ db: to }, 'sync');
        try {
          const r = await copyIndex(source, { store: target, db: to }, { log: createLogger({ configLevel: cfg?.logLevel, fd: 2 }) });
          out(
            o.json
              ? JSON.stringify({ from: shownDb(from), to: shownDb(to), ...r.to })
              : `copied ${shownDb(from)} to ${shownDb(to)}: ${describe(r.to)}; the target holds the same chunk texts and vectors`,
          );
        } finally {
          await target.close();
        }
      } finally {
        await source.close();
      }
    });
}
