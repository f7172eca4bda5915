/**
 * A Git LFS pointer (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md): what a repository
 * holds in place of a file stored in LFS, when the clone did not fetch it. Its three lines name the
 * content without containing it, so indexing them would index nothing of the document.
 *
 *   version https://git-lfs.github.com/spec/v1
 *   oid sha256:4d7a2146…
 *   size 12345
 */
const MAX_POINTER_CHARS = 1024; // the spec bounds a pointer below 1024 bytes
const VERSION = /^version https:\/\/(git-lfs\.github\.com\/spec\/v1|hawser\.github\.com\/spec\/v1)\r?\n/;
const OID = /^oid sha256:[0-9a-f]{64}\r?$/m;
const SIZE = /^size \d+\r?$/m;

export function isLfsPointer(text: string): boolean {
  return text.length < MAX_POINTER_CHARS && VERSION.test(text) && OID.test(text) && SIZE.test(text);
}
