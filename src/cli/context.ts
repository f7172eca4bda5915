/**
 * What the command being run is working on, for the last-resort error handler: an SQLite error
 * carries no file name, so the handler names the configured index itself.
 */
let db: string | undefined;

export function setCurrentDb(path: string): void {
  db = path;
}

export function currentDb(): string | undefined {
  return db;
}
