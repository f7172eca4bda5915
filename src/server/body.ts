import type { IncomingMessage } from 'node:http';

/** A request the server refuses with this status and message. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/**
 * A request body parsed as JSON, at most `maxBytes` (413 beyond, said before reading when the
 * Content-Length announces it); malformed JSON → 400. The Content-Type must say JSON (415
 * otherwise, none included): the types a cross-site form or a "simple" fetch may send without a
 * preflight (text/plain, form encodings) are never taken as a request.
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const type = req.headers['content-type'] ?? '';
  const essence = type.split(';')[0]!.trim().toLowerCase();
  if (essence !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(essence)) {
    req.resume();
    throw new HttpError(415, `send the body as application/json (got ${type ? JSON.stringify(type.slice(0, 100)) : 'no Content-Type'})`);
  }
  const declared = Number(req.headers['content-length'] ?? NaN);
  const tooLarge = () => new HttpError(413, `request body larger than ${maxBytes} bytes`);
  if (declared > maxBytes) {
    req.resume();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  // Read by events: breaking out of an async iterator would destroy the socket the 413 goes on.
  await new Promise<void>((resolve, reject) => {
    let n = 0;
    const onData = (c: Buffer) => {
      n += c.length;
      if (n <= maxBytes) return void chunks.push(c);
      req.off('data', onData);
      req.resume(); // the rest is read and dropped
      reject(tooLarge());
    };
    req.on('data', onData);
    req.once('end', () => resolve());
    req.once('error', reject);
  });
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, `malformed JSON body: ${(err as Error).message.slice(0, 200)}`);
  }
}
