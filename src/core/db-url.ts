import { redactUrl } from './redact.ts';

/** Whether the configured `db` names a database server (postgres:// or postgresql://) rather than a file. */
export function isDatabaseUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/** The index as shown to people and logs: a server URL without its password, a file as it is. */
export function shownDb(db: string): string {
  if (!isDatabaseUrl(db)) return db;
  try {
    const u = new URL(db);
    if (!u.password) return db;
    u.password = '';
    return u.toString();
  } catch {
    return redactUrl(db);
  }
}
