import { createRequire } from 'node:module';

// node:crypto loads on first use: loading it costs a one-shot search or a no-op index (which
// hash nothing) ~2.5 ms of their start-up.
let crypto: typeof import('node:crypto') | undefined;
const nodeCrypto = () => (crypto ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto'));

/** sha256 hex of a string (UTF-8) or bytes: the key documents and vectors are addressed by. */
export function sha256(data: string | Uint8Array): string {
  return nodeCrypto().createHash('sha256').update(data).digest('hex');
}

/** `bytes` random bytes as hex: a name part no other process picks. */
export const randomHex = (bytes: number): string => nodeCrypto().randomBytes(bytes).toString('hex');

/**
 * A short, stable name part for a text (cyrb53: 53 bits, 14 hex digits), no node:crypto: config
 * loading names checkout folders with it on every run. Not for anything an attacker chooses to collide.
 */
export function shortHash(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}
