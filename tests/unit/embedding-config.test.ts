import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { createEmbedder } from '../../src/embedding/create.ts';
import { withRateLimits } from '../../src/config/rate-limits.ts';
import { resolveRemote } from '../../src/config/presets.ts';
import type { RemoteEmbedder } from '../../src/embedding/remote/embedder.ts';

const sources = [{ name: 'a', kind: 'dir', path: '/tmp/a' }];
const parse = (embedder: unknown) => parseConfig({ sources, embedder });
const error = (embedder: unknown) => {
  try {
    parse(embedder);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected a config error');
};

describe('embedder config', () => {
  it('keeps the hash embedder as the default, with or without a provider field', () => {
    expect(parseConfig({ sources }).embedder).toEqual({ provider: 'hash', dims: 1024, batchSize: 256 });
    expect(parse({ dims: 512 }).embedder).toEqual({ provider: 'hash', dims: 512, batchSize: 256 });
  });

  it('names the field and the value in every error', () => {
    expect(error({ provider: 'cohere' })).toBe(
      'config: embedder.provider: expected one of hash|zhipu|siliconflow|openai|dashscope|openai-compatible|ollama|tei|llamacpp|lmstudio|vllm (got "cohere")',
    );
    expect(error({ provider: 'zhipu', batchSize: 100 })).toBe('config: embedder.batchSize: zhipu takes at most 64 inputs per request (got 100)');
    expect(error({ provider: 'dashscope', batchSize: 11 })).toContain('embedder.batchSize: dashscope takes at most 10');
    expect(error({ provider: 'zhipu', dimensions: 300 })).toBe('config: embedder.dims: embedding-3 produces 256/512/1024/2048 dimensions (got 300)');
    expect(error({ provider: 'siliconflow', dimensions: 512 })).toContain('BAAI/bge-m3 produces 1024 dimensions (got 512)');
    expect(error({ provider: 'dashscope', dimensions: 2048 })).toContain('text-embedding-v3 produces 64/128/256/512/768/1024 dimensions (got 2048)');
    expect(error({ provider: 'openai-compatible', model: 'm', dimensions: 8 })).toBe(
      'config: embedder.baseUrl: required for provider "openai-compatible" (got none)',
    );
    expect(error({ provider: 'openai', rpm: 0 })).toBe('config: embedder.rpm: Too small: expected number to be >=1 (got 0)');
    expect(error({ provider: 'openai', baseUrl: 'ftp://example.com' })).toContain('embedder.baseUrl: Invalid URL (got "ftp://example.com")');
    expect(error({ provider: 'openai', apiKeyEnv: 'has space' })).toContain('embedder.apiKeyEnv: an environment variable name (got "has space")');
  });

  it('refuses a key in config without echoing it', () => {
    const msg = error({ provider: 'openai', apiKey: 'sk-live-abcdef123456' });
    expect(msg).toContain('embedder.apiKey: keys do not belong in config');
    expect(msg).not.toContain('sk-live');
    const unknown = error({ provider: 'openai', secret: 'sk-live-abcdef123456' });
    expect(unknown).toContain('Unrecognized key: "secret"');
    expect(unknown).not.toContain('sk-live');
  });

  it('fills each preset in', () => {
    const zhipu = resolveRemote(parse({ provider: 'zhipu' }).embedder as never);
    expect(zhipu).toMatchObject({
      baseUrl: 'https://open.bigmodel.cn/api/paas/v4',
      model: 'embedding-3',
      dimensions: 2048,
      apiKeyEnv: 'ZHIPU_API_KEY',
      batchSize: 64,
      maxInputTokens: 3072,
      sendDimensions: true,
    });
    const sf = resolveRemote(parse({ provider: 'siliconflow', rpm: 2000 }).embedder as never);
    expect(sf).toMatchObject({ baseUrl: 'https://api.siliconflow.cn/v1', model: 'BAAI/bge-m3', dimensions: 1024, sendDimensions: false, rpm: 2000, tpm: null });
    expect(resolveRemote(parse({ provider: 'openai' }).embedder as never)).toMatchObject({ model: 'text-embedding-3-small', dimensions: 1536 });
    expect(resolveRemote(parse({ provider: 'dashscope', model: 'text-embedding-v4', dimensions: 2048 }).embedder as never)).toMatchObject({
      baseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
      dimensions: 2048,
      batchSize: 10,
    });
    const custom = resolveRemote(parse({ provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1/', model: 'm', dimensions: 8 }).embedder as never);
    expect(custom).toMatchObject({ baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: null });
  });

  it('fingerprints provider, model and dimensions, never the key; creating one needs no key', () => {
    process.env.RAGSYNC_UNIT_KEY = 'sk-unit-secret-123456';
    const fp = (e: unknown) => createEmbedder(parse(e).embedder).info.fingerprint;
    expect(fp({ provider: 'siliconflow', apiKeyEnv: 'RAGSYNC_UNIT_KEY' })).toBe('siliconflow:BAAI/bge-m3:1024');
    expect(fp({ provider: 'zhipu', dimensions: 1024 })).toBe('zhipu:embedding-3:1024');
    expect(fp({ provider: 'openai' })).toBe('openai:text-embedding-3-small:1536');
    expect(fp({ provider: 'dashscope' })).toBe('dashscope:text-embedding-v3:1024');
    expect(fp({ provider: 'openai', inputPrefix: 'passage: ' })).toMatch(/^openai:text-embedding-3-small:1536:p[0-9a-f]{8}$/);
    expect(fp({ provider: 'openai', inputPrefix: 'passage: ' })).not.toBe(fp({ provider: 'openai', inputPrefix: 'doc: ' }));
    expect(fp({ provider: 'hash', dims: 64 })).toBe('hash:cjk-ngram@1:64');
    delete process.env.RAGSYNC_UNIT_KEY;
  });

  it('fills the local-server presets in: loopback URL, default model and size, no key, their wire format', () => {
    const local = (e: unknown) => resolveRemote(parse(e).embedder as never);
    expect(local({ provider: 'ollama' })).toMatchObject({
      baseUrl: 'http://127.0.0.1:11434',
      model: 'bge-m3',
      dimensions: 1024,
      apiKeyEnv: null,
      sendDimensions: false,
      wire: 'ollama',
    });
    expect(local({ provider: 'tei' })).toMatchObject({ baseUrl: 'http://127.0.0.1:8080', model: 'BAAI/bge-m3', dimensions: 1024, wire: 'tei', batchSize: 32 });
    expect(local({ provider: 'llamacpp' })).toMatchObject({ baseUrl: 'http://127.0.0.1:8080/v1', wire: 'openai' });
    expect(local({ provider: 'lmstudio' })).toMatchObject({ baseUrl: 'http://127.0.0.1:1234/v1', dimensions: 768, inputPrefix: 'search_document: ' });
    expect(local({ provider: 'vllm', apiKeyEnv: 'VLLM_API_KEY' })).toMatchObject({ baseUrl: 'http://127.0.0.1:8000/v1', apiKeyEnv: 'VLLM_API_KEY' });
    // Another model: its size is not guessed from the preset's.
    expect(local({ provider: 'ollama', model: 'nomic-embed-text' }).dimensions).toBeNull();
    expect(local({ provider: 'tei', model: 'BAAI/bge-small-zh-v1.5', dimensions: 512 }).dimensions).toBe(512);
    expect(error({ provider: 'ollama', dimensions: 768 })).toBe('config: embedder.dims: bge-m3 produces 1024 dimensions (got 768)');
    expect(error({ provider: 'tei', batchSize: 64 })).toBe('config: embedder.batchSize: tei takes at most 32 inputs per request (got 64)');
    const fp = (e: unknown) => createEmbedder(parse(e).embedder).info.fingerprint;
    expect(fp({ provider: 'vllm' })).toBe('vllm:BAAI/bge-m3:1024');
    expect(fp({ provider: 'tei', model: 'BAAI/bge-small-zh-v1.5', dimensions: 512 })).toBe('tei:BAAI/bge-small-zh-v1.5:512');
  });

  it('lets --rpm/--tpm override the configured limits', () => {
    const cfg = parse({ provider: 'openai', rpm: 100, tpm: 1000 });
    const over = withRateLimits(cfg, 50, undefined);
    expect(over.embedder).toMatchObject({ rpm: 50, tpm: 1000 });
    expect((createEmbedder(over.embedder) as RemoteEmbedder).settings).toMatchObject({ rpm: 50, tpm: 1000 });
    expect(withRateLimits(parseConfig({ sources }), 5, 5).embedder).toEqual({ provider: 'hash', dims: 1024, batchSize: 256 });
  });
});
