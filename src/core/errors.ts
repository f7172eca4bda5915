/**
 * A failure caused by the user's input (config, flags, files, upstream) rather than a bug.
 * The CLI prints `message` as one line and exits with `exitCode`; no stack trace.
 */
export class RagsyncError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
    this.name = 'RagsyncError';
  }
}

/** Exit codes, documented in docs/commands.md ("Exit codes"). */
export const EXIT = {
  ok: 0,
  /** The run failed (nothing or not everything could be indexed). */
  failed: 1,
  /** Bad invocation or config: nothing was attempted. */
  usage: 2,
  /** The run finished but some files or sources were skipped (status "partial"). */
  partial: 3,
  /** Another run holds the index lock. */
  locked: 75,
} as const;

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
