import { Option, InvalidArgumentError, type Command } from 'commander';
import { builtinProfiles } from '../../builtin.ts';
import { DEFAULT_PER_DOC, MAX_K, MODES, parseWeights, type SearchOptions } from '../../search/request.ts';
import { expansionsText, searchJson, searchText, stagesText } from '../format.ts';
import { errorLine } from '../error-line.ts';
import { createLogger } from '../../core/log.ts';
import { collect, config, configOption, engineOf, out, positiveInt } from '../options.ts';
import { say } from '../say.ts';

const number = (name: string) => (v: string) => {
  const n = Number(v);
  if (!v.trim() || !Number.isFinite(n)) throw new InvalidArgumentError(`${name} must be a number (got "${v}")`);
  return n;
};

export function register(program: Command): void {
  const cmd = program
    .command('search')
    .description('search the index (hybrid: vector + keyword by reciprocal rank fusion)')
    .argument('<query>', 'what to look for')
    .addOption(configOption())
    .option('-s, --source <name>', 'only this source (repeatable)', collect)
    .option('-k, --k <n>', 'number of results', positiveInt('-k', MAX_K), 10)
    .addOption(new Option('--mode <mode>', 'ranking').choices(MODES).default('hybrid'))
    .option('--path <glob>', 'document path glob')
    .option('--min-score <x>', 'drop results scoring below', number('--min-score'))
    .option('--weights <v,k>', 'RRF weights of the vector and keyword lists (default 1,1)', parseWeights)
    .option('--mmr <lambda>', 'diversify with MMR (0..1, 1 = off)', number('--mmr'))
    .option('--half-life <days>', 'temporal decay on added date', number('--half-life'))
    .option('--no-dedupe', 'keep near-identical passages')
    .option('--per-doc <n>', `at most N results from one document (default ${DEFAULT_PER_DOC} in hybrid mode; 0 = no cap)`, number('--per-doc'))
    .option('--include-broken', 'include chunks marked broken')
    .option('--no-rerank', 'skip the configured reranker (the rerank block, or DASHSCOPE_API_KEY)')
    .option('--explain', 'show each result\'s component ranks and scores, the query\'s expansions, and each stage\'s time and work (with --json: on stderr)')
    .option('--no-expand', 'search the query\'s own words only (no synonyms, glossary or cross-lingual terms)')
    .option('--json', 'print a JSON array on stdout')
    .option('-v, --verbose', 'also log (which embedder answered, how many results) on stderr')
    .addHelpText(
      'after',
      `
Scores depend on --mode: hybrid gives fused RRF scores (at most 0.0328 with weights 1,1, so a
--min-score there is small, e.g. 0.02), vector gives cosine similarity (-1..1), keyword gives
-bm25 (higher is better, no fixed bound). A query that starts with "-" goes after --.`,
    )
    .configureOutput({ outputError: (str, write) => write(errorLine(str, { what: 'a query', command: 'search' })) });
  // Each profile's filters are flags of their own (--book, --tag, --month …).
  const specs = builtinProfiles.filters();
  for (const f of specs) {
    const known = f.values?.length ? `: ${[...f.values, ...(f.any ? [f.any] : [])].join('|')}` : '';
    if (f.kind === 'all-of') cmd.option(`--${f.name} <value>`, `${f.description}${known}`, collect);
    else cmd.option(`--${f.name} <value>`, `${f.description}${known}`);
  }
  cmd.action(async (query: string, o) => {
      // Results only: logs at warn unless asked for (-v, or RAGSYNC_LOG_LEVEL).
      const log = createLogger(o.verbose ? { level: 'info' } : { defaultLevel: 'warn' });
      // One query, then exit: stream the vectors rather than load them all (storage/ranking/vector-scan.ts),
      // and read chunk facts for the ranked ids only.
      const engine = engineOf(config(o), { log, rerank: o.rerank });
      try {
        const searcher = await engine.searcher();
        const filters: Record<string, string | string[]> = {};
        // commander names the value of --symbol-type symbolType.
        for (const f of specs) {
          const v = o[f.name.replace(/-([a-z])/g, (_: string, c: string) => c.toUpperCase())];
          if (v !== undefined) filters[f.name] = v;
        }
        const opts: SearchOptions = {
          k: o.k,
          sources: o.source,
          mode: o.mode,
          filters,
          path: o.path,
          minScore: o.minScore,
          mmr: o.mmr,
          weights: o.weights,
          halfLifeDays: o.halfLife,
          dedupe: o.dedupe,
          perDoc: o.perDoc,
          includeBroken: o.includeBroken,
          explain: o.explain,
          expand: o.expand,
        };
        const { results, rerankError, expansions, stages } = await searcher.searchDetailed(query, opts);
        if (rerankError) say(`rerank failed, fused order kept: ${rerankError}`);
        // Which vectors answered: in the text output and the log, never in the JSON array (the contract).
        const fingerprint = searcher.embedder.info.fingerprint;
        log.info({ fingerprint, results: results.length }, 'searched');
        const shown = o.explain && !o.json ? `${expansionsText(expansions ?? [])}\n${stagesText(stages ?? [])}\n` : '';
        // The JSON array is the contract: the search's own explanation goes beside it, on stderr.
        if (o.explain && o.json) process.stderr.write(`${JSON.stringify({ expansions: expansions ?? [], stages: stages ?? [] })}\n`);
        out(o.json ? JSON.stringify(searchJson(results)) : `${shown}${searchText(results)}\n(embedder ${fingerprint})`);
      } finally {
        await engine.close();
      }
    });
}
