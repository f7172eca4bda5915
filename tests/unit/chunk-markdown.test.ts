import { describe, expect, it } from 'vitest';
import { chunkMarkdown, markdownChunker } from '../../src/chunking/markdown.ts';
import { estimateTokens } from '../../src/core/text/tokens.ts';
import { pack, splitSentences } from '../../src/chunking/split.ts';

const settings = { targetTokens: 60, overlap: 0.15 };
const chunk = (text: string, path = 'book/穷通宝鉴.md', s = settings) => chunkMarkdown({ path, text }, s);

describe('markdown chunker', () => {
  it('keeps the heading path, starting with the document title', () => {
    const doc = chunk('# 穷通宝鉴\n\n## 论甲木\n\n正月甲木，初春尚有余寒。\n\n### 二月\n\n二月甲木，羊刃当令。\n\n## 论乙木\n\n乙木者。\n');
    expect(doc.title).toBe('穷通宝鉴');
    expect(doc.chunks.map((c) => c.heading)).toEqual(['穷通宝鉴 › 论甲木', '穷通宝鉴 › 论甲木 › 二月', '穷通宝鉴 › 论乙木']);
    expect(doc.chunks[0]!.text).toBe('穷通宝鉴 › 论甲木\n\n正月甲木，初春尚有余寒。');
    expect(doc.chunks.map((c) => c.key)).toEqual(['book/穷通宝鉴.md#0', 'book/穷通宝鉴.md#1', 'book/穷通宝鉴.md#2']);
  });

  it('reads front matter for the title and keeps it out of the chunks; CRLF and <br> normalised', () => {
    const doc = chunk('---\r\ntitle: "滴天髓"\r\nlayout: doc\r\n---\r\n\r\n天道<br>欲识三元万法宗。<br/>先观帝载与神功。\r\n');
    expect(doc.title).toBe('滴天髓');
    expect(doc.metadata).toEqual({ frontMatter: { title: '滴天髓', layout: 'doc' } });
    expect(doc.chunks).toHaveLength(1);
    expect(doc.chunks[0]!.content).toBe('天道\n欲识三元万法宗。\n先观帝载与神功。');
    expect(doc.chunks[0]!.content).not.toContain('\r');
    expect(doc.chunks[0]!.heading).toBe('滴天髓');
  });

  it('handles empty files, heading-only files and files without headings', () => {
    expect(chunk('').chunks).toEqual([]);
    expect(chunk('\n\n  \n').chunks).toEqual([]);
    expect(chunk('# 只有标题\n\n## 又一个\n').chunks).toEqual([]);
    const plain = chunk('没有标题的文字。', 'x/五行大义.md');
    expect(plain.title).toBe('五行大义');
    expect(plain.chunks[0]!.heading).toBe('五行大义');
  });

  it('packs one-sentence-per-line text up to the target with overlap, cutting at sentence ends', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `第${i}句言五行之理也。`);
    const doc = chunk(lines.join('\n'));
    expect(doc.chunks.length).toBeGreaterThan(4);
    for (const c of doc.chunks) {
      expect(estimateTokens(c.content)).toBeLessThanOrEqual(settings.targetTokens + 12);
      expect(c.content).toMatch(/。$/);
    }
    // Consecutive chunks share their boundary sentence(s), and nothing is lost.
    for (let i = 1; i < doc.chunks.length; i++) {
      const prevLast = doc.chunks[i - 1]!.content.split('\n').pop()!;
      expect(doc.chunks[i]!.content.startsWith(prevLast)).toBe(true);
    }
    const all = doc.chunks.map((c) => c.content).join('\n');
    for (const l of lines) expect(all).toContain(l);
  });

  it('cuts a long paragraph at 。！？；.!? and hard-splits a sentence with no end', () => {
    const para = '甲木参天，脱胎要火。'.repeat(20) + '无标点'.repeat(60);
    const doc = chunk(para);
    expect(doc.chunks.length).toBeGreaterThan(3);
    for (const c of doc.chunks) expect(estimateTokens(c.content)).toBeLessThanOrEqual(settings.targetTokens + 10);
    expect(splitSentences('One. Two! 三。四？ 3.14 stays')).toEqual(['One. ', 'Two! ', '三。', '四？ ', '3.14 stays']);
    // No text is ever lost or reordered.
    for (const s of ['a.b.c', '...', '「甲。」乙！？丙', 'v1.2. Next', '\n\n甲\n乙。', '']) expect(splitSentences(s).join('')).toBe(s);
  });

  it('does not treat # inside fenced code as a heading', () => {
    const doc = chunk('# T\n\n```sh\n# not a heading\necho hi\n```\n');
    expect(doc.chunks).toHaveLength(1);
    expect(doc.chunks[0]!.heading).toBe('T');
    expect(doc.chunks[0]!.content).toContain('# not a heading');
  });

  it('is deterministic and its fingerprint names its settings', () => {
    const text = '# A\n\n' + '文字。'.repeat(200);
    expect(chunk(text)).toEqual(chunk(text));
    expect(markdownChunker(settings).fingerprint).toBe('markdown@2:t60:o0.15');
    expect(markdownChunker({ targetTokens: 500, overlap: 0.15 }).fingerprint).not.toBe(markdownChunker(settings).fingerprint);
  });
});

describe('pack', () => {
  it('never goes over the target when every unit fits in it, overlap included', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 50; round++) {
      const units = Array.from({ length: 30 }, (_, i) => {
        const n = 1 + Math.floor(rand() * 60);
        return { text: `${'字'.repeat(n - 1)}${i % 10}`, tokens: n };
      });
      const chunks = pack(units, 60, 9);
      for (const c of chunks) expect(estimateTokens(c)).toBeLessThanOrEqual(60);
      // Every unit appears in some chunk.
      const all = chunks.join('|');
      for (const u of units) expect(all).toContain(u.text);
    }
  });
});

describe('estimateTokens', () => {
  it('counts a CJK character as a token and ~4 Latin characters as one', () => {
    expect(estimateTokens('甲木寅月')).toBe(4);
    expect(estimateTokens('abcdefgh')).toBe(2);
    expect(estimateTokens('  甲   ab  ')).toBe(2);
    expect(estimateTokens('𠀀𠀁')).toBe(2); // supplementary-plane Han
    expect(estimateTokens('')).toBe(0);
  });
});
