import type { Command } from 'commander';
import { selectSources } from '../../config/select.ts';
import { config, configOption, openExisting } from '../options.ts';

export function register(program: Command): void {
  program
    .command('export')
    .description('every chunk as JSON lines: id, source, path, heading, content, metadata, textHash')
    .addOption(configOption())
    .option('-s, --source <name>', 'only this source')
    .action(async (o) => {
      const cfg = config(o);
      if (o.source) selectSources(cfg, [o.source]);
      const store = openExisting(cfg, { readOnly: true });
      try {
        for await (const row of store.exportChunks(o.source)) {
          if (!process.stdout.write(JSON.stringify(row) + '\n')) await new Promise((r) => process.stdout.once('drain', r));
        }
      } finally {
        await store.close();
      }
    });
}
