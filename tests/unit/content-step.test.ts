import { describe, expect, it } from 'vitest';
import { contentFingerprint, DEFAULT_CONTENT, mediaTypeOf, prepareContent } from '../../src/chunking/content/index.ts';

describe('media types and the content step', () => {
  it('tells a file by its name, a web page by its Content-Type', () => {
    const byName = Object.fromEntries(
      ['a.md', 'b.markdown', 'c.mdx', 'd.html', 'e.HTM', 'f.xhtml', 'g.txt', 'h.ts', 'i.go', 'j.py', 'Dockerfile', 'notes', 'k.org'].map((p) => [p, mediaTypeOf(p)]),
    );
    expect(byName).toEqual({
      'a.md': 'text/markdown', 'b.markdown': 'text/markdown', 'c.mdx': 'text/markdown',
      'd.html': 'text/html', 'e.HTM': 'text/html', 'f.xhtml': 'text/html',
      'g.txt': 'text/plain', 'h.ts': 'text/x-typescript', 'i.go': 'text/x-go', 'j.py': 'text/x-python',
      Dockerfile: 'text/x-dockerfile', notes: 'text/plain', 'k.org': 'text/plain',
    });
    expect(mediaTypeOf('https://x.test/page', 'text/html; charset=utf-8')).toBe('text/html');
    expect(mediaTypeOf('https://x.test/page.md', 'application/xhtml+xml')).toBe('text/html');
    expect(mediaTypeOf('https://x.test/llms.txt', 'text/x-markdown')).toBe('text/markdown');
  });

  it('converts HTML only, and only for a chunker that does not read files as written; the fingerprint says so', () => {
    const html = { path: 'https://x.test/a/', text: '<title>T</title><main><p>See <a href="b">b</a></p></main>', mediaType: 'text/html' };
    expect(prepareContent(html, false, DEFAULT_CONTENT)).toEqual({ path: html.path, mediaType: 'text/markdown', text: '---\ntitle: T\nurl: https://x.test/a/\n---\n\nSee [b](https://x.test/a/b)\n' });
    expect(prepareContent(html, true, DEFAULT_CONTENT)).toBe(html);
    const md = { path: 'a.md', text: '# A <b>x</b>', mediaType: 'text/markdown' };
    expect(prepareContent(md, false, DEFAULT_CONTENT)).toBe(md);
    expect(contentFingerprint('text/markdown', false, DEFAULT_CONTENT)).toBe('');
    expect(contentFingerprint('text/html', true, DEFAULT_CONTENT)).toBe('');
    expect(contentFingerprint('text/html', false, DEFAULT_CONTENT)).toBe('+html@2');
    const narrowed = contentFingerprint('text/html', false, { html: { excludeSelectors: ['.toc'] } });
    expect(narrowed).toMatch(/^\+html@2:[0-9a-f]{8}$/);
    expect(contentFingerprint('text/html', false, { html: { contentSelector: 'article', excludeSelectors: [] } })).not.toBe(narrowed);
  });

  it('keeps underscores as written (no \\_), and the other escapes turndown needs', () => {
    const page = { path: 'https://x.test/a/', text: '<main><p>call max_file_bytes or __init__, not *this*</p><p>1. not a list</p></main>', mediaType: 'text/html' };
    const text = prepareContent(page, false, DEFAULT_CONTENT).text;
    expect(text).toContain('call max_file_bytes or __init__, not \\*this\\*');
    expect(text).not.toContain('\\_');
    expect(text).toContain('1\\. not a list');
  });
});
