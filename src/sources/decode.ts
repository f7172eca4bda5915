import { RagsyncError } from '../core/errors.ts';
import { shownPath } from '../core/shown-path.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** File bytes → text, refusing binary and invalid UTF-8 with a message naming the file. */
export function decodeText(path: string, bytes: Uint8Array): string {
  if (bytes.includes(0)) throw new RagsyncError(`${shownPath(path)}: binary file (contains NUL bytes), skipped`);
  try {
    return utf8.decode(bytes);
  } catch {
    throw new RagsyncError(`${shownPath(path)}: not valid UTF-8, skipped`);
  }
}
