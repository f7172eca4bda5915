import type { Command } from 'commander';
import { Searcher, MAX_K } from '../../search/search.ts';
import { searchJson, searchText } from '../format.ts';
import { collect, config, configOption, out, positiveInt } from '../options.ts';

export function register(program: Command): void {
  program
    .command('search')
    .description('search the index')
    .argument('<query>', 'what to look for')
    .addOption(configOption())
    .option('-s, --source <name>', 'only this source (repeatable)', collect)
    .option('-k, --k <n>', 'number of results', positiveInt('-k', MAX_K), 10)
    .option('--json', 'print a JSON array on stdout')
    .action(async (query: string, o) => {
      const cfg = config(o);
      const searcher = Searcher.open(cfg);
      try {
        const results = await searcher.search(query, { k: o.k, sources: o.source });
        out(o.json ? JSON.stringify(searchJson(results)) : searchText(results));
      } finally {
        await searcher.close();
      }
    });
}
