/**
 * Colour for people at a terminal only: never when NO_COLOR is set to anything (no-color.org), on
 * TERM=dumb or when the stream is not a terminal; FORCE_COLOR (not "0") asks for it anyway.
 */
export function colorsOn(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return true;
  return !!stream.isTTY && env.TERM !== 'dumb';
}

export type Paint = (status: string, text?: string) => string;

const CODES: Record<string, number> = { ok: 32, partial: 33, skipped: 33, failed: 31, aborted: 31, refused: 31 };

/** Paints a run or source status word (green ok, yellow partial, red failed), or returns text unchanged. */
export const painter =
  (on: boolean): Paint =>
  (status, text = status) => {
    const code = on ? CODES[status] : undefined;
    return code ? `\x1b[${code}m${text}\x1b[39m` : text;
  };
