// Entry point of the `ragsync` command.
import { main } from './main.ts';

// `ragsync export | head`: a reader that stops early is not an error; stop writing, quietly.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

process.exitCode = await main(process.argv.slice(2));
