/**
 * What each hosted provider accepts, so a config only has to name the provider. Sources (checked
 * 2026-11): bigmodel.cn "文本嵌入" API reference (embedding-3: ≤ 64 inputs, ≤ 3072 tokens each,
 * dimensions 256/512/1024/2048, default 2048); DashScope OpenAI-compatible mode (text-embedding-v3/v4:
 * ≤ 10 inputs, ≤ 8192 tokens each); OpenAI embeddings reference (≤ 2048 inputs, 8191 tokens each);
 * SiliconFlow BAAI/bge-m3 (1024 dims, 8192 tokens; 64 inputs per request is our conservative cap).
 * Local servers (no key needed): Ollama's /api/embed, text-embeddings-inference's /embed and the
 * OpenAI-style /v1/embeddings of llama.cpp's llama-server, LM Studio and vLLM, on their default ports.
 */
export type LocalProvider = 'ollama' | 'tei' | 'llamacpp' | 'lmstudio' | 'vllm';
export type RemoteProvider = 'zhipu' | 'siliconflow' | 'openai' | 'dashscope' | 'openai-compatible' | LocalProvider;

/** Request and reply shapes an endpoint speaks (wire.ts). */
export type WireFormatName = 'openai' | 'ollama' | 'tei';

export interface Preset {
  baseUrl?: string;
  model?: string;
  /** Default output size. */
  dimensions?: number;
  /** Sizes the model can produce; undefined = any from 1 up to `dimensions` (or anything, without one). */
  allowedDimensions?: readonly number[];
  /** Whether the API takes a `dimensions` field for this model (bge-m3 does not). */
  sendDimensions: boolean;
  apiKeyEnv?: string;
  /** Most inputs one request may carry. */
  maxBatch: number;
  defaultBatch: number;
  /** Longest single input, in tokens. */
  maxInputTokens: number;
  /** Whether the vectors come back L2-normalised. */
  normalized: boolean;
  wire: WireFormatName;
  /** A server on this machine: its default model's size is known, another model's is asked for. */
  local?: boolean;
  /** How to get the default model running (shown by `ragsync embedders`). */
  hint?: string;
  /** For the default model only, unless the config sets its own (nomic-embed-text wants task prefixes). */
  inputPrefix?: string;
  queryPrefix?: string;
}

export const PRESETS: Record<RemoteProvider, Preset> = {
  zhipu: {
    baseUrl: 'https://open.bigmodel.cn/api/paas/v4',
    model: 'embedding-3',
    dimensions: 2048,
    allowedDimensions: [256, 512, 1024, 2048],
    sendDimensions: true,
    apiKeyEnv: 'ZHIPU_API_KEY',
    maxBatch: 64,
    defaultBatch: 64,
    maxInputTokens: 3072,
    normalized: true,
    wire: 'openai',
  },
  siliconflow: {
    baseUrl: 'https://api.siliconflow.cn/v1',
    model: 'BAAI/bge-m3',
    dimensions: 1024,
    allowedDimensions: [1024],
    sendDimensions: false,
    apiKeyEnv: 'SILICONFLOW_API_KEY',
    maxBatch: 64,
    defaultBatch: 32,
    maxInputTokens: 8192,
    normalized: true,
    wire: 'openai',
  },
  openai: {
    baseUrl: 'https://api.openai.com/v1',
    model: 'text-embedding-3-small',
    dimensions: 1536,
    sendDimensions: true,
    apiKeyEnv: 'OPENAI_API_KEY',
    maxBatch: 2048,
    defaultBatch: 256,
    maxInputTokens: 8191,
    normalized: true,
    wire: 'openai',
  },
  dashscope: {
    baseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
    model: 'text-embedding-v3',
    dimensions: 1024,
    // v3: 1024/768/512/256/128/64; v4 adds 2048/1536. Checked per model in allowedDimensionsFor().
    allowedDimensions: [64, 128, 256, 512, 768, 1024, 1536, 2048],
    sendDimensions: true,
    apiKeyEnv: 'DASHSCOPE_API_KEY',
    maxBatch: 10,
    defaultBatch: 10,
    maxInputTokens: 8192,
    normalized: true,
    wire: 'openai',
  },
  'openai-compatible': {
    sendDimensions: true,
    maxBatch: 2048,
    defaultBatch: 64,
    maxInputTokens: 8192,
    normalized: false,
    wire: 'openai',
  },
  // Local servers. None takes a `dimensions` field for these models; their vectors are normalised
  // by the index itself (normalized: false), whatever the server version or flags.
  ollama: {
    baseUrl: 'http://127.0.0.1:11434',
    model: 'bge-m3',
    dimensions: 1024,
    allowedDimensions: [1024],
    sendDimensions: false,
    maxBatch: 256,
    defaultBatch: 32,
    maxInputTokens: 8192,
    normalized: false,
    wire: 'ollama',
    local: true,
    hint: 'ollama pull bge-m3',
  },
  tei: {
    baseUrl: 'http://127.0.0.1:8080',
    model: 'BAAI/bge-m3',
    dimensions: 1024,
    allowedDimensions: [1024],
    sendDimensions: false,
    // TEI's default --max-client-batch-size.
    maxBatch: 32,
    defaultBatch: 32,
    maxInputTokens: 8192,
    normalized: false,
    wire: 'tei',
    local: true,
    hint: 'docker run -p 8080:80 ghcr.io/huggingface/text-embeddings-inference:cpu-latest --model-id BAAI/bge-m3',
  },
  llamacpp: {
    baseUrl: 'http://127.0.0.1:8080/v1',
    model: 'bge-m3',
    dimensions: 1024,
    allowedDimensions: [1024],
    sendDimensions: false,
    maxBatch: 64,
    defaultBatch: 16,
    maxInputTokens: 8192,
    normalized: false,
    wire: 'openai',
    local: true,
    // Each input must fit the physical batch (-ub, 512 by default): raise it for long chunks.
    hint: 'llama-server -m bge-m3-Q8_0.gguf --embeddings --pooling cls -ub 8192',
  },
  lmstudio: {
    baseUrl: 'http://127.0.0.1:1234/v1',
    model: 'text-embedding-nomic-embed-text-v1.5',
    dimensions: 768,
    allowedDimensions: [768],
    sendDimensions: false,
    maxBatch: 64,
    defaultBatch: 16,
    maxInputTokens: 2048,
    normalized: false,
    wire: 'openai',
    local: true,
    hint: 'lms load text-embedding-nomic-embed-text-v1.5 && lms server start',
    inputPrefix: 'search_document: ',
    queryPrefix: 'search_query: ',
  },
  vllm: {
    baseUrl: 'http://127.0.0.1:8000/v1',
    model: 'BAAI/bge-m3',
    dimensions: 1024,
    allowedDimensions: [1024],
    sendDimensions: false,
    maxBatch: 256,
    defaultBatch: 64,
    maxInputTokens: 8192,
    normalized: false,
    wire: 'openai',
    local: true,
    hint: 'vllm serve BAAI/bge-m3',
  },
};

/** The sizes `model` can produce, where the preset knows them. */
export function allowedDimensionsFor(provider: RemoteProvider, model: string): readonly number[] | undefined {
  if (provider === 'dashscope' && model === 'text-embedding-v3') return [64, 128, 256, 512, 768, 1024];
  const p = PRESETS[provider];
  // A preset's list describes its default model only.
  return p.model === undefined || model === p.model ? p.allowedDimensions : undefined;
}

/** A remote embedder's settings with the preset filled in. */
export interface RemoteSettings {
  provider: RemoteProvider;
  baseUrl: string;
  model: string;
  /** Null: neither config nor preset knows it (a local server's other model); detect.ts asks. */
  dimensions: number | null;
  sendDimensions: boolean;
  apiKeyEnv: string | null;
  batchSize: number;
  maxInputTokens: number;
  rpm: number | null;
  tpm: number | null;
  concurrency: number;
  timeoutMs: number;
  /** Whole request, first byte sent to last received. */
  deadlineMs: number;
  maxRetries: number;
  breakerThreshold: number;
  inputPrefix: string;
  queryPrefix: string;
  normalized: boolean;
  wire: WireFormatName;
}

export interface RemoteConfigLike {
  provider: RemoteProvider;
  model?: string;
  baseUrl?: string;
  dimensions?: number;
  apiKeyEnv?: string;
  batchSize?: number;
  maxInputTokens?: number;
  rpm?: number;
  tpm?: number;
  concurrency: number;
  timeoutMs: number;
  deadlineMs: number;
  maxRetries: number;
  breakerThreshold: number;
  inputPrefix?: string;
  queryPrefix?: string;
}

/** Config over preset. The schema has already checked that openai-compatible names baseUrl, model and dimensions. */
export function resolveRemote(c: RemoteConfigLike): RemoteSettings {
  const p = PRESETS[c.provider];
  const model = c.model ?? p.model!;
  const ownModel = model === p.model;
  // A local server runs whatever model was pulled: only the preset's own model has a known size.
  const presetDims = p.local && !ownModel ? undefined : p.dimensions;
  const prefixes = ownModel && c.inputPrefix === undefined && c.queryPrefix === undefined;
  return {
    provider: c.provider,
    baseUrl: (c.baseUrl ?? p.baseUrl!).replace(/\/+$/, ''),
    model,
    dimensions: c.dimensions ?? presetDims ?? null,
    sendDimensions: p.sendDimensions,
    apiKeyEnv: c.apiKeyEnv ?? p.apiKeyEnv ?? null,
    batchSize: Math.min(c.batchSize ?? p.defaultBatch, p.maxBatch),
    maxInputTokens: c.maxInputTokens ?? p.maxInputTokens,
    rpm: c.rpm ?? null,
    tpm: c.tpm ?? null,
    concurrency: c.concurrency,
    timeoutMs: c.timeoutMs,
    deadlineMs: c.deadlineMs,
    maxRetries: c.maxRetries,
    breakerThreshold: c.breakerThreshold,
    inputPrefix: c.inputPrefix ?? (prefixes ? p.inputPrefix : undefined) ?? '',
    queryPrefix: c.queryPrefix ?? (prefixes ? p.queryPrefix : undefined) ?? '',
    normalized: p.normalized,
    wire: p.wire,
  };
}
