import { Option, type Command } from 'commander';
import { MAX_K, MODES } from '../../search/request.ts';
import { evalText, readEvalFile, runEval } from '../../search/eval.ts';
import { config, configOption, engineOf, out, positiveInt } from '../options.ts';
import { parseWeights } from '../../search/request.ts';

export function register(program: Command): void {
  program
    .command('eval')
    .description('score retrieval on a JSONL file of queries with gold paths: hit@1/3/10 and MRR@10')
    .argument('<file>', 'JSONL: {"id","query","kind"?,"source"?,"gold":[{"path","evidence":[…]}]}')
    .addOption(configOption())
    .option('-s, --source <name>', 'source for lines that name none')
    .option('-k, --k <n>', 'results fetched per query (at least 10)', positiveInt('-k', MAX_K), 10)
    .addOption(new Option('--mode <mode>', 'ranking').choices(MODES).default('hybrid'))
    .option('--mmr <lambda>', 'MMR lambda (1 = off)', Number)
    .option('--weights <v,k>', 'RRF weights of the vector and keyword lists', parseWeights)
    .option('--no-dedupe', 'keep near-identical passages')
    .option('--results <file>', 'write each query\'s ranked results as JSONL')
    .option('--json', 'print the report as JSON')
    .action(async (file: string, o) => {
      const cases = readEvalFile(file);
      // Many queries: the searcher keeps the vectors in memory, as a server does.
      const engine = engineOf(config(o), { lifetime: 'long-lived' });
      try {
        const report = await runEval(await engine.searcher(), cases, {
          source: o.source,
          k: o.k,
          mode: o.mode,
          mmr: o.mmr,
          dedupe: o.dedupe,
          weights: o.weights,
          resultsFile: o.results,
        });
        out(o.json ? JSON.stringify(report) : evalText(report));
      } finally {
        await engine.close();
      }
    });
}
