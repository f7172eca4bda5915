import type { createHash as CreateHash } from 'node:crypto';
import { createRequire } from 'node:module';

// node:crypto loads on the first hash: loading it costs a one-shot search (which hashes nothing)
// ~2.5 ms of its start-up.
let createHash: typeof CreateHash | undefined;

/** sha256 hex of a string (UTF-8) or bytes: the key documents and vectors are addressed by. */
export function sha256(data: string | Uint8Array): string {
  createHash ??= (createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto')).createHash;
  return createHash('sha256').update(data).digest('hex');
}
