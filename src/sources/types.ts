import type { PreparedText } from '../core/html-page.ts';

/** A file as listed by a source, before it is read. */
export interface SourceFile {
  /** Relative to the source root, '/' separated. */
  path: string;
  size: number;
  /** Changes whenever the content may have: the git blob id, or size:mtime for a folder. */
  stamp: string;
  /** What the file is, when the source knows better than its name (a web page's Content-Type). */
  mediaType?: string;
}

/** A file's bytes as read, and what it is. */
export interface ReadFile {
  path: string;
  bytes: Buffer;
  mediaType?: string;
  /**
   * Its text through the content step already (SnapshotContext.prepareHtml), when the source
   * parsed it for its own needs (a web page, for its links): not parsed a second time.
   */
  prepared?: PreparedText;
}

/** One consistent view of a source: the files at one commit (or one listing of a folder). */
export interface Snapshot {
  commit: string | null;
  files: SourceFile[];
  /** Reads the given files' bytes; yields in any order. */
  read(paths: string[]): AsyncIterable<ReadFile>;
  /**
   * Brings the source's own copy to this snapshot (a git checkout's work tree to the commit):
   * called only once the run has indexed the snapshot in full, so a refused or failed run leaves
   * the copy where the index is.
   */
  settle?(): Promise<void>;
}

/**
 * A git source fetched at the commit its last complete run indexed, under the same listing key
 * (sync/listing.ts): nothing is listed unless the run asks for it.
 */
export interface UnlistedSnapshot {
  commit: string;
  unlisted: true;
  /** Lists the files after all (the run found a reason to plan the source in full). */
  list(): Promise<Snapshot>;
  /** As Snapshot.settle. */
  settle?(): Promise<void>;
}
