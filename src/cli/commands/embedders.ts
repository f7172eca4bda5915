import type { Command } from 'commander';
import { HASH_ALGORITHM, HASH_VERSION } from '../../embedding/hash.ts';
import { PRESETS, type RemoteProvider } from '../../config/presets.ts';
import { columns } from '../columns.ts';
import { out } from '../options.ts';

/** One row of `ragsync embedders`: what a config naming only the provider gets. */
export interface EmbedderRow {
  provider: 'hash' | RemoteProvider;
  /** Runs on this machine: no key, no network beyond loopback. */
  local: boolean;
  wire: string | null;
  baseUrl: string | null;
  model: string | null;
  dimensions: number | null;
  apiKeyEnv: string | null;
  maxBatch: number;
  maxInputTokens: number | null;
  hint: string | null;
}

export function embedderRows(): EmbedderRow[] {
  const hash: EmbedderRow = {
    provider: 'hash',
    local: true,
    wire: null,
    baseUrl: null,
    model: `${HASH_ALGORITHM}@${HASH_VERSION}`,
    dimensions: 1024,
    apiKeyEnv: null,
    maxBatch: 4096,
    maxInputTokens: null,
    hint: 'built in, lexical (not semantic)',
  };
  return [
    hash,
    ...(Object.entries(PRESETS) as [RemoteProvider, (typeof PRESETS)[RemoteProvider]][]).map(([provider, p]) => ({
      provider,
      local: !!p.local,
      wire: p.wire,
      baseUrl: p.baseUrl ?? null,
      model: p.model ?? null,
      dimensions: p.dimensions ?? null,
      apiKeyEnv: p.apiKeyEnv ?? null,
      maxBatch: p.maxBatch,
      maxInputTokens: p.maxInputTokens,
      hint: p.hint ?? null,
    })),
  ];
}

function table(rows: EmbedderRow[]): string {
  const cells = rows.map((r) => [
    r.provider,
    r.local ? 'local' : 'hosted',
    r.model ?? '(required)',
    r.dimensions === null ? '(required)' : String(r.dimensions),
    r.baseUrl ?? (r.wire ? '(required)' : '(offline)'),
    r.apiKeyEnv ?? (r.local ? '-' : 'apiKeyEnv'),
  ]);
  const head = ['provider', 'where', 'default model', 'dims', 'url', 'key'];
  const hints = rows.filter((r) => r.local && r.wire).map((r) => `  ${r.provider.padEnd(9)} ${r.hint}`);
  return [
    columns([head, ...cells]),
    '',
    'Local servers need no key (set apiKeyEnv if yours wants one). Another model than the default:',
    'set "model", and "dims" if you know it, else the server is asked once and the size logged.',
    'To run the default model:',
    ...hints,
  ].join('\n');
}

export function register(program: Command): void {
  program
    .command('embedders')
    .description('list embedding providers: default model, dims, URL and key variable')
    .option('--json', 'print a JSON array on stdout')
    .action(async (o) => {
      const rows = embedderRows();
      out(o.json ? JSON.stringify(rows) : table(rows));
    });
}
