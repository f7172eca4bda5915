import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { loadConfig, type Config } from '../config/load.ts';
import { createEmbedder } from '../embedding/create.ts';
import { runIndex, selectSources, STATUS_EXIT } from '../sync/run.ts';
import { Searcher, MAX_K } from '../search/search.ts';
import { SqliteStore } from '../storage/sqlite.ts';
import { createLogger } from '../util/log.ts';
import { RagsyncError, EXIT, errorMessage } from '../util/errors.ts';
import { existsSync } from 'node:fs';
import { indexJson, indexText, searchJson, searchText, statusText } from './format.ts';
import { progressBar } from './progress.ts';

const out = (s: string) => process.stdout.write(s.endsWith('\n') ? s : s + '\n');

function positiveInt(name: string, max = Number.MAX_SAFE_INTEGER) {
  return (v: string) => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < 1 || n > max) throw new InvalidArgumentError(`${name} must be an integer from 1 to ${max} (got "${v}")`);
    return n;
  };
}

const collect = (v: string, prev: string[] = []) => [...prev, v];

function config(opts: { config?: string }): Config {
  return loadConfig(opts.config);
}

function openExisting(cfg: Config): SqliteStore {
  if (!existsSync(cfg.db)) throw new RagsyncError(`no index at ${cfg.db}: run "ragsync index" first`);
  return new SqliteStore(cfg.db);
}

export function buildProgram(): Command {
  const program = new Command('ragsync')
    .description('Keep a retrieval index in sync with Markdown in git repositories.')
    .showHelpAfterError()
    .exitOverride();
  const configOption = () => new Option('-c, --config <file>', 'config file (default: $RAGSYNC_CONFIG or config/ragsync.json)');

  program
    .command('index')
    .description('pull each source, then chunk and embed what changed')
    .addOption(configOption())
    .option('-s, --source <name>', 'only this source (repeatable)', collect)
    .option('--dry-run', 'print the plan; write nothing, embed nothing')
    .option('--force', 're-chunk every file and re-embed every chunk text')
    .option('--max-docs <n>', 'write at most n changed documents this run', positiveInt('--max-docs'))
    .option('--json', 'print the result as one JSON object on stdout')
    .option('-v, --verbose', 'list every file in the plan')
    .action(async (o) => {
      const cfg = config(o);
      const log = createLogger();
      const bar = progressBar();
      const result = await runIndex(
        cfg,
        { sources: o.source, dryRun: !!o.dryRun, force: !!o.force, maxDocs: o.maxDocs, log },
        bar,
      );
      bar.end();
      out(o.json ? JSON.stringify(indexJson(result)) : indexText(result, !!o.verbose));
      process.exitCode = STATUS_EXIT[result.status];
    });

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

  program
    .command('status')
    .description('sources, vector coverage per embedder, recent runs')
    .addOption(configOption())
    .option('--json', 'print JSON on stdout')
    .option('-n, --runs <n>', 'how many runs to show', positiveInt('--runs', 1000), 10)
    .action(async (o) => {
      const cfg = config(o);
      const store = openExisting(cfg);
      try {
        const report = await store.status({ runs: o.runs });
        const active = createEmbedder(cfg.embedder).info.fingerprint;
        out(o.json ? JSON.stringify({ activeFingerprint: active, ...report }) : statusText(report, active));
      } finally {
        await store.close();
      }
    });

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

  program
    .command('export')
    .description('every chunk as JSON lines: id, source, path, heading, content, metadata, textHash')
    .addOption(configOption())
    .option('-s, --source <name>', 'only this source')
    .action(async (o) => {
      const cfg = config(o);
      if (o.source) selectSources(cfg, [o.source]);
      const store = openExisting(cfg);
      try {
        for await (const row of store.exportChunks(o.source)) {
          if (!process.stdout.write(JSON.stringify(row) + '\n')) await new Promise((r) => process.stdout.once('drain', r));
        }
      } finally {
        await store.close();
      }
    });

  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return Number(process.exitCode ?? 0);
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? 0 : EXIT.usage;
    }
    if (err instanceof RagsyncError) {
      process.stderr.write(`ragsync: ${err.message}\n`);
      return err.exitCode;
    }
    process.stderr.write(`ragsync: internal error: ${errorMessage(err)}\n`);
    if (process.env.RAGSYNC_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
    return EXIT.failed;
  }
}
