import { EXIT, RagsyncError, errorMessage } from '../core/errors.ts';
import type { Embedder } from '../embedding/types.ts';

/**
 * The embedder could not embed a batch. One line naming the provider, its endpoint and the cause
 * (provider messages are redacted where they are made: never the key). Carries the cause's exit
 * code, so a missing key stays a configuration error (2) rather than a plain failure.
 */
export class EmbedderFailure extends RagsyncError {
  constructor(embedder: Pick<Embedder, 'info' | 'endpoint'>, override readonly cause: unknown) {
    const { provider, model } = embedder.info;
    const label = `${provider} ${model}`;
    const raw = errorMessage(cause);
    // Provider errors already start with "provider model: "; say it once.
    const why = raw.startsWith(`${label}: `) ? raw.slice(label.length + 2) : raw;
    super(
      `embedding failed (${label}${embedder.endpoint ? ` at ${embedder.endpoint}` : ''}): ${why}`,
      cause instanceof RagsyncError ? cause.exitCode : EXIT.failed,
    );
    this.name = 'EmbedderFailure';
  }
}
