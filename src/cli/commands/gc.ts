import type { Command } from 'commander';
import { config, configOption, out } from '../options.ts';
import { createEmbedder } from '../../embedding/create.ts';
import { openIndex } from '../../storage/open.ts';
import { acquireIndexLock } from '../../sync/lock.ts';

export function register(program: Command): void {
  program
    .command('gc')
    .description('delete vectors that no chunk references any more')
    .addOption(configOption())
    .option('--drop-other-fingerprints', "also delete vectors of embedders other than the configured one (after switching model)")
    .option('--json', 'print JSON on stdout')
    .action(async (o) => {
      const cfg = config(o);
      const store = openIndex(cfg, 'maintain');
      try {
        const keepOnly = o.dropOtherFingerprints ? createEmbedder(cfg.embedder).info.fingerprint : undefined;
        // The index lock, as a run takes it: a run stores vectors before the documents that use
        // them, so a gc beside it would delete what it just paid for. A busy index exits 75.
        const lock = await acquireIndexLock(store, cfg.db);
        let r;
        try {
          r = await store.gc({ keepOnly });
        } finally {
          await lock.release();
        }
        const spared = r.spared ? ` (kept ${r.spared} stored by runs that did not finish: the next run uses them)` : '';
        out(o.json ? JSON.stringify(r) : `deleted ${r.vectors} unreferenced vectors${spared}`);
      } finally {
        await store.close();
      }
    });
}
