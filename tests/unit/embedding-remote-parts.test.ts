import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/core/text/tokens.ts';
import { LruCache } from '../../src/core/lru.ts';
import { ProviderError, redactSecret } from '../../src/core/remote/errors.ts';
import { RateLimiter } from '../../src/embedding/remote/ratelimit.ts';
import { backoffMs, parseRetryAfter, transportError } from '../../src/core/remote/retry.ts';
import { truncateToTokens } from '../../src/embedding/remote/truncate.ts';
import { parseVectors } from '../../src/embedding/remote/validate.ts';
import { statusError } from '../../src/core/remote/reply.ts';
import { WIRE_FORMATS } from '../../src/embedding/remote/wire.ts';

const reply = (data: unknown) => JSON.stringify({ data });

describe('parseVectors', () => {
  it('orders by index and converts to Float32Array', () => {
    const v = parseVectors(reply([{ index: 1, embedding: [3, 4] }, { index: 0, embedding: [1, 2] }]), 2, 2, 'p');
    expect(v.map((x) => Array.from(x))).toEqual([[1, 2], [3, 4]]);
  });

  it.each([
    ['not json', '{"data":', /malformed JSON/, true],
    ['no data', '{"object":"list"}', /no "data" array/, true],
    ['too few', reply([{ index: 0, embedding: [1, 2] }]), /1 vectors for 2 inputs/, true],
    ['repeated index', reply([{ index: 0, embedding: [1, 2] }, { index: 0, embedding: [1, 2] }]), /repeated index 0/, true],
    ['index out of range', reply([{ index: 0, embedding: [1, 2] }, { index: 2, embedding: [1, 2] }]), /index 2/, true],
    ['wrong dimension', reply([{ index: 0, embedding: [1] }, { index: 1, embedding: [1, 2] }]), /got 1-dimensional vectors, config says dimensions 2/, false],
    ['null value', reply([{ index: 0, embedding: [1, null] }, { index: 1, embedding: [1, 2] }]), /non-finite value in vector 0/, true],
    ['string value', reply([{ index: 0, embedding: [1, 2] }, { index: 1, embedding: ['1', 2] }]), /non-finite value in vector 1/, true],
    ['float32 overflow', reply([{ index: 0, embedding: [1, 1e300] }, { index: 1, embedding: [1, 2] }]), /out of float32 range/, true],
  ])('rejects the whole batch: %s', (_name, body, message, retryable) => {
    let err: ProviderError | undefined;
    try {
      parseVectors(body, 2, 2, 'p');
    } catch (e) {
      err = e as ProviderError;
    }
    expect(err).toBeInstanceOf(ProviderError);
    expect(err!.message).toMatch(message);
    expect(err!.retryable).toBe(retryable);
  });
});

describe('parseVectors in the Ollama and TEI formats, and with the size unknown', () => {
  const arrays = (v: Float32Array[]) => v.map((x) => Array.from(x));
  it('reads {embeddings} and a bare list, in input order', () => {
    expect(arrays(parseVectors('{"model":"m","embeddings":[[1,2],[3,4]]}', 2, 2, 'p', WIRE_FORMATS.ollama))).toEqual([[1, 2], [3, 4]]);
    expect(arrays(parseVectors('[[1,2],[3,4]]', 2, 2, 'p', WIRE_FORMATS.tei))).toEqual([[1, 2], [3, 4]]);
  });

  it('takes the size of the first vector when none is configured, and all must share it', () => {
    expect(parseVectors('[[1,2,3]]', 1, null, 'p', WIRE_FORMATS.tei)[0]).toHaveLength(3);
    expect(() => parseVectors('[[1,2],[1,2,3]]', 2, null, 'p', WIRE_FORMATS.tei)).toThrow('p: vectors of 2 and 3 dimensions in one reply; batch rejected');
    expect(() => parseVectors('[[]]', 1, null, 'p', WIRE_FORMATS.tei)).toThrow('p: empty vector in response');
  });

  it('rejects replies without the list where the format keeps it', () => {
    expect(() => parseVectors('{"error":"busy"}', 1, 2, 'p', WIRE_FORMATS.ollama)).toThrow('p: response has no "embeddings" array');
    expect(() => parseVectors('{"embeddings":[[1,2]]}', 1, 2, 'p', WIRE_FORMATS.tei)).toThrow('p: response has no array of vectors');
    expect(() => parseVectors('[[1,2]]', 2, 2, 'p', WIRE_FORMATS.tei)).toThrow('p: 1 vectors for 2 inputs; batch rejected');
  });
});

describe('statusError', () => {
  const r = (status: number, body: string, headers: Record<string, string> = {}) => statusError({ status, body, headers }, 'zhipu embedding-3', 'sk-abcdefgh12345');
  it('retries 429 and 5xx with Retry-After, fails 4xx at once', () => {
    expect(r(429, '{"error":{"message":"slow down"}}', { 'retry-after': '3' })).toMatchObject({ retryable: true, retryAfterMs: 3000, message: 'zhipu embedding-3: HTTP 429: slow down' });
    expect(r(502, '<html>bad gateway</html>')).toMatchObject({ retryable: true, retryAfterMs: null });
    expect(r(400, '{"message":"input too long"}')).toMatchObject({ retryable: false, message: 'zhipu embedding-3: HTTP 400: input too long' });
    expect(r(401, '{"error":"invalid key sk-abcdefgh12345"}').message).toBe(
      'zhipu embedding-3: HTTP 401: invalid key [redacted] (check the API key in the environment variable named by embedder.apiKeyEnv)',
    );
    expect(r(403, '{"code":403,"msg":"forbidden"}')).toMatchObject({ retryable: false });
  });
});

describe('redactSecret', () => {
  it('removes the key, bearer tokens and key-shaped strings, keeps one short line', () => {
    expect(redactSecret('bad key sk-abcdefgh12345 used', 'sk-abcdefgh12345')).toBe('bad key [redacted] used');
    expect(redactSecret('header was Bearer abc.def-ghi', null)).toBe('header was Bearer [redacted]');
    expect(redactSecret('other key sk-proj-ZZZZZZZZZZ', null)).toBe('other key sk-[redacted]');
    expect(redactSecret('a\nb\n  c', null)).toBe('a b c');
    expect(redactSecret('x'.repeat(1000), null)).toHaveLength(301);
  });
});

describe('backoff', () => {
  const o = { baseMs: 100, maxMs: 1000, random: () => 1 };
  it('doubles up to the cap, with equal jitter', () => {
    expect([0, 1, 2, 3, 4, 5].map((a) => backoffMs(a, null, o))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(backoffMs(2, null, { ...o, random: () => 0 })).toBe(200);
  });
  it('honours Retry-After over the exponential step', () => {
    expect(backoffMs(0, 5000, { ...o, random: () => 0 })).toBe(5000);
    expect(backoffMs(5, 5000, o)).toBe(5500);
  });
  it('reads Retry-After as seconds, an HTTP date or retry-after-ms', () => {
    expect(parseRetryAfter({ 'retry-after': '2' })).toBe(2000);
    expect(parseRetryAfter({ 'retry-after': '0.25' })).toBe(250);
    expect(parseRetryAfter({ 'retry-after': new Date(10_000).toUTCString() }, 4_000)).toBe(6000);
    expect(parseRetryAfter({ 'retry-after': '2', 'retry-after-ms': '150' })).toBe(150);
    expect(parseRetryAfter({ 'retry-after': 'soon' })).toBeNull();
    expect(parseRetryAfter({})).toBeNull();
    expect(parseRetryAfter({ 'retry-after': '99999' })).toBe(600_000);
  });
  it('treats resets and timeouts as retryable', () => {
    expect(transportError(Object.assign(new Error('x'), { code: 'UND_ERR_HEADERS_TIMEOUT' }), 'p')).toMatchObject({ retryable: true, message: 'p: timed out' });
    expect(transportError(Object.assign(new Error('x'), { code: 'ECONNRESET' }), 'p')).toMatchObject({ retryable: true });
    expect(transportError(Object.assign(new Error('x'), { code: 'ERR_INVALID_URL' }), 'p')).toMatchObject({ retryable: false });
  });
});

describe('truncateToTokens', () => {
  it('leaves short texts alone and cuts long ones to the limit on a character boundary', () => {
    expect(truncateToTokens('short text', 10)).toEqual({ text: 'short text', tokens: 3, truncated: false });
    const cjk = truncateToTokens('天'.repeat(30) + '😀'.repeat(10), 31);
    expect(cjk.truncated).toBe(true);
    expect(cjk.tokens).toBeLessThanOrEqual(31);
    expect(cjk.text.startsWith('天'.repeat(30))).toBe(true);
    expect(cjk.text).not.toMatch(/[\ud800-\udbff]$/);
    const latin = truncateToTokens('word '.repeat(500), 100);
    expect(estimateTokens(latin.text)).toBeLessThanOrEqual(100);
    expect(latin.tokens).toBeGreaterThan(95);
  });
});

describe('LruCache', () => {
  it('evicts the least recently used', () => {
    const c = new LruCache<number>(2);
    c.set('a', 1);
    c.set('b', 2);
    expect(c.get('a')).toBe(1);
    c.set('c', 3);
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')).toBe(1);
    expect(c.get('c')).toBe(3);
    expect(c.size).toBe(2);
    expect([c.hits, c.misses]).toEqual([3, 1]);
  });
});

describe('RateLimiter', () => {
  it('caps requests in flight and serves waiters first come first served', async () => {
    const l = new RateLimiter({ rpm: null, tpm: null, concurrency: 2 });
    const order: number[] = [];
    const grants = [1, 2, 3, 4].map((i) => l.acquire(1).then((release) => (order.push(i), release)));
    const [r1, r2] = await Promise.all([grants[0]!, grants[1]!]);
    await Promise.resolve();
    expect(order).toEqual([1, 2]);
    r2();
    const r3 = await grants[2]!;
    expect(order).toEqual([1, 2, 3]);
    r1();
    r3();
    (await grants[3]!)();
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it('holds a request the window has no room for until one completes and leaves the window', async () => {
    const l = new RateLimiter({ rpm: 1, tpm: null, concurrency: 5, windowMs: 30 });
    const first = await l.acquire(1);
    let second = false;
    const p = l.acquire(1).then((r) => ((second = true), r));
    await new Promise((r) => setTimeout(r, 60));
    // Still in flight after 60 ms: it may not have reached the provider's window yet, so nothing else goes.
    expect(second).toBe(false);
    first();
    (await p)();
    expect(second).toBe(true);
    expect(l.throttleCount).toBe(1);
  });

  it('lets one request larger than the whole token budget go alone', async () => {
    const l = new RateLimiter({ rpm: null, tpm: 10, concurrency: 5, windowMs: 20 });
    (await l.acquire(50))();
    (await l.acquire(50))();
    expect(l.throttleCount).toBe(1);
  });

  it('rejects a waiter whose signal aborts', async () => {
    const l = new RateLimiter({ rpm: null, tpm: null, concurrency: 1 });
    const held = await l.acquire(1);
    const ac = new AbortController();
    const p = l.acquire(1, ac.signal);
    ac.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
    held();
    (await l.acquire(1))();
  });
});
