import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashEmbed } from '../../src/embedding/hash.ts';
import { CircuitOpenError, ProviderError } from '../../src/core/remote/errors.ts';
import { estimateTokens } from '../../src/core/text/tokens.ts';
import { FakeProvider } from '../helpers/fake-provider.ts';
import { captureLog, fakeEmbedder } from '../helpers/remote.ts';

const KEY = 'sk-test-0123456789abcdef';
const DIMS = 32;
let fake: FakeProvider;

beforeEach(async () => {
  fake = await FakeProvider.start({ dims: DIMS, apiKey: KEY });
});
afterEach(async () => {
  await fake.close();
});

const texts = ['alpha beta', '天地玄黄', 'gamma delta epsilon'];
const expected = texts.map((t) => Array.from(hashEmbed(t, DIMS)));
const asArrays = (v: Float32Array[]) => v.map((x) => Array.from(x));

describe('remote embedder against a loopback provider', () => {
  it('sends an OpenAI-style request and returns vectors in input order (provider answers out of order)', async () => {
    const { embedder } = fakeEmbedder(fake, { apiKeyEnv: 'X_KEY' }, { apiKey: () => KEY });
    expect(asArrays(await embedder.embed(texts))).toEqual(expected);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ model: 'fake-model', dimensions: DIMS, inputs: texts });
    expect(embedder.info.fingerprint).toBe(`openai-compatible:fake-model:${DIMS}`);
    expect(embedder.stats).toMatchObject({ requests: 1, retries: 0 });
    await embedder.close();
  });

  it('retries a burst of 429s, honouring Retry-After', async () => {
    fake.queue({ kind: '429', retryAfter: '0.05' }, { kind: '429', retryAfter: '0.08' }, { kind: '429', retryAfter: '0.05' });
    const { embedder, delays } = fakeEmbedder(fake, { apiKeyEnv: 'X_KEY' }, { apiKey: () => KEY });
    expect(asArrays(await embedder.embed(texts))).toEqual(expected);
    expect(fake.requests.map((r) => r.status)).toEqual([429, 429, 429, 200]);
    expect(embedder.stats.retries).toBe(3);
    // Retry-After wins over the (10 ms) exponential step; up to 10% jitter on top.
    expect(delays).toEqual([53, 84, 53]);
    // And the next request really went out no sooner than asked.
    const at = fake.requests.map((r) => r.at);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(80);
    await embedder.close();
  });

  it('backs off exponentially when a 429 has no Retry-After', async () => {
    fake.queue({ kind: '429' }, { kind: '429' }, { kind: '429' });
    const { embedder, delays } = fakeEmbedder(fake, { apiKeyEnv: 'X_KEY' }, { apiKey: () => KEY });
    await embedder.embed(texts);
    // base 10 ms doubling, equal jitter with random = 0.5: ceil(step * 0.75)
    expect(delays).toEqual([8, 15, 30]);
    await embedder.close();
  });

  it('retries 500s, resets, timeouts and malformed, short or non-finite replies', async () => {
    fake.queue(
      { kind: '500' },
      { kind: '503' },
      { kind: 'reset' },
      { kind: 'slow', delayMs: 3000 },
      { kind: 'malformed' },
      { kind: 'wrong-count' },
      { kind: 'nan' },
    );
    const { log, lines } = captureLog();
    const { embedder } = fakeEmbedder(fake, { apiKeyEnv: 'X_KEY', timeoutMs: 800, maxRetries: 8, breakerThreshold: 20 }, { apiKey: () => KEY, log });
    expect(asArrays(await embedder.embed(texts))).toEqual(expected);
    expect(embedder.stats.retries).toBe(7);
    const reasons = lines.map((l) => JSON.parse(l).msg as string).filter((m) => m.startsWith('openai-compatible'));
    expect(reasons).toEqual([
      expect.stringContaining('HTTP 500'),
      expect.stringContaining('HTTP 503'),
      expect.stringMatching(/connection failed|request failed/),
      expect.stringContaining('timed out'),
      expect.stringContaining('malformed JSON'),
      expect.stringContaining('2 vectors for 3 inputs'),
      expect.stringContaining('non-finite'),
    ]);
    await embedder.close();
  });

  it('rejects a wrong dimension at once, with a clear message', async () => {
    fake.queue({ kind: 'wrong-dims' });
    const { embedder } = fakeEmbedder(fake, { apiKeyEnv: 'X_KEY' }, { apiKey: () => KEY });
    await expect(embedder.embed(texts)).rejects.toThrow(`got ${DIMS - 1}-dimensional vectors, config says dimensions ${DIMS}`);
    expect(fake.requests).toHaveLength(1);
    await embedder.close();
  });

  it('fails at once on 401 with the provider message, the key redacted', async () => {
    const wrong = 'sk-wrong-key-9876543210';
    const { embedder } = fakeEmbedder(fake, { apiKeyEnv: 'X_KEY' }, { apiKey: () => wrong });
    const err = (await embedder.embed(texts).catch((e: unknown) => e)) as ProviderError;
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.message).toContain('HTTP 401: Incorrect API key provided: [redacted]');
    expect(err.message).not.toContain(wrong);
    expect(err.message).not.toContain('\n');
    expect(fake.requests).toHaveLength(1);
    await embedder.close();
  });

  it('fails at once on 400', async () => {
    fake.queue({ kind: '400' });
    const { embedder } = fakeEmbedder(fake, { apiKeyEnv: 'X_KEY' }, { apiKey: () => KEY });
    await expect(embedder.embed(texts)).rejects.toThrow('HTTP 400: scripted 400');
    expect(fake.requests).toHaveLength(1);
    await embedder.close();
  });

  it('gives up after maxRetries', async () => {
    fake.fallback = { kind: '500' };
    const { embedder } = fakeEmbedder(fake, { apiKeyEnv: 'X_KEY', maxRetries: 2 }, { apiKey: () => KEY });
    await expect(embedder.embed(texts)).rejects.toThrow('HTTP 500: scripted 500 (gave up after 3 attempts)');
    expect(fake.requests).toHaveLength(3);
    await embedder.close();
  });

  it('opens the circuit after N failed requests in a row and then refuses without calling', async () => {
    fake.fallback = { kind: '503' };
    const { embedder } = fakeEmbedder(fake, { apiKeyEnv: 'X_KEY', maxRetries: 10, breakerThreshold: 3 }, { apiKey: () => KEY });
    const err = await embedder.embed(texts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CircuitOpenError);
    expect((err as Error).message).toMatch(/3 failed requests in a row, giving up \(last: .*HTTP 503.*\); vectors already stored are kept/);
    expect(fake.requests).toHaveLength(3);
    await expect(embedder.embed(texts)).rejects.toBeInstanceOf(CircuitOpenError);
    expect(fake.requests).toHaveLength(3);
    await embedder.close();
  });

  it('stops at once when the signal aborts, without retrying', async () => {
    fake.queue({ kind: 'slow', delayMs: 1500 });
    const { embedder } = fakeEmbedder(fake, { apiKeyEnv: 'X_KEY' }, { apiKey: () => KEY });
    const ac = new AbortController();
    const p = embedder.embed(texts, { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    await expect(p).rejects.toThrow();
    expect(embedder.stats.retries).toBe(0);
    expect(fake.requests).toHaveLength(1);
    await embedder.close();
  });

  it('caches query vectors: a repeated query costs no call', async () => {
    const { embedder } = fakeEmbedder(fake, { apiKeyEnv: 'X_KEY', queryPrefix: 'query: ' }, { apiKey: () => KEY });
    const a = await embedder.embed(['who wrote it'], { purpose: 'query' });
    const b = await embedder.embed(['who wrote it'], { purpose: 'query' });
    await embedder.embed(['something else'], { purpose: 'query' });
    expect(Array.from(b[0]!)).toEqual(Array.from(a[0]!));
    expect(fake.requests.map((r) => r.inputs)).toEqual([['query: who wrote it'], ['query: something else']]);
    expect(embedder.info.fingerprint).toMatch(/^openai-compatible:fake-model:32:p[0-9a-f]{8}$/);
    await embedder.close();
  });

  it('truncates an input over maxInputTokens and logs which one by hash, never the text', async () => {
    const { log, lines } = captureLog();
    const { embedder } = fakeEmbedder(fake, { apiKeyEnv: 'X_KEY', maxInputTokens: 20 }, { apiKey: () => KEY, log });
    const long = '长'.repeat(50) + ' secret-marker-text';
    await embedder.embed(['short', long]);
    const sent = fake.requests[0]!.inputs;
    expect(sent[0]).toBe('short');
    expect(estimateTokens(sent[1]!)).toBeLessThanOrEqual(20);
    expect(sent[1]).toBe('长'.repeat(20));
    const warn = lines.map((l) => JSON.parse(l)).find((l) => l.msg.includes('truncated'));
    expect(warn).toMatchObject({ textHash: expect.stringMatching(/^[0-9a-f]{12}$/), maxInputTokens: 20 });
    expect(lines.join('\n')).not.toContain('secret-marker-text');
    await embedder.close();
  });

  it('says which environment variable is missing', async () => {
    const { embedder } = fakeEmbedder(fake, { apiKeyEnv: 'RAGSYNC_TEST_SURELY_UNSET' });
    await expect(embedder.embed(texts)).rejects.toThrow('embedder.apiKeyEnv: environment variable RAGSYNC_TEST_SURELY_UNSET is not set');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('rate limits against a provider enforcing them', () => {
  it('keeps under a request limit: no 429, throttling logged once and resumed once per episode', async () => {
    await fake.close();
    fake = await FakeProvider.start({ dims: DIMS, limits: { rpm: 3, windowMs: 250 } });
    const { log, lines } = captureLog();
    const { embedder } = fakeEmbedder(fake, { rpm: 3, concurrency: 8 }, { windowMs: 250, log });
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => embedder.embed([`text ${i}`])));
    expect(results).toHaveLength(8);
    expect(fake.limited).toBe(0);
    expect(fake.requests.map((r) => r.status)).toEqual(Array(8).fill(200));
    // No window of the server's length ever held more than 3 requests. Timestamps are whole
    // milliseconds and the fake's window (like a provider's) lets out a request exactly windowMs
    // old, so 250 apart is already a new window.
    const at = fake.requests.map((r) => r.at);
    for (let i = 3; i < at.length; i++) expect(at[i]! - at[i - 3]!).toBeGreaterThanOrEqual(250);
    const msgs = lines.map((l) => JSON.parse(l));
    const waits = msgs.filter((m) => m.msg === 'rate limit reached: waiting');
    const resumes = msgs.filter((m) => m.msg === 'rate limit: resuming');
    expect(waits.length).toBeGreaterThanOrEqual(1);
    expect(resumes).toHaveLength(waits.length);
    expect(waits[0]).toMatchObject({ limit: 'rpm', resumeAt: expect.any(String) });
    await embedder.close();
  });

  it("keeps under a token limit", { timeout: 20_000 }, async () => {
    await fake.close();
    fake = await FakeProvider.start({ dims: DIMS, limits: { tpm: 100, windowMs: 250 } });
    const { embedder } = fakeEmbedder(fake, { tpm: 100, concurrency: 4 }, { windowMs: 250 });
    const text = 'x'.repeat(160); // 40 estimated tokens: two per window
    await Promise.all(Array.from({ length: 6 }, (_, i) => embedder.embed([text + i])));
    expect(fake.limited).toBe(0);
    expect(embedder.limiter.throttleCount).toBeGreaterThanOrEqual(1);
    await embedder.close();
  });

  it('without client limits the same load is refused by the provider (the test can fail)', async () => {
    await fake.close();
    fake = await FakeProvider.start({ dims: DIMS, limits: { rpm: 3, windowMs: 250 } });
    const { embedder } = fakeEmbedder(fake, { concurrency: 8, maxRetries: 10, breakerThreshold: 100 }, { windowMs: 250 });
    await Promise.all(Array.from({ length: 8 }, (_, i) => embedder.embed([`text ${i}`])));
    expect(fake.limited).toBeGreaterThan(0);
    await embedder.close();
  });
});
