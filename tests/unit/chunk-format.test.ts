import { describe, expect, it } from 'vitest';
import { canonicalClauses, clausePieces, clauseUnits } from '../../src/profiles/classics/clauses.ts';
import { builtinProfiles } from '../../src/builtin.ts';
import type { ChunkedDocument } from '../../src/core/types.ts';

/**
 * Formatting edits must not change what is embedded: every change to a chunk text is a paid
 * re-embed. Each case chunks two spellings of the same document and compares titles, heading
 * paths, ids and embedded texts.
 */

const settings = { targetTokens: 120, overlap: 0.15 };
const chunk = (name: string, path: string, text: string) => builtinProfiles.createChunker(name, settings).chunk({ path, text });
/** What a re-embed depends on (plus ids and headings, which should stay stable too). */
const embedded = (d: ChunkedDocument) => ({ title: d.title, chunks: d.chunks.map((c) => ({ key: c.key, heading: c.heading, text: c.text })) });
const crlf = (s: string) => s.replace(/\n/g, '\r\n');

const MARKDOWN = {
  frontMatter: '---\ntitle: 五行论\nlayout: doc\n---\n\n## 论木\n\n木曰曲直，其性条达。\n\n### 甲木\n\n甲木参天，脱胎要火。\n\n## 论火\n\n火曰炎上。\n',
  h1: '# 五行论\n\n## 论木\n\n木曰曲直，其性条达。\n\n### 甲木\n\n甲木参天，脱胎要火。\n\n## 论火\n\n火曰炎上。\n',
  // Chapters were `#` under a front-matter title; with the title as `#`, everything moves down a level.
  frontMatterH1Chapters: '---\ntitle: 五行论\n---\n\n# 论木\n\n木曰曲直，其性条达。\n\n## 甲木\n\n甲木参天，脱胎要火。\n\n# 论火\n\n火曰炎上。\n',
  h1Demoted: '# 五行论\n\n## 论木\n\n木曰曲直，其性条达。\n\n### 甲木\n\n甲木参天，脱胎要火。\n\n## 论火\n\n火曰炎上。\n',
};

const SANMING = {
  path: 'content/命/三命通会/三命通会(卷一).md',
  frontMatter:
    '---\ntitle: 三命通会(卷一)\n---\n\n## 《三命通会》分十二卷，不署撰人姓名。\n\n前言一段。\n\n## 《三命通会》卷 一·论五行生成\n\n天高寥廓，六气回旋以成四时。\n\n### 附论\n\n附论一段。\n',
  h1: '# 三命通会(卷一)\n\n## 《三命通会》分十二卷，不署撰人姓名。\n\n前言一段。\n\n## 《三命通会》卷 一·论五行生成\n\n天高寥廓，六气回旋以成四时。\n\n### 附论\n\n附论一段。\n',
  h1Demoted:
    '# 三命通会(卷一)\n\n### 《三命通会》分十二卷，不署撰人姓名。\n\n前言一段。\n\n### 《三命通会》卷 一·论五行生成\n\n天高寥廓，六气回旋以成四时。\n\n#### 附论\n\n附论一段。\n',
};

const bookmark = (titleLine: string) =>
  `${titleLine}\n- URL: https://example.test/p\n- Added At: 2025-03-04 05:06:07\n- Tags: #read\n\n## TL;DR\n\n真实依赖胜过模拟。\n\n## Summary\n\n### 核心观点\n\n作者认为模拟让测试失真。\n`;
const BOOKMARK = {
  path: '202503/2025-03-04-testing-without-mocks.md',
  h1: bookmark('# Testing Without Mocks'),
  frontMatter: bookmark('---\ntitle: Testing Without Mocks\n---\n'),
};

describe('a front-matter title and a # title chunk alike', () => {
  it('markdown', () => {
    const h1 = chunk('markdown', 'docs/五行论.md', MARKDOWN.h1);
    expect(embedded(chunk('markdown', 'docs/五行论.md', MARKDOWN.frontMatter))).toEqual(embedded(h1));
    expect(h1.chunks.map((c) => c.heading)).toEqual(['五行论 › 论木', '五行论 › 论木 › 甲木', '五行论 › 论火']);
  });

  it('classics: the chapter stays in the context (it fell out with front matter)', () => {
    const h1 = chunk('classics', SANMING.path, SANMING.h1);
    const fm = chunk('classics', SANMING.path, SANMING.frontMatter);
    expect(embedded(fm)).toEqual(embedded(h1));
    expect(h1.chunks.map((c) => [c.key, c.heading])).toEqual([
      ['sanming-juan01-s01-01', '三命通会 · 卷一 · 分十二卷 不署撰人姓名'],
      ['sanming-juan01-s02-01', '三命通会 · 卷一 · 论五行生成'],
      ['sanming-juan01-s03-01', '三命通会 · 卷一 · 论五行生成 · 附论'],
    ]);
    expect(h1.chunks[1]!.metadata).toMatchObject({ chapter: '论五行生成' });
  });

  it('classics: a title naming a chapter leads the context in either form', () => {
    const path = 'content/命/千里命稿/千里命稿(卷六).md';
    const h1 = chunk('classics', path, '# 千里命稿 第 06 章 六神篇\n\n正官者，克我之阴阳相异者也。\n');
    const fm = chunk('classics', path, '---\ntitle: 千里命稿 第 06 章 六神篇\n---\n\n正官者，克我之阴阳相异者也。\n');
    expect(embedded(fm)).toEqual(embedded(h1));
    // 卷六 only repeats the chapter number: the same passage in the whole book reads the same.
    expect(h1.chunks[0]!.heading).toBe('千里命稿 · 第06章 六神篇');
    const whole = chunk('classics', 'content/命/千里命稿.md', '# 千里命稿\n\n## 《千里命稿》第 06 章 六神篇\n\n正官者，克我之阴阳相异者也。\n');
    expect(whole.chunks[0]!.text).toBe(h1.chunks[0]!.text);
    expect([h1.chunks[0]!.key, whole.chunks[0]!.key]).toEqual(['qianli-juan06-ch06-01', 'qianli-ch06-01']);
  });

  it('bookmarks', () => {
    const h1 = chunk('bookmarks', BOOKMARK.path, BOOKMARK.h1);
    expect(embedded(chunk('bookmarks', BOOKMARK.path, BOOKMARK.frontMatter))).toEqual(embedded(h1));
    expect(h1.chunks.map((c) => c.key)).toEqual(['bm-20250304-050607-testing-without-mocks-tldr-01', 'bm-20250304-050607-testing-without-mocks-summary-01']);
  });
});

describe('heading levels: ## or ### under the title read the same', () => {
  it('markdown', () => {
    const demoted = chunk('markdown', 'docs/五行论.md', MARKDOWN.h1Demoted);
    expect(embedded(chunk('markdown', 'docs/五行论.md', MARKDOWN.frontMatterH1Chapters))).toEqual(embedded(demoted));
    expect(embedded(demoted)).toEqual(embedded(chunk('markdown', 'docs/五行论.md', MARKDOWN.h1)));
  });

  it('classics', () => {
    expect(embedded(chunk('classics', SANMING.path, SANMING.h1Demoted))).toEqual(embedded(chunk('classics', SANMING.path, SANMING.h1)));
  });

  it('bookmarks', () => {
    const deeper = BOOKMARK.h1.replace('## TL;DR', '### TL;DR').replace('## Summary', '### Summary').replace('### 核心观点', '#### 核心观点');
    expect(embedded(chunk('bookmarks', BOOKMARK.path, deeper))).toEqual(embedded(chunk('bookmarks', BOOKMARK.path, BOOKMARK.h1)));
  });
});

describe('CRLF and LF chunk alike', () => {
  it.each([
    ['markdown', 'docs/五行论.md', MARKDOWN.frontMatter],
    ['markdown', 'docs/五行论.md', MARKDOWN.h1],
    ['classics', SANMING.path, SANMING.frontMatter],
    ['classics', 'content/命/穷通宝鉴.md', '# 穷通宝鉴\n\n## 穷通宝鉴：论甲木\n\n三春甲木正月甲木，初春尚有余寒。\n\n二月甲木，阳刃驾杀。\n'],
    ['bookmarks', BOOKMARK.path, BOOKMARK.h1],
    ['bookmarks', BOOKMARK.path, BOOKMARK.frontMatter],
  ])('%s: %s', (name, path, text) => {
    const lf = chunk(name, path, text);
    expect(lf.chunks.length).toBeGreaterThan(0);
    expect(chunk(name, path, crlf(text))).toEqual(lf);
    expect(chunk(name, path, '\ufeff' + crlf(text))).toEqual(lf);
  });
});

describe('no heading path repeats a part', () => {
  it('bookmarks: a ### Summary inside ## Summary is said once', () => {
    const doc = chunk('bookmarks', BOOKMARK.path, BOOKMARK.h1.replace('### 核心观点', '### Summary\n\n总述一句。\n\n### 核心观点'));
    expect(doc.chunks.map((c) => c.heading)).toEqual([
      'Testing Without Mocks › TL;DR',
      'Testing Without Mocks › Summary',
      'Testing Without Mocks › Summary › 核心观点',
    ]);
    expect(doc.chunks[2]!.metadata.section).toBe('核心观点');
  });

  it('markdown: a first heading that repeats the title is not said twice', () => {
    const doc = chunk('markdown', 'docs/x.md', '---\ntitle: 五行论\n---\n\n## 五行论\n\n总论。\n\n## 论木\n\n### 论木\n\n木曰曲直。\n');
    expect(doc.chunks.map((c) => c.heading)).toEqual(['五行论', '五行论 › 论木']);
  });

  it('classics: a volume heading and the file volume are said once, in one form', () => {
    // 神锋通考.md (one file, 卷 as headings) was split into 神峰通考/神峰通考(卷一).md …
    const whole = chunk('classics', 'content/命/神锋通考.md', '# 神峰通考\n\n## 《神峰通考》卷 01\n\n五星正说类安身命宫，原取逢卯安命。\n');
    const split = chunk('classics', 'content/命/神峰通考/神峰通考(卷一).md', '# 神峰通考 - 卷 01\n\n五星正说类安身命宫 原取逢卯安命\n');
    expect(whole.chunks[0]!.heading).toBe('神峰通考 · 卷一');
    expect(split.chunks[0]!.heading).toBe('神峰通考 · 卷一');
    expect(split.chunks[0]!.text).toBe(whole.chunks[0]!.text);
    expect([whole.metadata.book, split.metadata.book]).toEqual(['shenfeng', 'shenfeng']);
  });
});

describe('invisible characters', () => {
  it('are no part of a title or a file name', () => {
    const a = chunk('classics', 'content/命/滴天髓\u00ad.md', '---\ntitle: 滴天髓\u00ad\n---\n\n## 通神论\n\n欲识三元万法宗。\n');
    const b = chunk('classics', 'content/命/滴天髓/滴天髓.md', '# 滴天髓\n\n## 通神论\n\n欲识三元万法宗。\n');
    expect(a.title).toBe('滴天髓');
    expect(a.metadata.book).toBe('ditian');
    expect(embedded(a)).toEqual(embedded(b));
    expect(chunk('markdown', 'x/滴天髓\u200b.md', '一句。').chunks[0]!.heading).toBe('滴天髓');
  });
});

describe('classics: re-punctuation (，/。 → spaces) re-embeds nothing', () => {
  const punctuated = [
    '# 神峰通考(卷二)',
    '',
    '书云：“逢财喜杀而遇杀，十有九贵。”下场虽是甚是，而不显言。',
    '',
    '若用财之人，日干旺，比肩兄弟多。',
    '若日干弱，财多，反为祸也。',
    '',
    ...Array.from({ length: 12 }, (_, i) => `第${i + 1}段，甲木参天，脱胎要火，春不容金，秋不容土。丙火猛烈，欺霜侮雪。`),
  ].join('\n');
  // What the upstream did: ，→ space, 。 → space inside a line, dropped at a line end or before ”.
  const spaced = punctuated.replace(/。(?=\n|$|”)/g, '').replace(/[，。]/g, ' ');
  const path = 'content/命/神峰通考/神峰通考(卷二).md';

  it('keeps ids, headings and embedded texts; the content stays as written', () => {
    const a = chunk('classics', path, punctuated);
    const b = chunk('classics', path, spaced);
    expect(a.chunks.length).toBeGreaterThan(2); // cut at clauses, with overlap
    expect(embedded(b)).toEqual(embedded(a));
    expect(a.chunks[0]!.content).toContain('十有九贵。”');
    expect(b.chunks[0]!.content).toContain('十有九贵”');
    expect(a.chunks[0]!.text).toContain('逢财喜杀而遇杀 十有九贵”下场虽是甚是 而不显言');
  });

  it('cuts long paragraphs at the same places in both spellings', () => {
    const para = '甲木参天，脱胎要火。春不容金，秋不容土！火炽乘龙，水宕骑虎。';
    const pieces = clausePieces(para);
    expect(pieces.map((p) => p.text).join('')).toBe(para);
    const spacedPieces = clausePieces(para.replace(/[，。]/g, ' ').trimEnd());
    expect(spacedPieces.map((p) => canonicalClauses(p.text).trim())).toEqual(pieces.map((p) => canonicalClauses(p.text).trim()));
    expect(spacedPieces.map((p) => p.tokens)).toEqual(pieces.map((p) => p.tokens));
    expect(canonicalClauses('寓焉。\n然，“仁”。')).toBe('寓焉\n然“仁”');
    const units = clauseUnits(para.repeat(10), '\n\n', 20);
    expect(units[0]!.text.startsWith('\n\n')).toBe(true);
    expect(Math.max(...units.map((u) => u.tokens))).toBeLessThanOrEqual(20);
  });
});
