import { builtinProfiles, loadConfig } from '../builtin.ts';
import type { Config } from '../config/load.ts';
import type { Logger } from '../core/log.ts';
import type { SourceTools } from '../mcp/server.ts';
import { addSource, listSources, removeSource } from '../sync/manage-sources.ts';
import { runSummary } from '../sync/run.ts';
import { indexes, openEngine, type Engine } from '../engine/engine.ts';

/**
 * The MCP source tools over the config file `file`: the functions `ragsync source add|list|remove`
 * call, and one index run of an added source when asked. `changed` hears of each new config as an
 * engine over it (the server then searches with that engine's searcher; the listener closes it).
 */
export function sourceTools(file: string, log: Logger, changed: (engine: Engine) => Promise<void>): SourceTools {
  const engineOver = (cfg: Config) => openEngine(cfg, { lifetime: 'long-lived', log });
  return {
    async add({ index, ...req }) {
      const r = await addSource(builtinProfiles, file, req, { indexes });
      const name = r.entry.name as string;
      const engine = engineOver(r.config);
      const run = index ? runSummary(await engine.index({ sources: [name], trigger: 'mcp' }).catch(async (err: unknown) => {
        await engine.close();
        throw err;
      })) : undefined;
      await changed(engine);
      return { file: r.file, source: r.shown, ...(run ? { index: run } : { next: `index it: sourceAdd with index, or \`ragsync index --source ${name}\`` }) };
    },
    async list() {
      return { sources: await listSources(loadConfig(file), indexes) };
    },
    async remove(name) {
      const r = await removeSource(builtinProfiles, file, name, { log, indexes });
      await changed(engineOver(loadConfig(file)));
      return r;
    },
  };
}
