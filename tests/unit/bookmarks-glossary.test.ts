import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinProfiles } from '../../src/builtin.ts';
import { parseConfig, type Config } from '../../src/config/load.ts';
import { createGlossary, foldWord, parseGlossary, techGlossary } from '../../src/profiles/bookmarks/glossary.ts';
import { Searcher } from '../../src/search/search.ts';

import { tempDir } from '../helpers/tmp.ts';
import { builtinSourceKinds } from '../../src/sources/registry.ts';
import { openSearcher, runIndex } from '../../src/engine/library.ts';

const terms = (q: string) => techGlossary().expand(q).map((e) => `${e.from}→${e.term}`);

describe('the bookmarks tech glossary', () => {
  it('gives the field’s sense of words the dictionary lists late', () => {
    expect(terms('my terminal is slow')).toContain('terminal→终端');
    expect(terms('which compiler')).toContain('compiler→编译器');
    expect(terms('special chips')).toContain('chips→芯片');
    expect(terms('the latency of it')).toContain('latency→延迟');
  });

  it('matches phrases whole, longest first: a word of a matched phrase is not looked up again', () => {
    expect(terms('Postgres tables as message queues instead of Kafka')).toEqual(['message queues→消息队列']);
    expect(terms('a rate limiter in front of the API')).toEqual(['rate limiter→限流', 'rate limiter→速率限制', 'API→接口', 'API→API']);
  });

  it('folds plurals and a final -e/-y on both sides, but keeps words a stemmer merges apart', () => {
    expect(foldWord('proxies')).toBe(foldWord('proxy'));
    expect(foldWord('caches')).toBe(foldWord('cache'));
    expect(foldWord('indexes')).toBe(foldWord('index'));
    expect(terms('date conversion')).toContain('conversion→转换');
    expect(terms('date conversion')).not.toContain('conversion→对话');
    expect(terms('a conversation')).toEqual(['conversation→对话']);
  });

  it('weighs a looser rendering and a one-character word at half', () => {
    const g = createGlossary(parseGlossary('stack = 栈 堆栈 ~存储'));
    expect(g.expand('the stack').map((e) => [e.term, e.weight, e.via])).toEqual([
      ['栈', 0.5, 'glossary'],
      ['堆栈', 1, 'glossary'],
      ['存储', 0.5, 'glossary'],
    ]);
  });

  it('leaves a query without Latin letters alone, and rejects a malformed line', () => {
    expect(techGlossary().expand('消息队列怎么用')).toEqual([]);
    expect(() => parseGlossary('terminal 终端')).toThrow(/without "="/);
    expect(techGlossary().size).toBeGreaterThan(500);
  });
});

describe('the glossary through search (a real index of a bookmarks source)', () => {
  let t: ReturnType<typeof tempDir>;
  let config: Config;
  const searchers: Searcher[] = [];
  beforeAll(async () => {
    t = tempDir();
    mkdirSync(join(t.dir, 'docs'));
    writeFileSync(join(t.dir, 'docs', 'chips.md'), '# 供应\n\n芯片短缺让汽车工厂停产了好几个月。\n');
    writeFileSync(join(t.dir, 'docs', 'glass.md'), '# 事故\n\n玻璃碎片散落一地，碎片很锋利。\n');
    writeFileSync(join(t.dir, 'docs', 'fruit.md'), '# 水果\n\n苹果和梨都是水果。\n');
    config = parseConfig(builtinProfiles, builtinSourceKinds, {
      db: join(t.dir, 'i.db'),
      embedder: { provider: 'hash', dims: 64 },
      sources: [{ name: 'marks', kind: 'dir', path: join(t.dir, 'docs'), profile: 'bookmarks' }],
    });
    expect((await runIndex(config)).status).toBe('ok');
  });
  afterAll(async () => {
    for (const s of searchers) await s.close();
    t.cleanup();
    delete process.env.RAGSYNC_BOOKMARKS_GLOSSARY;
  });
  const open = () => {
    const s = openSearcher(config);
    searchers.push(s);
    return s;
  };

  it('an English word finds the passage using its tech sense first, and explain names the glossary', async () => {
    const r = await open().searchDetailed('chips', { explain: true, k: 3 });
    expect(r.results[0]!.path).toBe('chips.md');
    expect(r.expansions!.find((e) => e.term === '芯片')).toMatchObject({ from: 'chips', via: 'glossary', weight: 1 });
  });

  it('without the glossary the dictionary alone ranks its first sense (碎片) first', async () => {
    process.env.RAGSYNC_BOOKMARKS_GLOSSARY = '0';
    try {
      const r = await open().searchDetailed('chips', { explain: true, k: 3 });
      expect(r.expansions!.some((e) => e.via === 'glossary')).toBe(false);
      expect(r.results[0]?.path).not.toBe('chips.md');
    } finally {
      delete process.env.RAGSYNC_BOOKMARKS_GLOSSARY;
    }
  });

  it('expand: false turns it off with the rest of expansion', async () => {
    const r = await open().searchDetailed('chips', { explain: true, expand: false, k: 3 });
    expect(r.expansions).toEqual([]);
    expect(r.results.every((x) => x.explain!.expansion === null)).toBe(true);
  });
});
