import type { Command } from 'commander';
import { config, configOption, openExisting, out } from '../options.ts';

export function register(program: Command): void {
  program
    .command('gc')
    .description('delete vectors that no chunk references any more')
    .addOption(configOption())
    .option('--json', 'print JSON on stdout')
    .action(async (o) => {
      const store = openExisting(config(o));
      try {
        const r = await store.gc();
        out(o.json ? JSON.stringify(r) : `deleted ${r.vectors} unreferenced vectors`);
      } finally {
        await store.close();
      }
    });
}
