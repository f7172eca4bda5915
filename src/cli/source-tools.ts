import { builtinProfiles, loadConfig } from '../builtin.ts';
import type { Config } from '../config/load.ts';
import type { Logger } from '../core/log.ts';
import type { SourceTools } from '../mcp/server.ts';
import { addSource, listSources, removeSource } from '../sync/manage-sources.ts';
import { runIndex, runSummary } from '../sync/run.ts';
import { withDimensions } from './options.ts';

/**
 * The MCP source tools over the config file `file`: the functions `ragsync source add|list|remove`
 * call, and one index run of an added source when asked. `changed` hears of each new config, its
 * embedder's size filled in (withDimensions, asked once per change): the server then searches with it.
 */
export function sourceTools(file: string, log: Logger, changed: (cfg: Config) => Promise<void>): SourceTools {
  return {
    async add({ index, ...req }) {
      const r = await addSource(builtinProfiles, file, req);
      const name = r.entry.name as string;
      const cfg = await withDimensions(r.config, log);
      const run = index ? runSummary(await runIndex(cfg, { sources: [name], log, trigger: 'mcp' })) : undefined;
      await changed(cfg);
      return { file: r.file, source: r.shown, ...(run ? { index: run } : { next: `index it: sourceAdd with index, or \`ragsync index --source ${name}\`` }) };
    },
    async list() {
      return { sources: await listSources(loadConfig(file)) };
    },
    async remove(name) {
      const r = await removeSource(builtinProfiles, file, name, { log });
      await changed(await withDimensions(loadConfig(file), log));
      return r;
    },
  };
}
