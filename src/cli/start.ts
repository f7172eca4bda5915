import { main } from './main.ts';

/** Runs the `ragsync` command line `argv` (process.argv without node and the script) to its exit code. */
export async function start(argv: string[]): Promise<void> {
  // `ragsync export | head`: a reader that stops early is not an error; stop writing, quietly.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  process.exitCode = await main(argv);
}
