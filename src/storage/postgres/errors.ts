import { StorageError, type StorageErrorKind } from '../errors.ts';

/** SQLSTATE classes and codes by what they mean to a caller. */
const BY_CODE: Record<string, StorageErrorKind> = {
  '53100': 'full', // disk_full
  '53200': 'full', // out_of_memory
  '53300': 'unreachable', // too_many_connections
  '55P03': 'locked', // lock_not_available
  '40P01': 'busy', // deadlock_detected
  '57014': 'busy', // query_canceled (statement_timeout)
  XX001: 'corrupt', // data_corrupted
  XX002: 'corrupt', // index_corrupted
  '25006': 'permission', // read_only_sql_transaction
  '42501': 'permission', // insufficient_privilege
  '28000': 'auth', // invalid_authorization_specification
  '28P01': 'auth', // invalid_password
  '3D000': 'unreachable', // invalid_catalog_name: no such database
  '57P01': 'unreachable', // admin_shutdown
  '57P02': 'unreachable', // crash_shutdown
  '57P03': 'unreachable', // cannot_connect_now
};
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

/** Node's codes for a server certificate TLS could not verify. */
const UNVERIFIED = /^(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|ERR_TLS_CERT_ALTNAME_INVALID)$/;

/** The sentence for a kind, naming the server; the server's own words follow it. */
function words(kind: StorageErrorKind, code: string, shown: string): string {
  switch (kind) {
    case 'unreachable':
      if (code === 'NO_TLS') return `the server of ${shown} does not accept TLS and the URL asks for it (sslmode): enable TLS on the server, or use sslmode=disable on a network you trust`;
      if (UNVERIFIED.test(code)) {
        return `the TLS certificate of ${shown} could not be verified: give the server's CA as ?sslrootcert=FILE (sslmode=verify-full checks the host name too), or sslmode=require to encrypt without verifying`;
      }
      if (code === '3D000') return `database of ${shown} does not exist`;
      return code === 'ECONNREFUSED' ? `cannot connect to ${shown}: connection refused (is the server running there?)` : `lost or cannot reach the database ${shown}`;
    case 'auth':
      return `the database ${shown} refused the credentials (check the user and password in "db" or PGPASSWORD)`;
    case 'permission':
      if (code === '25006') return `the database ${shown} is read-only (a replica?): point "db" at the primary to index`;
      return `permission denied in the database ${shown}`;
    case 'full':
      return `disk full: cannot write the index ${shown}`;
    case 'busy':
    case 'locked':
      return `the database ${shown} kept a lock too long`;
    case 'corrupt':
      return `the database ${shown} reports damaged data`;
    case 'lease':
      return `a source's lease in ${shown} was taken over by another worker`;
  }
}

/** A pg or socket error as a StorageError naming the server (password left out); others unchanged. */
export function pgStorageError(err: unknown, shown: string): unknown {
  if (err instanceof StorageError || !err || typeof err !== 'object') return err;
  const code = typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : '';
  const raw = err instanceof Error ? err.message : String(err);
  let kind: StorageErrorKind | undefined = BY_CODE[code];
  if (!kind && NETWORK.has(code)) kind = 'unreachable';
  // TLS asked for by the URL: a server without it, or a certificate that does not verify.
  if (!kind && /server does not support SSL/i.test(raw)) return new StorageError('unreachable', words('unreachable', 'NO_TLS', shown), { path: shown, cause: err });
  if (!kind && UNVERIFIED.test(code)) kind = 'unreachable';
  // pg's own words for a socket that closed under a query, or a connect that timed out.
  if (!kind && /Connection terminated|connection timeout|timeout exceeded when trying to connect/i.test(raw)) kind = 'unreachable';
  if (!kind) return err;
  const said = raw && !raw.startsWith('connect ') ? ` (${raw.split('\n')[0]})` : '';
  return new StorageError(kind, `${words(kind, code, shown)}${said}`, { code: code || undefined, path: shown, cause: err });
}
