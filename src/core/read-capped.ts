/** A reply body longer than its cap: cut off rather than buffered until memory runs out. */
export class ReplyTooLarge extends Error {
  readonly code = 'RAGSYNC_REPLY_TOO_LARGE';
  constructor(readonly maxBytes: number) {
    super(`reply larger than ${maxBytes} bytes; cut off`);
    this.name = 'ReplyTooLarge';
  }
}

/**
 * Reads a body to a string, at most `maxBytes`: a peer that streams without end (fast, so no
 * timeout fires) must not be buffered until the process dies. The stream is destroyed at the cap.
 */
export async function readCapped(body: AsyncIterable<Buffer | Uint8Array> & { destroy(err?: Error): unknown }, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of body) {
    n += c.length;
    if (n > maxBytes) {
      body.destroy();
      throw new ReplyTooLarge(maxBytes);
    }
    chunks.push(Buffer.from(c.buffer, c.byteOffset, c.byteLength));
  }
  return Buffer.concat(chunks).toString('utf8');
}
