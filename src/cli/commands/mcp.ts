import type { Command } from 'commander';
import { Searcher } from '../../search/search.ts';
import { serveStdio } from '../../mcp/server.ts';
import { config, configOption, withDimensions } from '../options.ts';
import { keepYoungGenerationSmall } from '../heap.ts';

export function register(program: Command): void {
  program
    .command('mcp')
    .description('serve the index as an MCP server on stdio (tools: search, related)')
    .addOption(configOption())
    .action(async (o) => {
      keepYoungGenerationSmall();
      const searcher = Searcher.open(await withDimensions(config(o)));
      try {
        await serveStdio(searcher);
      } finally {
        await searcher.close();
      }
    });
}
