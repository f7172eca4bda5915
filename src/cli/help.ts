/**
 * What `ragsync --help` lists, known without loading any command: each command's usage line and
 * summary. The commands register the same summaries with commander (a test holds the two equal),
 * so the top-level help prints from here without importing commander or any implementation.
 */
import { packageVersion } from '../core/package-root.ts';

export const DESCRIPTION = 'Keep a retrieval index in sync with Markdown in git repositories and folders.';

export const COMMAND_LIST: readonly { usage: string; summary: string }[] = [
  { usage: 'init [options] [dir]', summary: 'write a starter config (ragsync.jsonc) for a git repository or a folder; --example copies the sample' },
  { usage: 'config [options] <action>', summary: 'check: validate the config and print it resolved (keys redacted)' },
  { usage: 'index [options]', summary: 'pull each source, then chunk and embed what changed' },
  { usage: 'search [options] <query>', summary: 'search the index (hybrid: vector + keyword by reciprocal rank fusion)' },
  { usage: 'related [options] <path-or-id>', summary: 'documents most similar to a given one (itself excluded)' },
  { usage: 'status [options]', summary: 'health verdict, sources, vector coverage per embedder, recent runs' },
  { usage: 'source', summary: 'add, list or remove sources: the config file edited in place, comments kept' },
  { usage: 'gc [options]', summary: 'delete vectors that no chunk references any more' },
  {
    usage: 'export [options]',
    summary: 'every chunk (id, source, path, heading, content, metadata, textHash) as JSON lines, CSV or Parquet',
  },
  { usage: 'copy [options]', summary: 'copy the index to another backend (SQLite file ↔ postgres:// URL), vectors included, and check both hold the same' },
  {
    usage: 'daemon [options]',
    summary: 'sync on cron schedules or per-source intervals until SIGTERM/SIGINT (logs JSON on stdout); --watch syncs folders as they change; --serve adds the HTTP API',
  },
  {
    usage: 'serve [options]',
    summary: 'serve /search (GET or POST), /related, /status, /healthz as JSON, and POST /api/chat with a chat block (bearer token from $RAGSYNC_HTTP_TOKEN if set)',
  },
  { usage: 'ask [options] <question>', summary: 'answer a question from the index with the configured chat model, citing numbered sources' },
  { usage: 'eval [options] <file>', summary: 'score retrieval on a JSONL file of queries with gold paths: hit@1/3/10 and MRR@10' },
  { usage: 'mcp [options]', summary: 'serve the index as an MCP server on stdio (tools: search, related; ask with a chat block)' },
  { usage: 'embedders [options]', summary: 'list embedding providers: default model, dims, URL and key variable' },
  { usage: 'completion <shell>', summary: 'print a shell completion script: bash, zsh or fish' },
];

/** The command names, as the first word of each usage line. */
export const COMMAND_NAMES: readonly string[] = COMMAND_LIST.map((c) => c.usage.split(' ')[0]!);

/** The summary a command registers, by name. */
export const summaryOf = (name: string): string => COMMAND_LIST.find((c) => c.usage.split(' ')[0] === name)!.summary;

/** Greedy word wrap at `width`, continuation lines indented by `indent` (commander's layout). */
function wrap(text: string, width: number, indent: number): string {
  if (width < 40) return text;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

/** The top-level help, laid out as commander lays it out for a terminal `columns` wide. */
export function topLevelHelp(columns = 80): string {
  const items = (rows: [string, string][], termWidth: number) =>
    rows.map(([term, text]) => `  ${term.padEnd(termWidth)}  ${wrap(text, columns - termWidth - 4, termWidth + 4)}`).join('\n');
  const options: [string, string][] = [
    ['-V, --version', 'print the version'],
    ['-h, --help', 'display help for command'],
  ];
  const commands: [string, string][] = [...COMMAND_LIST.map((c): [string, string] => [c.usage, c.summary]), ['help [command]', 'display help for command']];
  const termWidth = Math.max(...[...options, ...commands].map(([t]) => t.length));
  return `Usage: ragsync [options] [command]\n\n${DESCRIPTION}\n\nOptions:\n${items(options, termWidth)}\n\nCommands:\n${items(commands, termWidth)}\n`;
}

/** ragsync's version, from its package.json. */
export const version = (): string => packageVersion(import.meta.url);

/**
 * The whole output of `ragsync --help` (or `-h`, `help`) and `--version` (`-V`) given alone, which
 * need neither commander nor any command's code; undefined for every other command line.
 */
export function quickAnswer(argv: readonly string[], columns?: number): string | undefined {
  if (argv.length !== 1) return undefined;
  if (['--help', '-h', 'help'].includes(argv[0]!)) return topLevelHelp(columns);
  if (['--version', '-V'].includes(argv[0]!)) return `${version()}\n`;
  return undefined;
}
