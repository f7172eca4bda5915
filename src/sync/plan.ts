import type { Chunker } from '../core/chunk.ts';
import { estimateTokens } from '../core/text/tokens.ts';
import type { SourceConfig } from '../config/load.ts';
import type { Snapshot, SourceFile } from '../sources/types.ts';
import { decodeText } from '../sources/decode.ts';
import type { ChunkRecord, DocumentCounts, DocumentRecord, Store, StoredDocument } from '../storage/roles.ts';
import { sha256 } from '../core/hash.ts';
import { errorMessage } from '../core/errors.ts';

export type ChangeKind = 'added' | 'changed' | 'renamed';

export interface PlannedDocument {
  kind: ChangeKind;
  /** For a rename, the old path (its row is replaced by this one). */
  from?: string;
  /** Same content as stored, only the stamp moved: no new chunks, not counted as a change. */
  restamp?: boolean;
  doc: DocumentRecord;
}

export interface SkippedFile {
  path: string;
  reason: string;
}

/**
 * Everything a run will do to one source, computed without writing anything. `--dry-run` prints
 * it; apply executes it.
 */
export interface SourcePlan {
  source: string;
  commitBefore: string | null;
  commitAfter: string | null;
  /** Documents to write, in path order. */
  write: PlannedDocument[];
  /** Paths whose documents are removed (renamed-from paths are not listed: see PlannedDocument.from). */
  delete: string[];
  unchanged: number;
  skipped: SkippedFile[];
  /** Documents left for a later run by --max-docs. */
  deferred: number;
  /** Distinct texts with no vector for the active fingerprint (all texts with --force), hash → text. */
  toEmbed: Map<string, string>;
  /** Chunks in the documents to write, and how many of them already have a vector. */
  chunksTotal: number;
  chunksReused: number;
  /** Estimated tokens of toEmbed. */
  tokensToEmbed: number;
}

export interface PlanOptions {
  force: boolean;
  maxDocs?: number;
  fingerprint: string;
  commitBefore: string | null;
}

export function countKinds(plan: SourcePlan): DocumentCounts {
  const n = (k: ChangeKind) => plan.write.filter((w) => w.kind === k && !w.restamp).length;
  return {
    added: n('added'),
    changed: n('changed'),
    renamed: n('renamed'),
    deleted: plan.delete.length,
    unchanged: plan.unchanged,
    skipped: plan.skipped.length,
  };
}

/** Reads, validates and chunks one file into a document record. */
function buildDocument(file: SourceFile, bytes: Buffer, chunker: Chunker): DocumentRecord {
  const text = decodeText(file.path, bytes);
  const chunked = chunker.chunk({ path: file.path, text });
  const chunks: ChunkRecord[] = chunked.chunks.map((c, ordinal) => ({
    ...c,
    ordinal,
    textHash: sha256(c.text),
    tokens: estimateTokens(c.text),
  }));
  return {
    path: file.path,
    contentHash: sha256(bytes),
    stamp: file.stamp,
    size: bytes.length,
    chunker: chunker.fingerprint,
    title: chunked.title,
    metadata: chunked.metadata,
    chunks,
  };
}

export async function planSource(
  store: Store,
  source: SourceConfig,
  snapshot: Snapshot,
  chunker: Chunker,
  opts: PlanOptions,
): Promise<SourcePlan> {
  const stored = new Map<string, StoredDocument>((await store.listDocuments(source.name)).map((d) => [d.path, d]));
  const listed = new Map(snapshot.files.map((f) => [f.path, f]));
  const skipped: SkippedFile[] = [];

  // Which files must be read: new ones, and known ones whose stamp or chunker changed.
  const toRead: SourceFile[] = [];
  let unchanged = 0;
  for (const f of snapshot.files) {
    const old = stored.get(f.path);
    if (old && !opts.force && old.stamp === f.stamp && old.chunker === chunker.fingerprint) unchanged++;
    else if (f.size > source.maxFileBytes) {
      skipped.push({ path: f.path, reason: `${f.path}: ${f.size} bytes is over maxFileBytes (${source.maxFileBytes}), skipped` });
    } else toRead.push(f);
  }

  const built = new Map<string, DocumentRecord>();
  for await (const { path, bytes } of snapshot.read(toRead.map((f) => f.path))) {
    try {
      built.set(path, buildDocument(listed.get(path)!, bytes, chunker));
    } catch (err) {
      skipped.push({ path, reason: errorMessage(err) });
    }
  }

  // Stored documents whose file is gone; a new file with the same bytes is a rename of one of them.
  const gone = [...stored.values()].filter((d) => !listed.has(d.path));
  const goneByHash = new Map<string, string[]>();
  for (const d of gone) goneByHash.set(d.contentHash, [...(goneByHash.get(d.contentHash) ?? []), d.path]);

  let write: PlannedDocument[] = [];
  for (const f of toRead) {
    const doc = built.get(f.path);
    if (!doc) continue;
    const old = stored.get(f.path);
    if (!old) {
      const from = goneByHash.get(doc.contentHash)?.shift();
      write.push(from ? { kind: 'renamed', from, doc } : { kind: 'added', doc });
    } else if (!opts.force && old.contentHash === doc.contentHash && old.chunker === doc.chunker) {
      // Same bytes under a new stamp (a touched file): rewritten for the stamp, counted unchanged.
      write.push({ kind: 'changed', restamp: true, doc });
      unchanged++;
    } else {
      write.push({ kind: 'changed', doc });
    }
  }

  let deferred = 0;
  if (opts.maxDocs !== undefined && write.length > opts.maxDocs) {
    deferred = write.length - opts.maxDocs;
    write = write.slice(0, opts.maxDocs);
  }
  // A rename's old path is removed in the same transaction that writes the new one.
  const renamedFrom = new Set(write.flatMap((w) => (w.from ? [w.from] : [])));
  const remove = gone.map((d) => d.path).filter((p) => !renamedFrom.has(p));

  // Distinct texts of the documents to write; their token estimates were made when they were chunked.
  const texts = new Map<string, ChunkRecord>();
  let chunksTotal = 0;
  for (const w of write) {
    for (const c of w.doc.chunks) {
      texts.set(c.textHash, c);
      chunksTotal++;
    }
  }
  const missing = opts.force ? new Set(texts.keys()) : await store.missingVectors(opts.fingerprint, texts.keys());
  const toEmbed = new Map<string, string>();
  let tokensToEmbed = 0;
  for (const h of missing) {
    const c = texts.get(h)!;
    toEmbed.set(h, c.text);
    tokensToEmbed += c.tokens;
  }
  if (!opts.force) {
    // Documents left as they are but without vectors for this fingerprint (the embedder was switched):
    // their texts are embedded too, so search under the new fingerprint covers the whole index.
    const rewritten = new Set([...write.flatMap((w) => (w.from ? [w.doc.path, w.from] : [w.doc.path])), ...remove]);
    for (const r of await store.storedTextsMissingVectors(source.name, opts.fingerprint)) {
      if (rewritten.has(r.path) || toEmbed.has(r.textHash)) continue;
      toEmbed.set(r.textHash, r.text);
      tokensToEmbed += r.tokens;
    }
  }
  let chunksReused = 0;
  for (const w of write) for (const c of w.doc.chunks) if (!missing.has(c.textHash)) chunksReused++;

  return {
    source: source.name,
    commitBefore: opts.commitBefore,
    commitAfter: snapshot.commit,
    write,
    delete: remove,
    unchanged,
    skipped,
    deferred,
    toEmbed,
    chunksTotal,
    chunksReused,
    tokensToEmbed,
  };
}
