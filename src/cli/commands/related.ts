import type { Command } from 'commander';
import { MAX_K } from '../../search/request.ts';
import { searchJson, searchText } from '../format.ts';
import { errorLine } from '../error-line.ts';
import { collect, config, configOption, engineOf, out, positiveInt } from '../options.ts';

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
      const engine = engineOf(config(o));
      try {
        const results = await (await engine.searcher()).related(o.source ? { source: o.source, path: ref } : ref, { k: o.k, sources: o.in });
        out(o.json ? JSON.stringify(searchJson(results)) : searchText(results));
      } finally {
        await engine.close();
      }
    });
}
