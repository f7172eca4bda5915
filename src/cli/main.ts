import { Command, CommanderError } from 'commander';
import { RagsyncError, EXIT, errorMessage } from '../util/errors.ts';
import * as indexCmd from './commands/index.ts';
import * as searchCmd from './commands/search.ts';
import * as statusCmd from './commands/status.ts';
import * as gcCmd from './commands/gc.ts';
import * as exportCmd from './commands/export.ts';
import * as daemonCmd from './commands/daemon.ts';
import * as serveCmd from './commands/serve.ts';
import * as evalCmd from './commands/eval.ts';
import * as mcpCmd from './commands/mcp.ts';

/** Each command lives in commands/<name>.ts and registers itself here. */
const COMMANDS = [indexCmd, searchCmd, statusCmd, gcCmd, exportCmd, daemonCmd, serveCmd, evalCmd, mcpCmd];

export function buildProgram(): Command {
  const program = new Command('ragsync')
    .description('Keep a retrieval index in sync with Markdown in git repositories.')
    .showHelpAfterError()
    .exitOverride();
  for (const c of COMMANDS) c.register(program);
  return program;
}
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return Number(process.exitCode ?? 0);
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? 0 : EXIT.usage;
    }
    if (err instanceof RagsyncError) {
      process.stderr.write(`ragsync: ${err.message}\n`);
      return err.exitCode;
    }
    process.stderr.write(`ragsync: internal error: ${errorMessage(err)}\n`);
    if (process.env.RAGSYNC_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
    return EXIT.failed;
  }
}
