import type { Command } from 'commander';
import { configOption } from '../config-option.ts';
import { keepYoungGenerationSmall } from '../heap.ts';
import { RagsyncError, EXIT } from '../../core/errors.ts';
import { describeIoError } from '../../core/io-errors.ts';
import { say } from '../say.ts';

export function register(program: Command): void {
  program
    .command('mcp')
    .description('serve the index as an MCP server on stdio (tools: search, related; ask with a chat block)')
    .addOption(configOption())
    .option('--manage-sources', 'also the tools sourceAdd, sourceList, sourceRemove (they edit the config file and the index)')
    .action(async (o) => {
      // The answer to initialize first; the SDK, the config and the index when a message needs them.
      const { serveWithEarlyInitialize } = await import('../../mcp/front.ts');
      await serveWithEarlyInitialize(async (io) => {
        const [{ Searcher }, { serveStdio }, { config, withDimensions }] = await Promise.all([
          import('../../search/search.ts'),
          import('../../mcp/server.ts'),
          import('../options.ts'),
        ]);
        // After the SDK's code is loaded: V8 refuses a code cache made under other flags.
        keepYoungGenerationSmall();
        // A config or index the user must fix is said on stderr and, for the client to show it, as
        // the answer to every tool call; the session itself starts (else clients see only "closed").
        let searcher: InstanceType<typeof Searcher> | Error;
        let answerer: Awaited<ReturnType<typeof import('../answerer.ts').answererFor>> = null;
        try {
          const cfg = await withDimensions(config(o));
          searcher = Searcher.open(cfg);
          const { answererFor } = await import('../answerer.ts');
          answerer = await answererFor(cfg, searcher, (l) => say(l, 'ragsync mcp')).catch(async (err: unknown) => {
            await (searcher as InstanceType<typeof Searcher>).close();
            throw err;
          });
        } catch (err) {
          const words = err instanceof RagsyncError ? err.message : describeIoError(err);
          if (!words) throw err;
          say(words);
          searcher = new RagsyncError(words, EXIT.usage);
        }
        // Searchers opened over the config as the source tools changed it (the answerer keeps the first).
        const reopened: InstanceType<typeof Searcher>[] = [];
        let tools: import('../../mcp/server.ts').SourceTools | undefined;
        if (o.manageSources) {
          const [{ sourceTools }, { resolveConfigPath }, { createLogger }] = await Promise.all([
            import('../source-tools.ts'),
            import('../../config/load.ts'),
            import('../../core/log.ts'),
          ]);
          const log = createLogger({ defaultLevel: 'warn' });
          tools = {
            ...sourceTools(resolveConfigPath(o.config), log, async (cfg) => {
              reopened.push(Searcher.open(cfg));
            }),
            searcher: () => reopened.at(-1),
          };
        }
        try {
          await serveStdio(searcher, io, answerer, tools);
        } finally {
          // The session ends as any command with a bad config does: exit 2 (said once, above).
          await answerer?.close();
          for (const s of reopened) await s.close();
          if (searcher instanceof Error) process.exitCode = EXIT.usage;
          else await searcher.close();
        }
      });
    });
}
