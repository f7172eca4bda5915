/** A file as listed by a source, before it is read. */
export interface SourceFile {
  /** Relative to the source root, '/' separated. */
  path: string;
  size: number;
  /** Changes whenever the content may have: the git blob id, or size:mtime for a folder. */
  stamp: string;
}

/** One consistent view of a source: the files at one commit (or one listing of a folder). */
export interface Snapshot {
  commit: string | null;
  files: SourceFile[];
  /** Reads the given files' bytes; yields in any order. */
  read(paths: string[]): AsyncIterable<{ path: string; bytes: Buffer }>;
}
