import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { randomHex } from '../core/hash.ts';
import type { DocumentRecord, LexiconEntry } from '../core/types.ts';

/**
 * The documents a plan built, kept on disk until apply reads them back a batch at a time: each
 * file is read and chunked once per run (by the plan), and memory holds one batch however large
 * the source. Only each document's place in the file stays in memory. The file is unlinked as soon
 * as it is opened, so a killed run leaves nothing behind; `close` frees it.
 */
export class DocumentSpill {
  private fd: number | null;
  private end = 0;
  private readonly places = new Map<string, readonly [offset: number, length: number]>();
  private readonly entries = new Map<string, LexiconEntry>();

  constructor(dir: string) {
    const file = join(dir, `.ragsync-plan-${process.pid}-${randomHex(6)}`);
    this.fd = openSync(file, 'wx+', 0o600);
    unlinkSync(file);
  }

  put(doc: DocumentRecord): void {
    // Lexicon entries are the dictionary's own objects, shared by every document holding the
    // headword: kept in memory once each (bounded by the dictionary), written as headwords.
    let kept: object = doc;
    if (doc.lexicon) {
      for (const e of doc.lexicon) if (!this.entries.has(e.headword)) this.entries.set(e.headword, e);
      kept = { ...doc, lexicon: doc.lexicon.map((e) => e.headword) };
    }
    const bytes = serialize(kept);
    let done = 0;
    while (done < bytes.length) done += writeSync(this.open(), bytes, done, bytes.length - done, this.end + done);
    this.places.set(doc.path, [this.end, bytes.length]);
    this.end += bytes.length;
  }

  /** The documents kept at these paths, in that order (a path never kept is an error: the plan did not build it). */
  *read(paths: Iterable<string>): Generator<DocumentRecord> {
    for (const path of paths) {
      const place = this.places.get(path);
      if (!place) throw new Error(`${path} was not built by this plan`);
      const [offset, length] = place;
      const bytes = Buffer.allocUnsafe(length);
      let done = 0;
      while (done < length) {
        const n = readSync(this.open(), bytes, done, length - done, offset + done);
        if (n === 0) throw new Error(`the plan's document file ended early at ${path}`);
        done += n;
      }
      const doc = deserialize(bytes) as Omit<DocumentRecord, 'lexicon'> & { lexicon?: string[] };
      yield doc.lexicon ? { ...doc, lexicon: doc.lexicon.map((h) => this.entries.get(h)!) } : (doc as DocumentRecord);
    }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private open(): number {
    if (this.fd === null) throw new Error('the plan was already applied or released');
    return this.fd;
  }
}
