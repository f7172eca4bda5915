import type { Command } from 'commander';
import { configOption } from '../config-option.ts';
import { keepYoungGenerationSmall } from '../heap.ts';

export function register(program: Command): void {
  program
    .command('mcp')
    .description('serve the index as an MCP server on stdio (tools: search, related)')
    .addOption(configOption())
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
        const searcher = Searcher.open(await withDimensions(config(o)));
        try {
          await serveStdio(searcher, io);
        } finally {
          await searcher.close();
        }
      });
    });
}
