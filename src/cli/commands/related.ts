import type { Command } from 'commander';
import { Searcher, MAX_K } from '../../search/search.ts';
import { searchJson, searchText } from '../format.ts';
import { errorLine } from '../error-line.ts';
import { collect, config, configOption, out, positiveInt, withDimensions } from '../options.ts';

export function register(program: Command): void {
  program
    .command('related')
    .description('documents most similar to a given one (itself excluded)')
    .argument('<path-or-id>', 'a document: its path, source:path as search prints it, or a chunk id from search --json')
    .addOption(configOption())
    .option('-s, --source <name>', 'the source the path belongs to')
    .option('--in <name>', 'only results from this source (repeatable)', collect)
    .option('-k, --k <n>', 'number of documents', positiveInt('-k', MAX_K), 10)
    .option('--json', 'print a JSON array on stdout')
    .configureOutput({ outputError: (str, write) => write(errorLine(str, { what: 'a path or id', command: 'related' })) })
    .action(async (ref: string, o) => {
      const searcher = Searcher.open(await withDimensions(config(o)), undefined, null, { oneShot: true });
      try {
        const results = await searcher.related(o.source ? { source: o.source, path: ref } : ref, { k: o.k, sources: o.in });
        out(o.json ? JSON.stringify(searchJson(results)) : searchText(results));
      } finally {
        await searcher.close();
      }
    });
}
