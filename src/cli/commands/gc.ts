import type { Command } from 'commander';
import { config, configOption, engineOf, openExisting, out } from '../options.ts';
import { collectGarbage } from '../../sync/gc.ts';
import { createLogger } from '../../core/log.ts';

export function register(program: Command): void {
  program
    .command('gc')
    .description('delete vectors that no chunk references any more')
    .addOption(configOption())
    .option('--drop-other-fingerprints', "also delete vectors of embedders other than the configured one (after switching model)")
    .option('--json', 'print JSON on stdout')
    .action(async (o) => {
      const cfg = config(o);
      const engine = engineOf(cfg);
      const store = openExisting(engine);
      try {
        const keepOnly = o.dropOtherFingerprints ? await engine.fingerprint() : undefined;
        // Takes the index lock (exit 75 while a run holds it) and spares what an unfinished run stored.
        const r = await collectGarbage(store, cfg.db, { keepOnly, log: createLogger({ configLevel: cfg.logLevel }) });
        const spared = r.sparedSince ? ` (kept those stored since ${r.sparedSince} by a run that did not finish)` : '';
        out(o.json ? JSON.stringify({ vectors: r.vectors }) : `deleted ${r.vectors} unreferenced vectors${spared}`);
      } finally {
        await store.close();
        await engine.close();
      }
    });
}
