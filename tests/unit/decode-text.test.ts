import { describe, expect, it } from 'vitest';
import { decodeText } from '../../src/sources/decode.ts';

const bytes = (...parts: (number[] | string)[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
const POINTER = 'version https://git-lfs.github.com/spec/v1\noid sha256:' + 'a'.repeat(64) + '\nsize 42\n';

describe('decodeText', () => {
  it('drops a byte-order mark and decodes UTF-16 in either order', () => {
    expect(decodeText('a.md', bytes([0xef, 0xbb, 0xbf], '# 标题'))).toBe('# 标题');
    expect(decodeText('a.md', bytes([0xff, 0xfe], [0x23, 0, 0x20, 0, 0x07, 0x75]))).toBe('# \u7507');
    expect(decodeText('a.md', bytes([0xfe, 0xff], [0, 0x23, 0x4e, 0x2d]))).toBe('#中');
  });

  it('refuses UTF-16 without a mark, broken UTF-16 and NULs after a mark, by name', () => {
    expect(() => decodeText('w.md', bytes([0x23, 0, 0x20, 0]))).toThrow('w.md: binary file (contains NUL bytes), skipped');
    expect(() => decodeText('odd.md', bytes([0xff, 0xfe], [0x23, 0, 0x20]))).toThrow('odd.md: not valid UTF-16LE, skipped');
    expect(() => decodeText('lone.md', bytes([0xfe, 0xff], [0xd8, 0x00, 0, 0x23]))).toThrow('lone.md: not valid UTF-16BE, skipped');
    expect(() => decodeText('nul.md', bytes([0xff, 0xfe], [0x23, 0, 0, 0]))).toThrow(/^nul\.md: binary file \(contains NUL characters after a UTF-16LE byte-order mark\), skipped$/);
  });

  it('refuses a Git LFS pointer (LF or CRLF) but not a document that quotes one', () => {
    expect(() => decodeText('big.pdf.md', bytes(POINTER))).toThrow('big.pdf.md: Git LFS pointer (content not in the repository), skipped');
    expect(() => decodeText('crlf.md', bytes(POINTER.replace(/\n/g, '\r\n')))).toThrow('Git LFS pointer');
    expect(() => decodeText('ext.md', bytes(POINTER + 'ext-0-foo sha256:' + 'b'.repeat(64) + '\n'))).toThrow('Git LFS pointer');
    const quoted = '# How LFS works\n\n```\n' + POINTER + '```\n';
    expect(decodeText('doc.md', bytes(quoted))).toBe(quoted);
    const half = 'version https://git-lfs.github.com/spec/v1\nsize 42\n';
    expect(decodeText('half.md', bytes(half))).toBe(half);
  });
});
