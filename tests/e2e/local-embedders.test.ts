import { setTimeout as delay } from 'node:timers/promises';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { embedderSchema } from '../../src/config/schema.ts';
import { createEmbedder } from '../../src/embedding/create.ts';
import { hashEmbed } from '../../src/embedding/hash.ts';
import { withEmbedderDimensions } from '../../src/embedding/remote/detect.ts';
import type { RemoteEmbedder } from '../../src/embedding/remote/embedder.ts';
import { ProviderError } from '../../src/core/remote/errors.ts';
import { PRESETS, type LocalProvider } from '../../src/config/presets.ts';
import { RagsyncError } from '../../src/core/errors.ts';
import { runCli } from '../helpers/cli.ts';
import { writeCorpus } from '../helpers/corpus.ts';
import { FakeProvider, type FakeWire } from '../helpers/fake-provider.ts';
import { captureLog } from '../helpers/remote.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * The local-server presets against real loopback HTTP servers speaking each wire format: Ollama's
 * /api/embed, text-embeddings-inference's /embed, and the OpenAI-style /v1/embeddings of
 * llama.cpp, LM Studio and vLLM.
 */

const texts = ['alpha beta', '天地玄黄', 'gamma delta epsilon'];
const asArrays = (v: Float32Array[]) => v.map((x) => Array.from(x));
let fakes: FakeProvider[] = [];

async function serve(wire: FakeWire, dims: number, apiKey?: string): Promise<FakeProvider> {
  const f = await FakeProvider.start({ dims, wire, apiKey });
  fakes.push(f);
  return f;
}

afterEach(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  fakes = [];
});

/** An embedder for `provider` pointed at `fake`; retry delays kept short but real. */
function local(provider: LocalProvider, fake: FakeProvider, cfg: Record<string, unknown> = {}, deps: Parameters<typeof createEmbedder>[1] = {}) {
  const parsed = embedderSchema.parse({ provider, baseUrl: fake.baseUrl, timeoutMs: 2000, ...cfg });
  return createEmbedder(parsed, { backoff: { baseMs: 5, maxMs: 20, random: () => 0.5 }, sleep: (ms, signal) => delay(ms, undefined, { signal }), ...deps }) as RemoteEmbedder;
}

const WIRES: Record<LocalProvider, FakeWire> = { ollama: 'ollama', tei: 'tei', llamacpp: 'openai', lmstudio: 'openai', vllm: 'openai' };

describe('local embedding servers', () => {
  it.each(Object.keys(WIRES) as LocalProvider[])('%s: its wire format, its default model and size, no key', async (provider) => {
    const preset = PRESETS[provider];
    const fake = await serve(WIRES[provider], preset.dimensions!);
    const e = local(provider, fake);
    const prefix = preset.inputPrefix ?? '';
    expect(asArrays(await e.embed(texts))).toEqual(texts.map((t) => Array.from(hashEmbed(prefix + t, preset.dimensions!))));
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!;
    expect(sent.auth).toBeUndefined();
    expect(sent.inputs).toEqual(texts.map((t) => prefix + t));
    const body = {
      ollama: { model: 'bge-m3', input: sent.inputs },
      tei: { inputs: sent.inputs, truncate: true },
      openai: { model: preset.model, input: sent.inputs, encoding_format: 'float' },
    }[WIRES[provider]];
    expect(sent.body).toEqual(body); // no `dimensions`: these servers do not take one for these models
    expect(e.info.fingerprint.startsWith(`${provider}:${preset.model}:${preset.dimensions}`)).toBe(true);
    await e.close();
  });

  it('lmstudio: nomic-embed-text gets its task prefixes, queries too; a model of your own gets none', async () => {
    const fake = await serve('openai', 768);
    const e = local('lmstudio', fake);
    await e.embed(['甲木'], { purpose: 'query' });
    expect(fake.requests[0]!.inputs).toEqual(['search_query: 甲木']);
    expect(e.info.fingerprint).toMatch(/^lmstudio:text-embedding-nomic-embed-text-v1\.5:768:p[0-9a-f]{8}$/);
    await e.close();
    const own = local('lmstudio', fake, { model: 'text-embedding-bge-m3', dimensions: 768 });
    await own.embed(['甲木']);
    expect(fake.requests[1]!.inputs).toEqual(['甲木']);
    expect(own.info.fingerprint).toBe('lmstudio:text-embedding-bge-m3:768');
    await own.close();
  });

  it('sends a key when one is configured (a server behind a proxy)', async () => {
    const fake = await serve('ollama', 1024, 'local-secret-123');
    const e = local('ollama', fake, { apiKeyEnv: 'OLLAMA_PROXY_KEY' }, { apiKey: () => 'local-secret-123' });
    await e.embed(texts);
    expect(fake.requests[0]!.auth).toBe('Bearer local-secret-123');
    await e.close();
  });
});

describe('errors and malformed replies from Ollama and TEI', () => {
  it('ollama: the server\'s error is reported as it said it, and a 404 is not retried', async () => {
    const fake = await serve('ollama', 1024);
    fake.queue({ kind: 'error', status: 404, message: 'model "bge-m3" not found, try pulling it first' });
    const e = local('ollama', fake);
    const err = await e.embed(texts).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).message).toBe('ollama bge-m3: HTTP 404: model "bge-m3" not found, try pulling it first');
    expect(fake.requests).toHaveLength(1);
    await e.close();
  });

  it('tei: a validation error fails at once; a 503 while the model loads is retried', async () => {
    const fake = await serve('tei', 1024);
    fake.queue({ kind: 'error', status: 413, message: 'Input validation error: batch size 64 > maximum allowed batch size 32' });
    const e = local('tei', fake);
    await expect(e.embed(texts)).rejects.toThrow('tei BAAI/bge-m3: HTTP 413: Input validation error: batch size 64 > maximum allowed batch size 32');
    fake.queue({ kind: 'error', status: 503, message: 'Model is overloaded' });
    expect(asArrays(await e.embed(texts))).toEqual(texts.map((t) => Array.from(hashEmbed(t, 1024))));
    expect(fake.requests.map((r) => r.status)).toEqual([413, 503, 200]);
    await e.close();
  });

  it.each([
    ['ollama', 'bad-shape', /ollama bge-m3: response has no "embeddings" array/],
    ['tei', 'bad-shape', /tei BAAI\/bge-m3: response has no array of vectors/],
    ['ollama', 'malformed', /malformed JSON/],
    ['tei', 'malformed', /malformed JSON/],
    ['ollama', 'wrong-count', /2 vectors for 3 inputs/],
    ['tei', 'nan', /non-finite value in vector 0/],
  ] as const)('%s: %s replies are retried, then given up on; nothing partial is returned', async (wire, kind, message) => {
    const fake = await serve(wire, 1024);
    fake.fallback = { kind };
    const { log, lines } = captureLog();
    const e = local(wire, fake, { maxRetries: 1 }, { log });
    const err = await e.embed(texts).catch((x: unknown) => x);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).toContain('gave up after 2 attempts');
    expect(fake.requests).toHaveLength(2);
    expect(lines.some((l) => message.test(JSON.parse(l).msg))).toBe(true);
    // The next good reply goes through.
    fake.fallback = { kind: 'ok' };
    expect(await e.embed(texts)).toHaveLength(3);
    await e.close();
  });

  it('a vector of the wrong size is a configuration mismatch: not retried', async () => {
    const fake = await serve('ollama', 1024);
    fake.queue({ kind: 'wrong-dims' });
    const e = local('ollama', fake);
    await expect(e.embed(texts)).rejects.toThrow('ollama bge-m3: got 1023-dimensional vectors, config says dimensions 1024; batch rejected');
    expect(fake.requests).toHaveLength(1);
    await e.close();
  });
});

describe('vector size of a model the preset does not know', () => {
  const cfgFor = (fake: FakeProvider, extra: Record<string, unknown> = {}) => ({
    embedder: embedderSchema.parse({ provider: 'ollama', model: 'nomic-embed-text', baseUrl: fake.baseUrl, maxRetries: 0, ...extra }),
  });

  it('is refused without asking, with the field named', async () => {
    const fake = await serve('ollama', 48);
    let err: unknown;
    try {
      createEmbedder(cfgFor(fake).embedder);
    } catch (x) {
      err = x;
    }
    expect(err).toBeInstanceOf(RagsyncError);
    expect((err as Error).message).toMatch(/^embedder\.dims: .*ollama model "nomic-embed-text".*\(got none\)/);
    expect(fake.requests).toHaveLength(0);
  });

  it('is asked of the server once, said in the log, and then part of the fingerprint', async () => {
    const fake = await serve('ollama', 48);
    const { log, lines } = captureLog('info');
    const cfg = await withEmbedderDimensions(cfgFor(fake), { log });
    expect(cfg.embedder).toMatchObject({ provider: 'ollama', model: 'nomic-embed-text', dimensions: 48 });
    expect(fake.requests).toHaveLength(1);
    const said = lines.map((l) => JSON.parse(l).msg as string).find((m) => m.includes('dims not set'));
    expect(said).toBe(
      'embedder.dims not set: ollama model "nomic-embed-text" returned 48-dimensional vectors, using 48 (put "dims": 48 in config to skip this request)',
    );
    const e = createEmbedder(cfg.embedder);
    expect(e.info.fingerprint).toBe('ollama:nomic-embed-text:48');
    expect(await withEmbedderDimensions(cfg, { log })).toBe(cfg); // known now: nothing asked
    expect(fake.requests).toHaveLength(1);
  });

  it('says what to do when the server does not answer', async () => {
    const fake = await serve('ollama', 48);
    const cfg = cfgFor(fake);
    await fake.close();
    fakes = [];
    await expect(withEmbedderDimensions(cfg)).rejects.toThrow(
      /^embedder\.dims: not set for ollama model "nomic-embed-text", and asking http:\/\/127\.0\.0\.1:\d+ failed \(.*\): start the server, or set "dims" in config$/,
    );
  });
});

describe('CLI', () => {
  it('ragsync embedders lists every preset with its default model, size and URL', async () => {
    const text = await runCli(['embedders']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ollama\s+local\s+bge-m3\s+1024\s+http:\/\/127\.0\.0\.1:11434\s+-$/m);
    expect(text.stdout).toMatch(/^tei\s+local\s+BAAI\/bge-m3\s+1024\s+http:\/\/127\.0\.0\.1:8080\s+-$/m);
    expect(text.stdout).toMatch(/^siliconflow\s+hosted\s+BAAI\/bge-m3\s+1024\s+https:\/\/api\.siliconflow\.cn\/v1\s+SILICONFLOW_API_KEY$/m);
    expect(text.stdout).toContain('ollama pull bge-m3');
    const json = await runCli(['embedders', '--json']);
    const rows = JSON.parse(json.stdout) as { provider: string; baseUrl: string | null; model: string | null; dimensions: number | null; local: boolean; wire: string | null }[];
    expect(rows.map((r) => r.provider)).toEqual(['hash', 'zhipu', 'siliconflow', 'openai', 'dashscope', 'openai-compatible', 'ollama', 'tei', 'llamacpp', 'lmstudio', 'vllm']);
    expect(rows.find((r) => r.provider === 'lmstudio')).toMatchObject({ local: true, wire: 'openai', baseUrl: 'http://127.0.0.1:1234/v1', dimensions: 768 });
    expect(rows.find((r) => r.provider === 'vllm')).toMatchObject({ baseUrl: 'http://127.0.0.1:8000/v1', model: 'BAAI/bge-m3', dimensions: 1024 });
    expect(rows.find((r) => r.provider === 'llamacpp')).toMatchObject({ baseUrl: 'http://127.0.0.1:8080/v1', dimensions: 1024 });
  });

  it('ragsync index with a local model of unknown size: asks once, says so, indexes, searches', async () => {
    const t = tempDir();
    try {
      const fake = await serve('ollama', 256);
      writeCorpus(join(t.dir, 'docs'), 3);
      const cfgFile = join(t.dir, 'cfg.json');
      writeFileSync(
        cfgFile,
        JSON.stringify({
          db: 'index.db',
          embedder: { provider: 'ollama', model: 'nomic-embed-text', baseUrl: fake.baseUrl },
          sources: [{ name: 'docs', kind: 'dir', path: 'docs' }],
        }),
      );
      const r = await runCli(['index', '--json', '-c', cfgFile]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ok', fingerprint: 'ollama:nomic-embed-text:256', embedded: 9 });
      expect(r.stderr).toContain('embedder.dims not set: ollama model \\"nomic-embed-text\\" returned 256-dimensional vectors');
      expect(fake.requests[0]!.inputs).toEqual(['dimensions']);
      expect(fake.served.slice(1).flatMap((q) => q.inputs)).toHaveLength(9);
      const s = await runCli(['search', 'w2x1y2 w2x1y9 w2x1y16', '--json', '-k', '1', '--mode', 'vector', '-c', cfgFile]);
      expect(s.code, s.stderr).toBe(0);
      expect(JSON.parse(s.stdout)[0].path).toBe('doc-002.md');
    } finally {
      t.cleanup();
    }
  });
});
