import { Argument, type Command } from 'commander';
import { existsSync } from 'node:fs';
import type { Config } from '../../config/load.ts';
import { CHAT_PRESETS, resolveCall, type ResolvedCall } from '../../config/model-presets.ts';
import { resolveRemote } from '../../config/presets.ts';
import { legacyRerankFromEnv, rerankSettings } from '../../search/rerank.ts';
import { readApiKey } from '../../core/remote/env.ts';
import { redactDeep, redactUrl } from '../../core/redact.ts';
import { isDatabaseUrl, shownDb } from '../../core/db-url.ts';
import { config, configOption, out } from '../options.ts';

/**
 * The config as ragsync reads it: paths absolute, defaults and the provider's preset filled in.
 * No secret: credentials in URLs (the db's included) and every header value are masked, and of an
 * API key only whether its variable is set.
 */
export function resolvedConfig(cfg: Config) {
  return redactDeep(resolvedFields(cfg)) as ReturnType<typeof resolvedFields>;
}

function resolvedFields(cfg: Config) {
  const e = cfg.embedder;
  const embedder =
    e.provider === 'hash'
      ? e
      : (() => {
          const r = resolveRemote(e);
          const { dimensions, ...rest } = r;
          return { ...rest, baseUrl: redactUrl(r.baseUrl), dims: dimensions, apiKey: keyStatus(r.apiKeyEnv) };
        })();
  return {
    file: cfg.file,
    db: shownDb(cfg.db),
    checkouts: cfg.checkouts,
    embedder,
    chat: cfg.chat ? { ...cfg.chat, ...shownCall(resolveCall(cfg.chat.provider, CHAT_PRESETS[cfg.chat.provider], cfg.chat)) } : null,
    rerank: shownRerank(cfg),
    // A folder source has no branch (the schema's default is git's).
    sources: cfg.sources.map(({ branch, ...s }) => ({ ...s, ...(cfg.kinds.get(s.kind).takesBranch ? { url: redactUrl(s.url ?? ''), branch } : {}) })),
    daemon: cfg.daemon,
    serve: cfg.serve,
    search: cfg.search,
    logLevel: cfg.logLevel ?? null,
  };
}

/** Of an API key, only whether its variable is set. */
function keyStatus(env: string | null): string | null {
  return env ? (readApiKey(env) ? `[redacted: $${env} is set]` : `[$${env} is not set]`) : null;
}

/** A chat or rerank call as config check shows it: preset filled in, URL masked, key as set or not. */
function shownCall(r: ResolvedCall) {
  return { ...r, baseUrl: redactUrl(r.baseUrl), apiKey: keyStatus(r.apiKeyEnv) };
}

/** The rerank block resolved; without one, the older RAGSYNC_RERANK_* variables when they are in force. */
function shownRerank(cfg: Config) {
  if (cfg.rerank) {
    const r = rerankSettings(cfg.rerank);
    return { ...cfg.rerank, ...shownCall(r), url: redactUrl(r.url) };
  }
  const legacy = legacyRerankFromEnv();
  if (!legacy) return null;
  return { from: 'environment (DASHSCOPE_API_KEY, RAGSYNC_RERANK_*)', provider: 'dashscope', name: `dashscope:${legacy.model}`, topN: legacy.topN, apiKey: keyStatus('DASHSCOPE_API_KEY') };
}

/** One line per model the config calls: provider, model, URL and whether its key is set. */
function modelLines(resolved: ReturnType<typeof resolvedConfig>): string[] {
  const line = (block: string, r: { provider: string; model?: string; baseUrl?: string; url?: string; apiKeyEnv?: string | null; apiKey?: string | null } | null) => {
    if (!r) return `${block}: none`;
    const key = r.apiKeyEnv ? `, key $${r.apiKeyEnv} ${readApiKey(r.apiKeyEnv) ? 'set' : 'NOT set'}` : '';
    return `${block}: ${r.provider}${r.model ? ` ${r.model}` : ''}${r.url || r.baseUrl ? ` at ${r.url ?? r.baseUrl}` : ''}${key}`;
  };
  const e = resolved.embedder;
  const rr = resolved.rerank;
  return [
    e.provider === 'hash' ? `embedder: hash (offline, ${e.dims} dims)` : line('embedder', e),
    line('chat', resolved.chat),
    rr && 'from' in rr ? `rerank: ${rr.name} from the environment (DASHSCOPE_API_KEY set; a rerank block is the documented way)` : line('rerank', rr),
  ];
}

/** What is valid but will not work yet: a missing folder, an index not built, a model's key unset. */
function notes(cfg: Config, resolved: ReturnType<typeof resolvedConfig>): string[] {
  const n: string[] = [];
  for (const [block, r] of [['chat', resolved.chat], ['rerank', resolved.rerank]] as const) {
    if (r && 'apiKeyEnv' in r && r.apiKeyEnv && !readApiKey(r.apiKeyEnv)) n.push(`${block}: environment variable ${r.apiKeyEnv} is not set: ${block === 'chat' ? 'serve, daemon --serve and ask refuse to start' : 'searches keep the fused order'} until it is`);
  }
  for (const s of cfg.sources) if (cfg.kinds.get(s.kind).root === 'path' && !existsSync(s.root)) n.push(`source "${s.name}": the folder ${s.root} does not exist`);
  if (!isDatabaseUrl(cfg.db) && !existsSync(cfg.db)) n.push(`no index yet at ${cfg.db}: \`ragsync index\` builds it`);
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
      const remarks = notes(cfg, resolved);
      if (o.json) {
        out(JSON.stringify({ ok: true, notes: remarks, config: resolved }));
        return;
      }
      out(`ok: ${cfg.file}`);
      for (const l of modelLines(resolved)) out(l);
      for (const r of remarks) out(`note: ${r}`);
      out(JSON.stringify(resolved, null, 2));
    });
}
