import type { Command } from 'commander';
import { statusJson, statusText } from '../format.ts';
import { storeHealth } from '../../daemon/health.ts';
import { healthOptions } from '../../daemon/schedule.ts';
import { config, configOption, engineOf, openExisting, out, positiveInt } from '../options.ts';

export function register(program: Command): void {
  program
    .command('status')
    .description('health verdict, sources, vector coverage per embedder, recent runs')
    .addOption(configOption())
    .option('--json', 'print JSON on stdout')
    .option('-n, --runs <n>', 'how many runs to show', positiveInt('--runs', 1000), 10)
    .action(async (o) => {
      const cfg = config(o);
      const engine = engineOf(cfg);
      const store = openExisting(engine, { readOnly: true });
      try {
        const report = await store.status({ runs: o.runs });
        const health = await storeHealth(store, healthOptions(cfg));
        const active = await engine.fingerprint();
        out(o.json ? JSON.stringify(statusJson(report, active, health)) : statusText(report, active, health));
      } finally {
        await store.close();
        await engine.close();
      }
    });
}
