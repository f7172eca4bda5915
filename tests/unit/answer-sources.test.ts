import { describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { permalink, webRoot } from '../../src/answer/permalink.ts';
import { passageLines } from '../../src/answer/lines.ts';
import { seconds, titleWithHeading, toSourceItems } from '../../src/answer/sources.ts';
import type { SearchResult } from '../../src/search/search.ts';

const SHA = 'a'.repeat(40);

describe('permalinks', () => {
  it('GitHub-style, GitLab and Gitea hosts, from https, ssh and scp-style clone URLs', () => {
    const lines = { start: 12, end: 40 };
    expect(permalink('https://github.com/o/r.git', SHA, 'docs/a b.md', lines)).toBe(`https://github.com/o/r/blob/${SHA}/docs/a%20b.md#L12-L40`);
    expect(permalink('git@github.com:o/r.git', SHA, 'x.md', null)).toBe(`https://github.com/o/r/blob/${SHA}/x.md`);
    expect(permalink('ssh://git@gitlab.com/g/sub/r.git', SHA, 'x.md', lines)).toBe(`https://gitlab.com/g/sub/r/-/blob/${SHA}/x.md#L12-40`);
    expect(permalink('https://codeberg.org/o/r', SHA, 'x.md', lines)).toBe(`https://codeberg.org/o/r/src/commit/${SHA}/x.md#L12-L40`);
    expect(permalink('https://token:x@github.com/o/r.git', SHA, 'x.md', null)).toBe(`https://github.com/o/r/blob/${SHA}/x.md`);
  });

  it('none for local paths, unknown shapes or an unindexed source', () => {
    expect(permalink('/srv/git/r.git', SHA, 'x.md', null)).toBeNull();
    expect(permalink('file:///srv/r.git', SHA, 'x.md', null)).toBeNull();
    expect(permalink('https://github.com/o/r.git', null, 'x.md', null)).toBeNull();
    expect(webRoot('https://example.com/')).toBeNull();
  });
});

describe('passage lines', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ragsync-lines-'));
  mkdirSync(join(dir, 'd'));
  writeFileSync(join(dir, 'd/f.md'), '# T\n\n## H\n\nfirst line of the passage\nsecond line\n\nother\n');
  const hit = (content: string, metadata: Record<string, unknown> = {}) => ({ id: '1', source: 's', path: 'd/f.md', title: 'T', heading: 'H', content, metadata, score: 1 });

  it('a recorded range wins; else the passage is found in the checkout; else none', () => {
    const files = new Map();
    expect(passageLines(hit('x', { startLine: 3, endLine: 9 }), dir, files)).toEqual({ start: 3, end: 9 });
    expect(passageLines({ ...hit('x'), startLine: 2, endLine: 4 } as ReturnType<typeof hit>, dir, files)).toEqual({ start: 2, end: 4 });
    expect(passageLines(hit('first line of the passage\nsecond line'), dir, files)).toEqual({ start: 5, end: 6 });
    expect(passageLines(hit('not in the file at all'), dir, files)).toBeNull();
    expect(passageLines(hit('first line of the passage'), null, files)).toBeNull();
  });

  it('source items: the permalink with lines, times in seconds, the title said once', () => {
    const r = { ...hit('first line of the passage\nsecond line', { startTime: '1:02:03', endTime: 3725 }), fields: { book: 'T', chapter: 'T › H' } } as SearchResult;
    const [item] = toSourceItems([r], { sources: [{ name: 's', kind: 'git', url: 'https://github.com/o/r.git', root: dir }], commits: new Map([['s', SHA]]) });
    expect(item).toMatchObject({ title: 'T · H', url: `https://github.com/o/r/blob/${SHA}/d/f.md#L5-L6`, metadata: { startLine: 5, endLine: 6, startTime: 3723, endTime: 3725, source: 's', path: 'd/f.md' } });
    expect(seconds('90')).toBe(90);
    expect(seconds('soon')).toBeNull();
    expect(titleWithHeading('子平真诠 · 论伤官', '论伤官')).toBe('子平真诠 · 论伤官');
    expect(titleWithHeading('Retry', 'Retry › Jitter')).toBe('Retry · Retry › Jitter');
  });
});
