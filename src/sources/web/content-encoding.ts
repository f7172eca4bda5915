import { pipeline, Transform, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw, gunzipSync } from 'node:zlib';

/** The codings asked for with every request (Accept-Encoding), each decoded here. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/**
 * A response body with its Content-Encoding undone (codings listed in the order applied, so
 * undone last first). Null when a coding is not one ragsync asked for. The caller caps what it
 * reads of the decoded stream: a small compressed body may expand without bound.
 */
export function decodedBody(body: Readable, contentEncoding: string | undefined): Readable | null {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  if (!codings.length) return body;
  const steps: NodeJS.ReadWriteStream[] = [];
  for (const c of codings.reverse()) {
    if (c === 'gzip' || c === 'x-gzip') steps.push(createGunzip());
    else if (c === 'br') steps.push(createBrotliDecompress());
    // "deflate" is meant to be zlib-wrapped, but some servers send it raw: told by the first byte.
    else if (c === 'deflate') steps.push(deflateEither());
    else return null;
  }
  return pipeline([body, ...steps] as unknown as [Readable, ...NodeJS.ReadWriteStream[]], () => {}) as unknown as Readable;
}

/** zlib-wrapped deflate (a first byte whose low nibble is 8: CM=8) or raw deflate. */
function deflateEither(): NodeJS.ReadWriteStream {
  const wrapped = createInflate();
  const raw = createInflateRaw();
  let chosen: NodeJS.ReadWriteStream | null = null;
  return new Transform({
    transform(chunk: Buffer, _enc: string, done: (err?: Error | null) => void) {
      if (!chosen) {
        chosen = (chunk[0]! & 0x0f) === 8 ? wrapped : raw;
        chosen.on('data', (d: Buffer) => this.push(d));
        chosen.on('error', (e: Error) => this.destroy(e));
      }
      chosen.write(chunk, () => done());
    },
    flush(done: (err?: Error | null) => void) {
      if (!chosen) return done();
      chosen.once('end', () => done());
      chosen.end();
    },
  });
}

/** Whether bytes start as a gzip member does (a sitemap.xml.gz served without Content-Encoding). */
export const isGzip = (b: Uint8Array) => b.length > 2 && b[0] === 0x1f && b[1] === 0x8b;

/** Gunzips bytes in memory, refusing an output over maxBytes (a gzip bomb stops there). */
export function gunzipCapped(b: Buffer, maxBytes: number): Buffer {
  return gunzipSync(b, { maxOutputLength: maxBytes });
}
