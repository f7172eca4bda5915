/**
 * The in-place JSONC editor `source add|remove` writes with: the array changes as asked, every
 * other byte stays, and removing what was added gives the file back byte for byte.
 */
import { describe, expect, it } from 'vitest';
import { appendToArray, removeFromArray } from '../../src/config/jsonc-edit.ts';
import { parseJsonc } from '../../src/config/jsonc.ts';

const entry = { name: 'new', kind: 'dir', path: './new', include: ['**/*.md', '**/*.txt'] };
const sources = (text: string) => (parseJsonc(text) as { sources: unknown[] }).sources;

const COMMENTED = `{
  // top comment, with "sources": [ and } inside
  "db": ".ragsync/index.db",
  "sources": [
    // about a
    {
      "name": "a", /* a's kind */ "kind": "dir",
      "path": "./a" // trailing
    }, // end of a
    {
      "name": "b",
      "kind": "git",
      "url": "https://example.com/b.git" // b's url
    } // end of b
  ],
  /* after */
  "logLevel": "warn"
}
`;

const LAYOUTS: Record<string, string> = {
  commented: COMMENTED,
  crlf: COMMENTED.replace(/\n/g, '\r\n'),
  tabs: '{\n\t"sources": [\n\t\t{\n\t\t\t"name": "a",\n\t\t\t"kind": "dir",\n\t\t\t"path": "a"\n\t\t}\n\t]\n}\n',
  trailingComma: '{\n  "sources": [\n    { "name": "a", "kind": "dir", "path": "a" },\n    { "name": "b", "kind": "dir", "path": "b" },\n  ],\n}\n',
  oneLine: '{"sources": [{"name": "a", "kind": "dir", "path": "a"}, {"name": "b", "kind": "dir", "path": "b"}], "db": "x.db"}',
  sourcesFirstInline: '{\n  "sources": [{\n    "name": "a", "kind": "dir", "path": "a"\n  }]\n}\n',
  strictJson: JSON.stringify({ db: 'x.db', sources: [{ name: 'a', kind: 'dir', path: 'a' }, { name: 'b', kind: 'dir', path: 'b' }] }, null, 2),
};

describe('appendToArray / removeFromArray', () => {
  for (const [layout, text] of Object.entries(LAYOUTS)) {
    it(`${layout}: adds after the last element, removes it again byte for byte`, () => {
      const before = sources(text);
      const added = appendToArray(text, 'sources', entry);
      expect(sources(added)).toEqual([...before, entry]);
      // Everything before the insertion point is the same text.
      const last = text.lastIndexOf(']');
      expect(added.endsWith(text.slice(last))).toBe(true);
      expect(removeFromArray(added, 'sources', before.length)).toBe(text);
    });

    it(`${layout}: removes each element, the others and their text kept`, () => {
      const before = sources(text);
      for (let i = 0; i < before.length; i++) {
        const out = removeFromArray(text, 'sources', i);
        expect(sources(out)).toEqual(before.filter((_, j) => j !== i));
      }
    });
  }

  it('keeps every comment outside the removed element, byte for byte', () => {
    const out = removeFromArray(COMMENTED, 'sources', 0);
    expect(out).toBe(COMMENTED.replace(/    \/\/ about a\n    \{\n[\s\S]*?\/\/ end of a\n/, '    // about a\n'));
    for (const c of ['// top comment, with "sources": [ and } inside', '// about a', "// b's url", '// end of b', '/* after */']) expect(out).toContain(c);
    const last = removeFromArray(COMMENTED, 'sources', 1);
    // The element before the removed last one loses its comma (a .json file stays JSON), keeps its comment.
    expect(last).toContain('    } // end of a\n  ],');
    expect(last).not.toContain('"b"');
  });

  it('writes a multi-line element at the indentation of the last one, a one-line element after a one-line one', () => {
    const added = appendToArray(COMMENTED, 'sources', { name: 'c', kind: 'dir', path: 'c' });
    expect(added).toContain('    }, // end of b\n    {\n      "name": "c",\n      "kind": "dir",\n      "path": "c"\n    }\n  ],');
    const inline = appendToArray(LAYOUTS.trailingComma!, 'sources', { name: 'c', kind: 'dir', path: 'c' });
    expect(inline).toContain('    { "name": "b", "kind": "dir", "path": "b" },\n    { "name": "c", "kind": "dir", "path": "c" },\n  ],');
  });

  it('fills an empty array', () => {
    const text = '{\n  "db": "x.db",\n  "sources": []\n}\n';
    const added = appendToArray(text, 'sources', { name: 'a', kind: 'dir', path: 'a' });
    expect(added).toBe('{\n  "db": "x.db",\n  "sources": [\n    {\n      "name": "a",\n      "kind": "dir",\n      "path": "a"\n    }\n  ]\n}\n');
  });

  it('refuses what it cannot edit', () => {
    expect(() => appendToArray('{"db": "x"}', 'sources', entry)).toThrow(/no top-level "sources"/);
    expect(() => appendToArray('{"sources": {}}', 'sources', entry)).toThrow(/not an array/);
    expect(() => removeFromArray('{"sources": []}', 'sources', 0)).toThrow(/no element 0/);
  });
});
