import type { Command } from 'commander';
import { Searcher, MAX_K } from '../../search/search.ts';
import { searchJson, searchText } from '../format.ts';
import { createEmbedder } from '../../embedding/create.ts';
import { createLogger } from '../../util/log.ts';
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
      const log = createLogger();
      const searcher = Searcher.open(cfg, createEmbedder(cfg.embedder, { log }));
      try {
        const results = await searcher.search(query, { k: o.k, sources: o.source });
        // Which vectors answered: in the text output and the log, never in the JSON array (the contract).
        const fingerprint = searcher.embedder.info.fingerprint;
        log.info({ fingerprint, results: results.length }, 'searched');
        out(o.json ? JSON.stringify(searchJson(results)) : `${searchText(results)}\n(embedder ${fingerprint})`);
      } finally {
        await searcher.close();
      }
    });
}
