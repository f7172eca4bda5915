/**
 * One turn of the event loop. Searches over SQLite are synchronous underneath: a test running many
 * in a row lets vitest's RPC (and its timers) run between them, or a long loop on a busy machine
 * times out the worker's calls to the runner.
 */
export const breathe = (): Promise<void> => new Promise((r) => setImmediate(r));
