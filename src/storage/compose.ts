import type { IndexDump, IndexReader, IndexWriter, RunLog } from './roles.ts';

/** Each interface's method names, the compiler checking the list is whole. */
const names = <T>(all: Record<keyof T, 1>) => Object.keys(all) as (keyof T & string)[];

/** The methods of each role, as the index object of a backend exposes them. */
const ROLE_METHODS = {
  writer: names<IndexWriter>({
    ensureSource: 1, setSourceCommit: 1, sourceListing: 1, forgetSourceListing: 1, forgetSource: 1, listDocuments: 1,
    registerEmbedder: 1, missingVectors: 1, scanStoredTexts: 1, storedTextsMissingVectors: 1, putVectors: 1,
    writeDocuments: 1, beginDocuments: 1, refreshCodePack: 1,
  }),
  reader: names<IndexReader>({
    nearest: 1, keyword: 1, chunkTexts: 1, chunkTerms: 1, getChunks: 1, filterRefs: 1, anyChunk: 1, fieldValues: 1,
    documentPaths: 1, findChunks: 1, vectorsOf: 1, generation: 1, lexiconLookup: 1, lexiconHeadwords: 1, termCounts: 1, matchSets: 1,
  }),
  runs: names<RunLog>({
    status: 1, recentRuns: 1, startRun: 1, finishRun: 1, abortStaleRuns: 1, tryLock: 1, heartbeatLock: 1, releaseLock: 1,
    gc: 1, exportChunks: 1,
  }),
  dump: names<IndexDump>({ dumpSources: 1, dumpDocuments: 1, dumpEmbedders: 1, dumpVectors: 1 }),
};

export type RoleField = keyof typeof ROLE_METHODS;
type Method = (...args: never[]) => unknown;

/**
 * Gives a backend's index class the methods of each role interface, each calling the role object
 * held in the field of that name (`writer`, `reader`, `runs`, `dump`): the index delegates and each
 * role keeps its own state. A method the role's class lacks (an optional one) is left out; an
 * async generator's delegate is one too. `wrap` may decorate each delegate.
 */
export function delegateRoles(
  target: { prototype: object },
  roles: Record<RoleField, { prototype: object }>,
  wrap: (delegate: Method, name: string) => Method = (d) => d,
): void {
  for (const field of Object.keys(ROLE_METHODS) as RoleField[]) {
    const proto = roles[field].prototype as Record<string, unknown>;
    for (const name of ROLE_METHODS[field]) {
      const own = proto[name];
      if (typeof own !== 'function') continue;
      const roleOf = (self: unknown) => (self as Record<RoleField, Record<string, Method>>)[field];
      const delegate: Method =
        own.constructor.name === 'AsyncGeneratorFunction'
          ? async function* (this: unknown, ...args: never[]) {
              yield* roleOf(this)[name]!(...args) as AsyncIterable<unknown>;
            }
          : function (this: unknown, ...args: never[]) {
              return roleOf(this)[name]!(...args);
            };
      Object.defineProperty(target.prototype, name, { value: wrap(delegate, name), writable: true, configurable: true });
    }
  }
}
