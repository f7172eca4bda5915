import type { Command } from 'commander';
import { createEmbedder } from '../../embedding/create.ts';
import { statusJson, statusText } from '../format.ts';
import { config, configOption, openExisting, out, positiveInt, withDimensions } from '../options.ts';

export function register(program: Command): void {
  program
    .command('status')
    .description('sources, vector coverage per embedder, recent runs')
    .addOption(configOption())
    .option('--json', 'print JSON on stdout')
    .option('-n, --runs <n>', 'how many runs to show', positiveInt('--runs', 1000), 10)
    .action(async (o) => {
      const cfg = config(o);
      const store = openExisting(cfg, { readOnly: true });
      try {
        const report = await store.status({ runs: o.runs });
        const active = createEmbedder((await withDimensions(cfg)).embedder).info.fingerprint;
        out(o.json ? JSON.stringify(statusJson(report, active)) : statusText(report, active));
      } finally {
        await store.close();
      }
    });
}
