import { ProviderError } from '../../core/remote/errors.ts';
import type { WireFormatName } from '../../config/presets.ts';

/**
 * How one kind of embeddings endpoint wants its request and shapes its reply. The client, limits,
 * retries and checks are shared; only the path, the request body and where the vectors sit in the
 * reply differ.
 *
 * - `openai`: POST {base}/embeddings {model, input, encoding_format, dimensions?} → {data: [{index, embedding}]}
 *   (OpenAI, the hosted presets, llama.cpp server, LM Studio, vLLM).
 * - `ollama`: POST {base}/api/embed {model, input} → {embeddings: [[…]]}.
 * - `tei`: Hugging Face text-embeddings-inference, POST {base}/embed {inputs, truncate} → [[…]]. The
 *   server runs one model; `truncate` lets it cut an input over its model's limit instead of failing.
 */
export interface WireFormat {
  /** Appended to the base URL. */
  readonly endpoint: string;
  body(model: string, inputs: string[], dimensions: number | null): unknown;
  /** The reply's vectors in input order, not yet checked (validate.ts checks count, size and values). */
  vectors(json: unknown, n: number, label: string): unknown[];
}

const openai: WireFormat = {
  endpoint: '/embeddings',
  body: (model, input, dimensions) => ({ model, input, encoding_format: 'float', ...(dimensions !== null && { dimensions }) }),
  vectors(json, n, label) {
    const data = (json as { data?: unknown })?.data;
    if (!Array.isArray(data)) throw new ProviderError(`${label}: response has no "data" array`, true);
    if (data.length !== n) throw new ProviderError(`${label}: ${data.length} vectors for ${n} inputs; batch rejected`, true);
    // Entries carry their input's index and may come in any order.
    const out: unknown[] = new Array(n);
    const seen = new Array<boolean>(n).fill(false);
    data.forEach((item: { index?: unknown; embedding?: unknown }, i) => {
      const index = item?.index ?? i;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= n || seen[index]) {
        throw new ProviderError(`${label}: bad or repeated index ${JSON.stringify(index)} in response; batch rejected`, true);
      }
      seen[index] = true;
      out[index] = item.embedding;
    });
    return out;
  },
};

/** A bare list of vectors, in input order, found at `field` (or the reply itself). */
function listAt(field: string | null): WireFormat['vectors'] {
  return (json, n, label) => {
    const list = field === null ? json : (json as Record<string, unknown> | null)?.[field];
    if (!Array.isArray(list)) throw new ProviderError(`${label}: response has no ${field === null ? 'array of vectors' : `"${field}" array`}`, true);
    if (list.length !== n) throw new ProviderError(`${label}: ${list.length} vectors for ${n} inputs; batch rejected`, true);
    return list;
  };
}

export const WIRE_FORMATS: Readonly<Record<WireFormatName, WireFormat>> = {
  openai,
  ollama: {
    endpoint: '/api/embed',
    body: (model, input) => ({ model, input }),
    vectors: listAt('embeddings'),
  },
  tei: {
    endpoint: '/embed',
    body: (_model, inputs) => ({ inputs, truncate: true }),
    vectors: listAt(null),
  },
};
