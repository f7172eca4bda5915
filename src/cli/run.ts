// Entry point of the `ragsync` command.
import { main } from './main.ts';

process.exitCode = await main(process.argv.slice(2));
