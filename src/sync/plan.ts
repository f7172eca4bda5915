import { errorMessage } from '../core/errors.ts';
import { shownPath } from '../core/shown-path.ts';
import { sha256 } from '../core/hash.ts';
import { tmpdir } from 'node:os';
import type { DocumentCounts, DocumentRecord, StoredDocument, WorkCounts } from '../core/types.ts';
import type { SourceConfig } from '../config/load.ts';
import type { Snapshot, SourceFile } from '../sources/types.ts';
import type { DocumentStamp, IndexWriter } from '../storage/roles.ts';
import { buildDocument, documentFingerprints, fileMediaType, outlineDocument, outlineOf, type DocumentOutline, type Pipeline } from './build-document.ts';
import { DocumentSpill } from './document-spill.ts';

export { headText, pipelineFingerprint, type Pipeline } from './build-document.ts';

export type ChangeKind = 'added' | 'changed' | 'renamed';

export interface PlannedDocument {
  kind: ChangeKind;
  /** For a rename, the old path (its row is replaced by this one in the same transaction). */
  from?: string;
  doc: DocumentOutline;
}

export interface SkippedFile {
  path: string;
  reason: string;
  /** Left out as its source asks (a site's robots.txt, noindex, a duplicate page): listed, not a failure. */
  intended?: boolean;
}

/**
 * Everything a run will do to one source, computed without writing anything. `--dry-run` prints
 * it; apply executes it as it is.
 */
export interface SourcePlan {
  source: string;
  /** The embedder fingerprint the plan was made for: apply refuses another. */
  fingerprint: string;
  commitBefore: string | null;
  commitAfter: string | null;
  /** Documents to write, in path order. */
  write: PlannedDocument[];
  /** Paths whose documents are removed (renamed-from paths are not listed: see PlannedDocument.from). */
  delete: string[];
  /** Stored documents whose file was read again and holds the same bytes: only their stamp is written (counted unchanged). */
  restamp: DocumentStamp[];
  /** Documents left for a later run by --max-docs. */
  deferred: number;
  skipped: SkippedFile[];
  /** Files the source lists (after include/exclude). */
  listed: number;
  /** Files read to plan: new ones and those whose stamp moved (the others' stored documents stand). */
  filesRead: number;
  /** Distinct texts of the documents to write that have no vector (all of them with --force), by hash. */
  embed: Set<string>;
  /**
   * Distinct texts of documents left as they are that have no vector under this fingerprint (the
   * embedder was switched), by hash: embedded so search under the new fingerprint covers all.
   */
  refill: Set<string>;
  /** What applying the plan will write; texts = embed + refill. */
  counts: WorkCounts;
  /** Estimated tokens of embed + refill. */
  tokens: number;
  /**
   * The given planned documents as the plan built them (texts, terms, lexicon), kept on disk: apply
   * takes them a batch at a time, so no run holds every document at once, and no file is read or
   * chunked twice. Throws for a plan made with `outlineOnly`.
   */
  documents(paths: string[]): Iterable<DocumentRecord>;
  /** The refill's texts, a page at a time (read from the index as they are asked for). */
  refillTexts(): AsyncIterable<[textHash: string, text: string][]>;
  /** Frees what the plan keeps for apply (once applied, refused, or a dry run). */
  release(): void;
}

export interface PlanOptions {
  force: boolean;
  maxDocs?: number;
  fingerprint: string;
  commitBefore: string | null;
  /** Keep nothing for apply (a dry run): files are chunked for their outline only. */
  outlineOnly?: boolean;
  /** Where the built documents wait for apply (default: the system's temporary folder). */
  spillDir?: string;
}

/** Milliseconds of reading and chunking between two turns of the event loop. */
const PLAN_SLICE_MS = 20;

/** Rows of the refill read at once. */
const REFILL_PAGE = 1000;

function documentCounts(write: PlannedDocument[], deleted: number, unchanged: number, skipped: number): DocumentCounts {
  const n = (k: ChangeKind) => write.filter((w) => w.kind === k).length;
  return { added: n('added'), changed: n('changed'), renamed: n('renamed'), deleted, unchanged, skipped };
}

export async function planSource(
  store: IndexWriter,
  source: SourceConfig,
  snapshot: Snapshot,
  pipeline: Pipeline,
  opts: PlanOptions,
): Promise<SourcePlan> {
  // Per document: the source's pipeline, and the content step of the file's media type (made once
  // per media type; a file read carries its own in its outline).
  const fingerprints = documentFingerprints(pipeline);
  const made = (f: SourceFile) => fingerprints(fileMediaType(f));
  const stored = new Map<string, StoredDocument>((await store.listDocuments(source.name)).map((d) => [d.path, d]));
  const listed = new Map(snapshot.files.map((f) => [f.path, f]));
  const skipped: SkippedFile[] = [];

  // Which files must be read: new ones, and known ones whose stamp or pipeline changed.
  const toRead: SourceFile[] = [];
  let unchanged = 0;
  for (const f of snapshot.files) {
    const old = stored.get(f.path);
    if (old && !opts.force && old.stamp === f.stamp && old.chunker === made(f)) unchanged++;
    else if (f.size > source.maxFileBytes) {
      skipped.push({ path: f.path, reason: `${shownPath(f.path)}: ${f.size} bytes is over maxFileBytes (${source.maxFileBytes}), skipped` });
    } else toRead.push(f);
  }

  // Each file is read and chunked once, here: its outline stays in memory (a plan holds no text),
  // the document built from it waits on disk for apply.
  const spill = opts.outlineOnly || !toRead.length ? null : new DocumentSpill(opts.spillDir ?? tmpdir());
  const outlines = new Map<string, DocumentOutline>();
  const tokensOf = new Map<string, number>();
  const restamp: DocumentStamp[] = [];
  let filesRead = 0;
  try {
    if (toRead.length) await pipeline.chunker.prepare?.(toRead.map((f) => f.path));
    let turn = performance.now();
    for await (const read of snapshot.read(toRead.map((f) => f.path))) {
      const { path } = read;
      filesRead++;
      // A read that is already buffered resumes this loop without the event loop turning: chunking
      // a source would hold a daemon's /healthz and searches for seconds. Yield every slice.
      if (performance.now() - turn > PLAN_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        turn = performance.now();
      }
      // Same bytes under a new stamp (a touched file, or one read again for a racy stamp): only the
      // stamp is written, and the file is neither decoded nor chunked.
      const old = stored.get(path);
      const file = listed.get(path)!;
      if (old && !opts.force && old.chunker === fingerprints(fileMediaType(file, read.mediaType)) && old.contentHash === sha256(read.bytes)) {
        restamp.push({ path, stamp: file.stamp });
        unchanged++;
        continue;
      }
      // The dictionary's glosses of the file's new headwords, worked out in steps before the
      // document is built in one.
      if (spill && pipeline.lexicon) await pipeline.lexicon.warm(read.bytes.toString('utf8'));
      let doc: DocumentRecord | null = null;
      let outlined: ReturnType<typeof outlineOf>;
      try {
        if (spill) outlined = outlineOf((doc = buildDocument(file, read, pipeline, fingerprints)));
        else outlined = outlineDocument(file, read, pipeline, fingerprints);
      } catch (err) {
        skipped.push({ path, reason: errorMessage(err) });
        continue;
      }
      // A failure to keep it (a full disk) fails the plan, not the file.
      if (doc) spill!.put(doc);
      const { outline, tokens } = outlined;
      outlines.set(path, outline);
      outline.chunks.forEach((c, i) => tokensOf.set(c.textHash, tokens[i]!));
    }
  } catch (err) {
    spill?.close();
    throw err;
  }

  // Stored documents whose file is gone; a new file with the same bytes is a rename of one of them.
  const gone = [...stored.values()].filter((d) => !listed.has(d.path));
  const goneByHash = new Map<string, string[]>();
  for (const d of gone) goneByHash.set(d.contentHash, [...(goneByHash.get(d.contentHash) ?? []), d.path]);

  let write: PlannedDocument[] = [];
  for (const f of toRead) {
    const doc = outlines.get(f.path);
    if (!doc) continue;
    const old = stored.get(f.path);
    if (!old) {
      const from = goneByHash.get(doc.contentHash)?.shift();
      write.push(from ? { kind: 'renamed', from, doc } : { kind: 'added', doc });
    } else {
      write.push({ kind: 'changed', doc });
    }
  }

  // A rename's old path is removed in the same transaction that writes the new one; a rename left
  // for a later run by --max-docs keeps its old path indexed until then (it is not a deletion).
  const renamedFrom = new Set(write.flatMap((w) => (w.from ? [w.from] : [])));
  let deferred = 0;
  if (opts.maxDocs !== undefined && write.length > opts.maxDocs) {
    deferred = write.length - opts.maxDocs;
    write = write.slice(0, opts.maxDocs);
  }
  const remove = gone.map((d) => d.path).filter((p) => !renamedFrom.has(p));

  // Distinct texts of the documents to write; their token estimates were made when they were chunked.
  const texts = new Set<string>();
  let chunks = 0;
  for (const w of write) {
    for (const c of w.doc.chunks) texts.add(c.textHash);
    chunks += w.doc.chunks.length;
  }
  const embed = opts.force ? texts : await store.missingVectors(opts.fingerprint, texts);
  let tokens = 0;
  for (const h of embed) tokens += tokensOf.get(h)!;
  // Stored texts without a vector, a page at a time: only their hashes are kept (apply reads the texts again).
  const refill = new Set<string>();
  if (!opts.force) {
    const rewritten = new Set([...write.flatMap((w) => (w.from ? [w.doc.path, w.from] : [w.doc.path])), ...remove]);
    const refillable = (r: { path: string; textHash: string }) => !rewritten.has(r.path) && !embed.has(r.textHash);
    for await (const page of refillPages(store, source.name, opts.fingerprint)) {
      for (const r of page) {
        if (!refillable(r) || refill.has(r.textHash)) continue;
        refill.add(r.textHash);
        tokens += r.tokens;
      }
    }
  }
  let chunksReused = 0;
  for (const w of write) for (const c of w.doc.chunks) if (!embed.has(c.textHash)) chunksReused++;

  return {
    source: source.name,
    fingerprint: opts.fingerprint,
    commitBefore: opts.commitBefore,
    commitAfter: snapshot.commit,
    write,
    delete: remove,
    restamp,
    deferred,
    skipped,
    listed: snapshot.files.length,
    filesRead,
    embed,
    refill,
    counts: {
      documents: documentCounts(write, remove.length, unchanged, skipped.length),
      chunks,
      chunksReused,
      texts: embed.size + refill.size,
    },
    tokens,
    documents: (paths) => {
      if (!paths.length) return [];
      if (!spill) throw new Error(`plan for ${source.name} keeps no documents (made for a dry run)`);
      return spill.read(paths);
    },
    refillTexts: async function* () {
      for await (const page of refillPages(store, source.name, opts.fingerprint)) {
        const texts = page.filter((r) => refill.has(r.textHash)).map((r): [string, string] => [r.textHash, r.text]);
        if (texts.length) yield texts;
      }
    },
    release: () => spill?.close(),
  };
}

/** The source's stored texts without a vector for `fingerprint`, a page at a time. */
async function* refillPages(store: IndexWriter, source: string, fingerprint: string) {
  let after = 0;
  for (;;) {
    const page = await store.storedTextsMissingVectors(source, fingerprint, { after, limit: REFILL_PAGE });
    if (!page.length) return;
    yield page;
    if (page.length < REFILL_PAGE) return;
    after = page[page.length - 1]!.cursor;
  }
}

/**
 * The plan of a git source fetched at the commit its last complete run indexed, under the same
 * listing key (sync/listing.ts): nothing to write, every stored document unchanged. Null when some
 * stored text has no vector under `fingerprint`: the source is then listed and planned in full.
 */
async function* noTexts(): AsyncGenerator<never> {}

export async function planUnlisted(
  store: IndexWriter,
  source: SourceConfig,
  commit: string,
  documents: number,
  opts: PlanOptions,
): Promise<SourcePlan | null> {
  if ((await store.storedTextsMissingVectors(source.name, opts.fingerprint, { after: 0, limit: 1 })).length) return null;
  return {
    source: source.name,
    fingerprint: opts.fingerprint,
    commitBefore: opts.commitBefore,
    commitAfter: commit,
    write: [],
    delete: [],
    restamp: [],
    deferred: 0,
    skipped: [],
    listed: documents,
    filesRead: 0,
    embed: new Set(),
    refill: new Set(),
    counts: { documents: documentCounts([], 0, documents, 0), chunks: 0, chunksReused: 0, texts: 0 },
    tokens: 0,
    documents: () => [],
    refillTexts: noTexts,
    release: () => {},
  };
}
