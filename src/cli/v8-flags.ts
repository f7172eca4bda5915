import { setFlagsFromString } from 'node:v8';

/**
 * The V8 flags ragsync changes at run time (heap.ts), and the flags a V8 code cache is made and
 * read under. V8 hashes its flags into a code cache and refuses a cache made under other flags, so a
 * cache written after a command tuned its heap (the no-op `index` does, first thing) was refused by
 * every later run, which then compiled the whole bundle. And V8 checks a cache's payload only when
 * checksums are on: a cache whose bytes were damaged but whose length was kept crashed the process.
 */

type Changed = Map<string, { value: number; byDefault: number }>;
// On globalThis: boot.cjs and the CLI bundle each hold a copy of this module.
const KEY = Symbol.for('ragsync.v8-flags');
const changed = (): Changed => ((globalThis as Record<symbol, Changed | undefined>)[KEY] ??= new Map());

/** Sets V8's `--name=value`, whose default is `byDefault`, remembering it for underCodeCacheFlags. */
export function setV8Flag(name: string, value: number, byDefault: number): void {
  setFlagsFromString(`--${name}=${value}`);
  changed().set(name, { value, byDefault });
}

/**
 * Runs `fn` — compiling with a code cache, or writing one — under the flags every cache is made and
 * read under: V8's defaults for those ragsync changed, and checksums on (a damaged cache is refused,
 * never run). The flags ragsync set are set again afterwards.
 */
export function underCodeCacheFlags<T>(fn: () => T): T {
  const flags = [...changed()];
  setFlagsFromString('--verify-snapshot-checksum');
  for (const [name, f] of flags) setFlagsFromString(`--${name}=${f.byDefault}`);
  try {
    return fn();
  } finally {
    setFlagsFromString('--no-verify-snapshot-checksum');
    for (const [name, f] of flags) setFlagsFromString(`--${name}=${f.value}`);
  }
}
