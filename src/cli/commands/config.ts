import { Argument, type Command } from 'commander';
import { existsSync } from 'node:fs';
import type { Config } from '../../config/load.ts';
import { resolveRemote } from '../../config/presets.ts';
import { readApiKey } from '../../core/remote/env.ts';
import { redactUrl } from '../../core/redact.ts';
import { config, configOption, out } from '../options.ts';

/**
 * The config as ragsync reads it: paths absolute, defaults and the provider's preset filled in.
 * No secret: credentials in URLs are masked, and of an API key only whether its variable is set.
 */
export function resolvedConfig(cfg: Config) {
  const e = cfg.embedder;
  const embedder =
    e.provider === 'hash'
      ? e
      : (() => {
          const r = resolveRemote(e);
          const key = r.apiKeyEnv ? (readApiKey(r.apiKeyEnv) ? `[redacted: $${r.apiKeyEnv} is set]` : `[$${r.apiKeyEnv} is not set]`) : null;
          const { dimensions, ...rest } = r;
          return { ...rest, baseUrl: redactUrl(r.baseUrl), dims: dimensions, apiKey: key };
        })();
  return {
    file: cfg.file,
    db: cfg.db,
    checkouts: cfg.checkouts,
    embedder,
    // A folder source has no branch (the schema's default is git's).
    sources: cfg.sources.map(({ branch, ...s }) => ({ ...s, ...(s.kind === 'git' ? { url: redactUrl(s.url ?? ''), branch } : {}) })),
    daemon: cfg.daemon,
    search: cfg.search,
    logLevel: cfg.logLevel ?? null,
  };
}

/** What is valid but will not work yet: a missing folder, an index not built. */
function notes(cfg: Config): string[] {
  const n: string[] = [];
  for (const s of cfg.sources) if (s.kind === 'dir' && !existsSync(s.root)) n.push(`source "${s.name}": the folder ${s.root} does not exist`);
  if (!existsSync(cfg.db)) n.push(`no index yet at ${cfg.db}: \`ragsync index\` builds it`);
  return n;
}

export function register(program: Command): void {
  program
    .command('config')
    .description('check: validate the config and print it resolved (keys redacted)')
    .addArgument(new Argument('<action>', 'check: validate the config and print it as ragsync reads it').choices(['check']))
    .addOption(configOption())
    .option('--json', 'print one JSON object on stdout')
    .addHelpText('after', '\nAn invalid config is one line naming the file, field and value (exit 2).')
    .action(async (_action: string, o) => {
      const cfg = config(o);
      const resolved = resolvedConfig(cfg);
      const remarks = notes(cfg);
      if (o.json) {
        out(JSON.stringify({ ok: true, notes: remarks, config: resolved }));
        return;
      }
      out(`ok: ${cfg.file}`);
      for (const r of remarks) out(`note: ${r}`);
      out(JSON.stringify(resolved, null, 2));
    });
}
