import type { EmbeddingModel } from 'ai';
import { RagsyncError, EXIT } from '../core/errors.ts';
import type { EmbedderInfo } from '../core/types.ts';
import type { Embedder, EmbedStats } from './types.ts';

/** A library user's embedder: texts in, one vector (numbers) per text out, in order. */
export type EmbedFunction = (texts: string[]) => Promise<ArrayLike<number>[]>;

/**
 * What a library user may pass as the embedder: a plain function or any AI SDK embedding model
 * (`openai.embedding('text-embedding-3-small')`, a local OpenAI-compatible server …), with what
 * names it in the fingerprint its vectors are stored under.
 */
export type EmbedderInput = EmbedFunction | EmbeddingModel | { embed: EmbedFunction | EmbeddingModel; provider?: string; model?: string; dimensions?: number; batchSize?: number };

export const isEmbedderInput = (x: unknown): x is EmbedderInput =>
  typeof x === 'function' || isEmbeddingModel(x) || (typeof x === 'object' && x !== null && 'embed' in x && !('info' in x));

const isEmbeddingModel = (x: unknown): x is Exclude<EmbeddingModel, string> =>
  typeof x === 'object' && x !== null && 'doEmbed' in x && 'modelId' in x && 'provider' in x;

/**
 * An Embedder over a function or an AI SDK model, fingerprinted `provider:model:dimensions` as the
 * built-in ones are: switching function or model stores vectors under another fingerprint, side by
 * side (a run then embeds every text again, as after any model switch). The size is learnt from
 * one call when not given (`learnDimensions`).
 */
export class CustomEmbedder implements Embedder {
  readonly batchSize: number;
  readonly normalized = false;
  readonly stats: EmbedStats = { requests: 0, tokens: 0, retries: 0 };
  private _info: EmbedderInfo;
  private readonly call: EmbedFunction;

  constructor(input: EmbedderInput) {
    const o = typeof input === 'function' || isEmbeddingModel(input) || typeof input === 'string' ? { embed: input } : input;
    const fn = o.embed;
    let provider = o.provider;
    let model = o.model;
    if (typeof fn === 'string') throw new RagsyncError(`embedder: an AI SDK model id string ("${fn}") needs a provider: pass the model object`, EXIT.usage);
    if (isEmbeddingModel(fn)) {
      provider ??= fn.provider;
      model ??= fn.modelId;
      this.call = async (texts) => {
        const { embedMany } = await import('ai');
        return (await embedMany({ model: fn, values: texts, maxRetries: 2 })).embeddings;
      };
    } else {
      provider ??= 'function';
      model ??= fn.name || 'embed';
      this.call = fn;
    }
    this.batchSize = o.batchSize ?? 64;
    this._info = { fingerprint: `${provider}:${model}:${o.dimensions ?? '?'}`, provider, model, dims: o.dimensions ?? 0 };
  }

  get info(): EmbedderInfo {
    return this._info;
  }

  /** Asks for one vector when the size was not given; from then on every vector must be that size. */
  async learnDimensions(): Promise<number> {
    if (this._info.dims) return this._info.dims;
    const [v] = await this.embed(['dimensions']);
    const dims = v!.length;
    this._info = { ...this._info, dims, fingerprint: `${this._info.provider}:${this._info.model}:${dims}` };
    return dims;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (!texts.length) return [];
    this.stats.requests++;
    const out = await this.call(texts);
    const label = `embedder ${this._info.provider}:${this._info.model}`;
    if (!Array.isArray(out) || out.length !== texts.length) {
      throw new RagsyncError(`${label}: returned ${Array.isArray(out) ? out.length : 'no list of'} vectors for ${texts.length} texts`, EXIT.failed);
    }
    return out.map((v, i) => {
      const f = Float32Array.from(v as ArrayLike<number>);
      if (!f.length || (this._info.dims && f.length !== this._info.dims) || f.some((x) => !Number.isFinite(x))) {
        throw new RagsyncError(`${label}: vector ${i} has ${f.length} values${this._info.dims ? ` (expected ${this._info.dims})` : ''} or one not finite`, EXIT.failed);
      }
      return f;
    });
  }
}
