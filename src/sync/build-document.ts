import { analyzerFingerprint, indexTerms, type Analyzer } from '../core/text/analyzer.ts';
import { estimateTokens } from '../core/text/tokens.ts';
import { sha256 } from '../core/hash.ts';
import type { Chunker, ChunkRecord, DocumentRecord } from '../core/types.ts';
import { contentFingerprint, DEFAULT_CONTENT, htmlPreparer, mediaTypeOf, prepareContent, type ContentOptions } from '../chunking/content/index.ts';
import { decodeText } from '../sources/decode.ts';
import type { HtmlPreparer } from '../core/html-page.ts';
import type { ReadFile, SourceFile } from '../sources/types.ts';
import type { LazyLexicon } from './lexicon/cedict.ts';

/** What turns a source's files into chunks and index terms; its fingerprint is stored per document. */
export interface Pipeline {
  chunker: Chunker;
  analyzer: Analyzer;
  /** The corpus lexicon's dictionary, for sources that use it (their documents record the headwords they contain). */
  lexicon?: LazyLexicon;
  /** What the content step is told (a web source's selectors); the defaults when absent. */
  content?: ContentOptions;
}

export const pipelineFingerprint = (p: Pipeline) =>
  `${p.chunker.fingerprint}+${analyzerFingerprint(p.analyzer)}${p.lexicon ? `+${p.lexicon.id}` : ''}`;

/**
 * A document's fingerprint by its media type, for one pipeline: its source's pipeline, and the
 * content step its media type goes through (HTML: the converter). Each media type's made once.
 */
export type Fingerprints = (mediaType: string) => string;

export function documentFingerprints(p: Pipeline): Fingerprints {
  const made = new Map<string, string>();
  return (mediaType) => {
    let f = made.get(mediaType);
    if (f === undefined) {
      f = pipelineFingerprint(p) + contentFingerprint(mediaType, !!p.chunker.takesAsWritten, p.content ?? DEFAULT_CONTENT);
      made.set(mediaType, f);
    }
    return f;
  };
}

/** The pipeline's content step for HTML pages their source parses (a web crawl): none when its chunker reads HTML as written. */
export const htmlPreparerOf = (p: Pipeline): HtmlPreparer | undefined => htmlPreparer(!!p.chunker.takesAsWritten, p.content ?? DEFAULT_CONTENT);

/** A listed file's media type: as its source declared it (a web page), else as its name tells. */
export const fileMediaType = (file: SourceFile, declared?: string) => mediaTypeOf(file.path, declared ?? file.mediaType);

/**
 * What a plan keeps in memory of a file it read: enough to decide and count (its content hash and
 * the text hash of each chunk, in order), none of the texts. The built document waits on disk for
 * apply (sync/document-spill.ts).
 */
export interface DocumentOutline {
  path: string;
  contentHash: string;
  /** What the file is (its fingerprint depends on it). */
  mediaType: string;
  /** The document's fingerprint (documents.chunker). */
  chunker: string;
  chunks: { textHash: string }[];
  /** Why the chunker left the file out or fell back (its metadata `skipped` / `fallback`), for the run's log. */
  note?: { level: 'info' | 'warn'; message: string };
}

function noteOf(metadata: Record<string, unknown>): DocumentOutline['note'] {
  if (typeof metadata.skipped === 'string') return { level: 'info', message: `not chunked: ${metadata.skipped}` };
  if (typeof metadata.fallback === 'string') return { level: 'warn', message: `cut into line windows: ${metadata.fallback}` };
  return undefined;
}

/** What the keyword index's head column holds: the heading path (title first) and any tags. */
export function headText(c: { heading: string; metadata: Record<string, unknown> }): string {
  const tags = c.metadata.tags;
  return Array.isArray(tags) ? [c.heading, ...tags.filter((t) => typeof t === 'string')].join(' ') : c.heading;
}

/** What a plan reads of a file: its bytes, its media type as declared, and its text as its source prepared it. */
export type FileRead = Pick<ReadFile, 'bytes' | 'mediaType' | 'prepared'>;

/**
 * Decoded, through the content step its media type calls for (HTML → Markdown) unless its source
 * did that already (ReadFile.prepared), and chunked.
 */
function chunkFile(file: SourceFile, read: FileRead, pipeline: Pipeline) {
  const mediaType = fileMediaType(file, read.mediaType);
  // Decoded in any case: what decoding refuses (binary, an LFS pointer) is refused however it came.
  const text = decodeText(file.path, read.bytes);
  const c = read.prepared ?? prepareContent({ path: file.path, text, mediaType }, !!pipeline.chunker.takesAsWritten, pipeline.content ?? DEFAULT_CONTENT);
  return { text: c.text, mediaType, chunked: pipeline.chunker.chunk({ path: file.path, text: c.text, mediaType: c.mediaType }) };
}

/** The outline of a built document and the token estimate of each of its chunk texts. */
export function outlineOf(doc: DocumentRecord): { outline: DocumentOutline; tokens: number[] } {
  const note = noteOf(doc.metadata);
  return {
    outline: {
      path: doc.path,
      contentHash: doc.contentHash,
      mediaType: doc.mediaType!,
      chunker: doc.chunker,
      chunks: doc.chunks.map((c) => ({ textHash: c.textHash })),
      ...(note ? { note } : {}),
    },
    tokens: doc.chunks.map((c) => c.tokens),
  };
}

/** A file's outline and the token estimate of each of its chunk texts, without building it (a dry run; throws what decoding throws). */
export function outlineDocument(file: SourceFile, read: FileRead, pipeline: Pipeline, fingerprints = documentFingerprints(pipeline)): { outline: DocumentOutline; tokens: number[] } {
  const { chunked, mediaType: type } = chunkFile(file, read, pipeline);
  return {
    outline: {
      path: file.path,
      contentHash: sha256(read.bytes),
      mediaType: type,
      chunker: fingerprints(type),
      chunks: chunked.chunks.map((c) => ({ textHash: sha256(c.text) })),
      ...(noteOf(chunked.metadata) ? { note: noteOf(chunked.metadata) } : {}),
    },
    tokens: chunked.chunks.map((c) => estimateTokens(c.text)),
  };
}

/** Reads, validates and chunks one file into the document record that is written. */
export function buildDocument(file: SourceFile, read: FileRead, pipeline: Pipeline, fingerprints = documentFingerprints(pipeline)): DocumentRecord {
  const { bytes } = read;
  const { text, chunked, mediaType: type } = chunkFile(file, read, pipeline);
  const chunks: ChunkRecord[] = chunked.chunks.map((c, ordinal) => ({
    ...c,
    ordinal,
    textHash: sha256(c.text),
    tokens: estimateTokens(c.text),
    terms: indexTerms(pipeline.analyzer, c.text),
    headTerms: indexTerms(pipeline.analyzer, headText(c)),
  }));
  return {
    path: file.path,
    contentHash: sha256(bytes),
    stamp: file.stamp,
    size: bytes.length,
    chunker: fingerprints(type),
    mediaType: type,
    title: chunked.title,
    metadata: chunked.metadata,
    chunks,
    // The file's text once (chunk texts overlap and repeat their context lines).
    ...(pipeline.lexicon ? { lexicon: pipeline.lexicon.load().find([text]) } : {}),
  };
}
