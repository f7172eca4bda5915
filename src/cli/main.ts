import type { Command } from 'commander';
import { DESCRIPTION, quickAnswer, version } from './help.ts';
import { errorLine } from './error-line.ts';
import { RagsyncError, EXIT, errorMessage } from '../core/errors.ts';
import { ENV_FILE_VAR, loadEnvFileOnce } from '../core/remote/env.ts';
import { describeIoError } from '../core/io-errors.ts';
import { StorageError } from '../storage/errors.ts';
import { redactSecrets } from '../core/redact.ts';
import { say } from './say.ts';
type CommandModule = { register(program: Command): void };

/**
 * Each command lives in commands/<name>.ts and registers itself. Modules load on demand: a run of
 * one command imports only that command's code (an hourly no-op `index` should not pay for the
 * MCP SDK, the HTTP server and the AI SDK); help, completion and unknown commands load them all.
 */
const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  init: () => import('./commands/init.ts'),
  config: () => import('./commands/config.ts'),
  index: () => import('./commands/index.ts'),
  search: () => import('./commands/search.ts'),
  related: () => import('./commands/related.ts'),
  status: () => import('./commands/status.ts'),
  source: () => import('./commands/source.ts'),
  gc: () => import('./commands/gc.ts'),
  export: () => import('./commands/export.ts'),
  copy: () => import('./commands/copy.ts'),
  daemon: () => import('./commands/daemon.ts'),
  serve: () => import('./commands/serve.ts'),
  ask: () => import('./commands/ask.ts'),
  eval: () => import('./commands/eval.ts'),
  mcp: () => import('./commands/mcp.ts'),
  embedders: () => import('./commands/embedders.ts'),
  completion: () => import('./commands/completion.ts'),
};

export async function buildProgram(argv: string[] = []): Promise<Command> {
  const { Command } = await import('commander');
  const program = new Command('ragsync')
    .description(DESCRIPTION)
    .version(version(), '-V, --version', 'print the version')
    // No --env-file flag: Node 20 itself claims that flag anywhere on the command line (and exits 9
    // when the file is missing), so the file is named by $RAGSYNC_ENV_FILE instead.
    .hook('preAction', () => {
      if (process.env[ENV_FILE_VAR]) loadEnvFileOnce();
    })
    // One line per error (commands inherit this): the whole help after a typo buries it.
    .configureOutput({ outputError: (str, write) => write(errorLine(str)) })
    .exitOverride();
  const first = argv.find((a) => !a.startsWith('-'));
  // `completion` describes every command, so it needs them all too.
  const wanted = first && first in COMMANDS && first !== 'completion' ? [first] : Object.keys(COMMANDS);
  for (const name of wanted) (await COMMANDS[name]!()).register(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  // The top-level help and the version need neither commander nor any command's code.
  const quick = quickAnswer(argv, process.stdout.isTTY ? process.stdout.columns : undefined);
  if (quick !== undefined) {
    process.stdout.write(quick);
    return 0;
  }
  const program = await buildProgram(argv);
  const { CommanderError } = await import('commander');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return Number(process.exitCode ?? 0);
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? 0 : EXIT.usage;
    }
    if (err instanceof RagsyncError) {
      say(err.message);
      return err.exitCode;
    }
    // A file, database or port problem the user can fix: in words naming it, not as a bug.
    const words = describeIoError(err);
    if (words) {
      say(words);
      return EXIT.usage;
    }
    // A database server's problem (unreachable, credentials, TLS) is already in words naming it.
    if (err instanceof StorageError) {
      say(err.message);
      return EXIT.failed;
    }
    say(`internal error: ${errorMessage(err)}`);
    if (process.env.RAGSYNC_DEBUG) process.stderr.write(`${redactSecrets(String((err as Error).stack))}\n`);
    return EXIT.failed;
  }
}
