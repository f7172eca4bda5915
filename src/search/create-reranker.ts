import type { RemoteCallDeps } from '../core/remote/call.ts';
import type { RerankConfig } from '../config/schema.ts';
import { RemoteReranker, rerankerFromEnv, rerankSettings, type Reranker } from './rerank.ts';

/**
 * The reranker a config asks for: its `rerank` block, else (the older way, still honoured) the
 * RAGSYNC_RERANK_* variables with DASHSCOPE_API_KEY, else none.
 */
export function createReranker(config: { rerank?: RerankConfig }, deps: RemoteCallDeps = {}, env: NodeJS.ProcessEnv = process.env): Reranker | null {
  return config.rerank ? new RemoteReranker(rerankSettings(config.rerank), deps) : rerankerFromEnv(env);
}
