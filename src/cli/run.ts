// Entry point of the `ragsync` command when run from the sources (`npm run ragsync`, the tests);
// the bin runs the same start() from the bundle (boot.ts).
import { start } from './start.ts';

await start(process.argv.slice(2));
