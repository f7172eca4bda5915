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
        const [{ serveStdio }, { config, engineOf }] = await Promise.all([import('../../mcp/server.ts'), import('../options.ts')]);
        type Searcher = import('../../search/search.ts').Searcher;
        type Engine = import('../../engine/engine.ts').Engine;
        keepYoungGenerationSmall();
        // A config or index the user must fix is said on stderr and, for the client to show it, as
        // the answer to every tool call; the session itself starts (else clients see only "closed").
        let searcher: Searcher | Error;
        let answerer: Awaited<ReturnType<Engine['answerer']>> = null;
        let engine: Engine | null = null;
        try {
          engine = engineOf(config(o), { lifetime: 'long-lived' });
          searcher = await engine.searcher();
          answerer = await engine.answerer((l) => say(l, 'ragsync mcp'));
        } catch (err) {
          await engine?.close();
          const words = err instanceof RagsyncError ? err.message : describeIoError(err);
          if (!words) throw err;
          say(words);
          searcher = new RagsyncError(words, EXIT.usage);
        }
        // Engines opened over the config as the source tools changed it (the answerer keeps the first).
        const reopened: { engine: Engine; searcher: Searcher }[] = [];
        let tools: import('../../mcp/server.ts').SourceTools | undefined;
        if (o.manageSources) {
          const [{ sourceTools }, { resolveConfigPath }, { createLogger }] = await Promise.all([
            import('../source-tools.ts'),
            import('../../config/load.ts'),
            import('../../core/log.ts'),
          ]);
          const log = createLogger({ defaultLevel: 'warn' });
          tools = {
            ...sourceTools(resolveConfigPath(o.config), log, async (engine) => {
              reopened.push({ engine, searcher: await engine.searcher() });
            }),
            searcher: () => reopened.at(-1)?.searcher,
          };
        }
        try {
          await serveStdio(searcher, io, answerer, tools);
        } finally {
          // The session ends as any command with a bad config does: exit 2 (said once, above).
          for (const r of reopened) await r.engine.close();
          if (searcher instanceof Error) process.exitCode = EXIT.usage;
          else await engine?.close();
        }
      });
    });
}
