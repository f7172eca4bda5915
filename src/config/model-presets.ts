/**
 * The chat and rerank providers a config may name, with what each needs, so a block only has to
 * name its provider. Chat: every preset speaks the OpenAI chat-completions protocol (DashScope in
 * its compatible mode, Zhipu's /api/paas/v4, SiliconFlow, OpenAI, Ollama's /v1). Rerank: DashScope's
 * native text-rerank API, the Jina/Cohere-style /rerank that SiliconFlow and Jina serve, and
 * text-embeddings-inference's /rerank for a reranker run locally. Checked 2026-11.
 */
export const CHAT_PROVIDERS = ['dashscope', 'zhipu', 'siliconflow', 'openai', 'ollama', 'openai-compatible'] as const;
export type ChatProvider = (typeof CHAT_PROVIDERS)[number];

export const RERANK_PROVIDERS = ['dashscope', 'siliconflow', 'jina', 'tei'] as const;
export type RerankProvider = (typeof RERANK_PROVIDERS)[number];

/** How a rerank endpoint wants its request and shapes its reply (search/rerank.ts). */
export type RerankWire = 'dashscope' | 'jina' | 'tei';

interface ModelPreset {
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
}

export const CHAT_PRESETS: Record<ChatProvider, ModelPreset> = {
  dashscope: { baseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1', model: 'qwen-plus', apiKeyEnv: 'DASHSCOPE_API_KEY' },
  zhipu: { baseUrl: 'https://open.bigmodel.cn/api/paas/v4', model: 'glm-4-flash', apiKeyEnv: 'ZHIPU_API_KEY' },
  siliconflow: { baseUrl: 'https://api.siliconflow.cn/v1', model: 'Qwen/Qwen2.5-7B-Instruct', apiKeyEnv: 'SILICONFLOW_API_KEY' },
  openai: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', apiKeyEnv: 'OPENAI_API_KEY' },
  ollama: { baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5:7b' },
  'openai-compatible': {},
};

export const RERANK_PRESETS: Record<RerankProvider, ModelPreset & { endpoint: string; wire: RerankWire }> = {
  dashscope: {
    baseUrl: 'https://dashscope.aliyuncs.com/api/v1',
    endpoint: '/services/rerank/text-rerank/text-rerank',
    model: 'gte-rerank-v2',
    apiKeyEnv: 'DASHSCOPE_API_KEY',
    wire: 'dashscope',
  },
  siliconflow: { baseUrl: 'https://api.siliconflow.cn/v1', endpoint: '/rerank', model: 'BAAI/bge-reranker-v2-m3', apiKeyEnv: 'SILICONFLOW_API_KEY', wire: 'jina' },
  jina: { baseUrl: 'https://api.jina.ai/v1', endpoint: '/rerank', model: 'jina-reranker-v2-base-multilingual', apiKeyEnv: 'JINA_API_KEY', wire: 'jina' },
  // text-embeddings-inference serving a reranker (e.g. BAAI/bge-reranker-v2-m3): one model, no key.
  tei: { baseUrl: 'http://127.0.0.1:8080', endpoint: '/rerank', model: 'BAAI/bge-reranker-v2-m3', wire: 'tei' },
};

/** Fields of a chat or rerank block that say where and how to call (the embedder's names). */
export interface CallFields {
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  timeoutMs: number;
  deadlineMs: number;
  maxRetries: number;
}

/** Where and how to call, preset filled in: what core/remote/call.ts takes. */
export interface ResolvedCall {
  provider: string;
  model: string;
  baseUrl: string;
  apiKeyEnv: string | null;
  timeoutMs: number;
  deadlineMs: number;
  maxRetries: number;
}

/** Config over preset. The schema has already checked that openai-compatible names baseUrl and model. */
export function resolveCall(provider: string, preset: ModelPreset, c: CallFields): ResolvedCall {
  return {
    provider,
    model: c.model ?? preset.model!,
    baseUrl: (c.baseUrl ?? preset.baseUrl!).replace(/\/+$/, ''),
    apiKeyEnv: c.apiKeyEnv ?? preset.apiKeyEnv ?? null,
    timeoutMs: c.timeoutMs,
    deadlineMs: c.deadlineMs,
    maxRetries: c.maxRetries,
  };
}
