import { redactSecrets } from './redact.ts';

/** Whether the configured `db` names a database server (postgres:// or postgresql://) rather than a file. */
export function isDatabaseUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/**
 * The index as shown to people and logs: a server URL without its password (in the userinfo or a
 * `password=`/`sslpassword=` parameter), a file as it is.
 */
export function shownDb(db: string): string {
  if (!isDatabaseUrl(db)) return db;
  try {
    const u = new URL(db);
    u.password = '';
    return redactSecrets(u.toString());
  } catch {
    return redactSecrets(db);
  }
}
