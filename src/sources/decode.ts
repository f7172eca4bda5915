import { RagsyncError } from '../core/errors.ts';
import { shownPath } from '../core/shown-path.ts';
import { isLfsPointer } from './lfs-pointer.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });
// Editors on Windows save "Unicode" text as UTF-16 with a byte-order mark; without one the bytes
// are indistinguishable from binary, so only a marked file is taken for UTF-16.
const BOMS: { bytes: number[]; decoder: TextDecoder }[] = [
  { bytes: [0xef, 0xbb, 0xbf], decoder: utf8 },
  { bytes: [0xff, 0xfe], decoder: new TextDecoder('utf-16le', { fatal: true }) },
  { bytes: [0xfe, 0xff], decoder: new TextDecoder('utf-16be', { fatal: true }) },
];

const startsWith = (bytes: Uint8Array, prefix: number[]) => prefix.every((b, i) => bytes[i] === b);

/**
 * File bytes → text: UTF-8, or UTF-8/UTF-16 (LE or BE) after a byte-order mark, which is dropped.
 * Binary, invalid text and Git LFS pointers (whose content is not in the repository) are refused
 * with a message naming the file.
 */
export function decodeText(path: string, bytes: Uint8Array): string {
  const bom = BOMS.find((b) => startsWith(bytes, b.bytes));
  const name = bom?.decoder.encoding.toUpperCase() ?? 'UTF-8';
  let text: string;
  if (!bom && bytes.includes(0)) throw new RagsyncError(`${shownPath(path)}: binary file (contains NUL bytes), skipped`);
  try {
    text = (bom?.decoder ?? utf8).decode(bom ? bytes.subarray(bom.bytes.length) : bytes);
  } catch {
    throw new RagsyncError(`${shownPath(path)}: not valid ${name}, skipped`);
  }
  if (bom && text.includes('\0')) throw new RagsyncError(`${shownPath(path)}: binary file (contains NUL characters after a ${name} byte-order mark), skipped`);
  if (isLfsPointer(text)) throw new RagsyncError(`${shownPath(path)}: Git LFS pointer (content not in the repository), skipped`);
  return text;
}
