import { createHash } from 'node:crypto';

/** sha256 hex of a string (UTF-8) or bytes: the key documents and vectors are addressed by. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
