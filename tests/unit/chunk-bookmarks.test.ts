import { describe, expect, it } from 'vitest';
import { brokenReason } from '../../src/profiles/bookmarks/broken.ts';
import { parseAddedAt, parseHeader } from '../../src/profiles/bookmarks/header.ts';
import { bookmarkIdentity, chunkBookmark, titleSlug } from '../../src/profiles/bookmarks/chunker.ts';
import { builtinProfiles } from '../../src/builtin.ts';
const createChunker = builtinProfiles.createChunker;
import { estimateTokens } from '../../src/core/text/tokens.ts';

const settings = { targetTokens: 200, overlap: 0.15 };

function bookmark(opts: { title?: string; tags?: string | null; tldr?: string; summary?: string; extra?: string } = {}): string {
  const lines = [`# ${opts.title ?? 'Testing Without Mocks'}`, '- URL: https://example.test/post', '- Added At: 2025-03-04 05:06:07'];
  if (opts.tags !== null) lines.push(`- Tags: ${opts.tags ?? '#read #testing'}`);
  lines.push('', '## TL;DR', opts.tldr ?? '文章主张用真实依赖测试。', '', '## Summary', opts.summary ?? '作者解释了为何模拟对象会让测试失真。');
  if (opts.extra) lines.push('', opts.extra);
  return lines.join('\n') + '\n';
}

describe('bookmark header', () => {
  it('parses title, URL, Added At and tags', () => {
    expect(parseHeader(bookmark())).toEqual({
      title: 'Testing Without Mocks',
      url: 'https://example.test/post',
      addedAt: '2025-03-04 05:06:07',
      tags: ['read', 'testing'],
    });
  });

  it('accepts a missing Tags line', () => {
    expect(parseHeader(bookmark({ tags: null })).tags).toEqual([]);
  });

  it('reads the time stamp', () => {
    expect(parseAddedAt('2025-03-04 05:06:07')).toEqual({ iso: '2025-03-04T05:06:07', compact: '20250304-050607', month: '202503' });
    expect(parseAddedAt('yesterday')).toBeNull();
  });
});

describe('bookmark identity', () => {
  it('comes from the time added and the title, not the file name', () => {
    const h = parseHeader(bookmark());
    const a = bookmarkIdentity('202503/2025-03-04-testing-without-mocks.md', h);
    const b = bookmarkIdentity('202503/2025-03-04-renamed-file.md', h);
    expect(a).toEqual({ id: 'bm-20250304-050607-testing-without-mocks', month: '202503', addedAt: '2025-03-04T05:06:07' });
    expect(b.id).toBe(a.id);
  });

  it('hashes titles without Latin words', () => {
    expect(titleSlug('用好AI的第一步')).toBe('ai');
    expect(titleSlug('近几年我在职场踩过的坑')).toMatch(/^[0-9a-f]{8}$/);
  });
});

describe('bookmarks chunker', () => {
  it('makes a TL;DR chunk and summary chunks with title and tags embedded', () => {
    const doc = chunkBookmark({ path: '202503/2025-03-04-testing-without-mocks.md', text: bookmark() }, settings);
    expect(doc.chunks.map((c) => c.key)).toEqual([
      'bm-20250304-050607-testing-without-mocks-tldr-01',
      'bm-20250304-050607-testing-without-mocks-summary-01',
    ]);
    const [tldr, summary] = doc.chunks;
    expect(tldr!.text).toBe('Testing Without Mocks › TL;DR\n#read #testing\nhttps://example.test/post\n\n文章主张用真实依赖测试。');
    expect(summary!.text).toBe('Testing Without Mocks › Summary\n#read #testing\n\n作者解释了为何模拟对象会让测试失真。');
    expect(tldr!.content).toBe('文章主张用真实依赖测试。');
    expect(summary!.heading).toBe('Testing Without Mocks › Summary');
    expect(summary!.metadata).toEqual({
      bookmark: 'bm-20250304-050607-testing-without-mocks',
      title: 'Testing Without Mocks',
      url: 'https://example.test/post',
      tags: ['read', 'testing'],
      added_at: '2025-03-04T05:06:07',
      month: '202503',
      broken: false,
      kind: 'summary',
    });
    expect(doc.title).toBe('Testing Without Mocks');
    expect(doc.metadata).toMatchObject({ kind: 'bookmark', url: 'https://example.test/post', broken: false });
  });

  it('keeps later ## sections with the summary and windows long ones with overlap', () => {
    const para = '这是一段用于测试的长摘要内容，描述文章的细节与论证过程。';
    const extra = `## 背景与动机\n\n${Array.from({ length: 20 }, () => para).join('\n\n')}`;
    const doc = chunkBookmark({ path: '202503/x.md', text: bookmark({ extra }) }, settings);
    const sub = doc.chunks.filter((c) => c.metadata.section === '背景与动机');
    expect(sub.length).toBeGreaterThan(1);
    for (const c of sub) {
      expect(c.heading).toBe('Testing Without Mocks › Summary › 背景与动机');
      expect(c.metadata.kind).toBe('summary');
      expect(estimateTokens(c.content)).toBeLessThanOrEqual(settings.targetTokens);
    }
    expect(new Set(doc.chunks.map((c) => c.key)).size).toBe(doc.chunks.length);
  });

  it('flags broken summaries', () => {
    const think = chunkBookmark({ path: '202504/a.md', text: bookmark({ tldr: '\n</think>\n\n请提供具体的列表内容。', summary: '' }) }, settings);
    expect(think.metadata).toMatchObject({ broken: true, brokenReason: 'think' });
    expect(think.chunks.every((c) => c.metadata.broken === true)).toBe(true);
    const empty = chunkBookmark({ path: '202504/b.md', text: bookmark({ tldr: '', summary: '' }) }, settings);
    expect(empty.metadata).toMatchObject({ broken: true, brokenReason: 'empty' });
    expect(empty.chunks).toEqual([]);
    expect(brokenReason('该请求因被视为高风险而被拒绝。', 'x')).toBe('refusal');
    expect(brokenReason('此内容为错误页面提示，因请求过多（错误码429）无法加载。', 'x')).toBe('fetch-error');
    expect(brokenReason('该网页显示“Wait a moment...”并返回403错误。', 'x')).toBe('fetch-error');
    // Articles about think tokens or captchas are not broken.
    expect(brokenReason('文章介绍推理模型。', '模型会生成“</think>”标记。')).toBeNull();
    expect(brokenReason('Cloudflare重新设计了Turnstile验证码。', '正文')).toBeNull();
  });

  it('chunks a sibling <name>_raw.md as raw article text', () => {
    const raw = '# Testing Without Mocks\n\nIntro paragraph.\n\n## Part one\n\nBody of part one.\n';
    const doc = chunkBookmark({ path: '202503/2025-03-04-testing-without-mocks_raw.md', text: raw }, settings);
    expect(doc.chunks.map((c) => [c.key, c.metadata.kind, c.heading])).toEqual([
      ['bm-20250304-testing-without-mocks-raw-01', 'raw', 'Testing Without Mocks › Article'],
      ['bm-20250304-testing-without-mocks-raw-02', 'raw', 'Testing Without Mocks › Article › Part one'],
    ]);
    expect(doc.metadata.kind).toBe('raw');
  });

  it('is registered and deterministic', () => {
    const c = createChunker('bookmarks', settings);
    expect(c.fingerprint).toBe('bookmarks@2:t200:o0.15');
    const input = { path: '202503/x.md', text: bookmark() };
    expect(c.chunk(input)).toEqual(c.chunk(input));
  });
});
