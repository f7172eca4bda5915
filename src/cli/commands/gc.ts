import type { Command } from 'commander';
import { config, configOption, openExisting, out, withDimensions } from '../options.ts';
import { createEmbedder } from '../../embedding/create.ts';

export function register(program: Command): void {
  program
    .command('gc')
    .description('delete vectors that no chunk references any more')
    .addOption(configOption())
    .option('--drop-other-fingerprints', "also delete vectors of embedders other than the configured one (after switching model)")
    .option('--json', 'print JSON on stdout')
    .action(async (o) => {
      const cfg = config(o);
      const store = openExisting(cfg);
      try {
        const keepOnly = o.dropOtherFingerprints ? createEmbedder((await withDimensions(cfg)).embedder).info.fingerprint : undefined;
        const r = await store.gc({ keepOnly });
        out(o.json ? JSON.stringify(r) : `deleted ${r.vectors} unreferenced vectors`);
      } finally {
        await store.close();
      }
    });
}
