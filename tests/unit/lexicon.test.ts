import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { builtinProfiles } from '../../src/builtin.ts';
import { parseConfig, type Config } from '../../src/config/load.ts';
import { keyRuns, wordKey } from '../../src/core/text/english-keys.ts';
import { COMPOUND, lexiconExpansions, PER_KEY, withoutCompoundsBesideProfile } from '../../src/search/lexicon.ts';
import { TermCountCache } from '../../src/search/term-counts.ts';
import { Searcher } from '../../src/search/search.ts';
import type { LexiconRow } from '../../src/storage/roles.ts';
import { buildEntries, lexiconSource, senseKeys } from '../../src/sync/lexicon/cedict.ts';

import { tempDir } from '../helpers/tmp.ts';
import { runCli } from '../helpers/cli.ts';
import { builtinSourceKinds } from '../../src/sources/registry.ts';
import { openSearcher, runIndex } from '../../src/engine/library.ts';

describe('English keys', () => {
  it('lemmatises (plurals, -ing, -ed) and drops stop words', () => {
    expect(['queue', 'queues', 'queued', 'queuing'].map(wordKey)).toEqual(Array(4).fill(wordKey('queue')));
    expect(wordKey('the')).toBeNull();
    expect(wordKey('how')).toBeNull();
    expect(keyRuns('How do message queues work, with time zones?').map((r) => r.map((w) => w.word))).toEqual([['message', 'queues', 'work'], ['time', 'zones']]);
  });

  it('a sense gives a key per part of 1–3 content words, nothing for references and descriptions', () => {
    expect(senseKeys('message queue')).toEqual(['messag queu']);
    expect(senseKeys('time zone; time difference')).toEqual(['tim zon', 'tim differ']);
    expect(senseKeys('to queue up')).toEqual([]); // "up" is not part of a key
    expect(senseKeys('variant of 队列')).toEqual([]);
    expect(senseKeys('surname Wang')).toEqual([]);
    expect(senseKeys('the emergency number for law enforcement in Mainland China')).toEqual([]);
    expect(senseKeys('daylight saving time (DST)')).toEqual(['daylight sav tim']);
  });
});

describe('dictionary entries and the headword finder', () => {
  const raw = [
    ['消息隊列', '消息队列', 'xiao1 xi5 dui4 lie4', ['message queue']],
    ['隊列', '队列', 'dui4 lie4', ['formation', 'queue']],
    ['時區', '时区', 'shi2 qu1', 'time zone'],
    ['王', '王', 'Wang2', ['surname Wang']],
    ['木', '木', 'mu4', ['tree', 'wood']],
  ] as Parameters<typeof buildEntries>[0];
  const entries = buildEntries(raw);

  it('keys simplified headwords by sense; proper names and reference-only entries are left out', () => {
    expect(entries.get('队列')!.glosses).toEqual([['format', 0], ['queu', 1]]);
    expect(entries.has('王')).toBe(false);
  });

  it('finds every headword a text holds, traditional spellings included, each once', () => {
    const found = lexiconSource(entries, 't').find(['用消息队列解耦，消息队列', '時區', '没有']);
    expect(found.map((e) => e.headword)).toEqual(['时区', '消息队列', '队列']);
  });
});

describe('lexicon expansions', () => {
  const rows: LexiconRow[] = [
    { gloss: 'messag queu', headword: '消息队列', sense: 0, df: 3 },
    { gloss: 'queu', headword: '队列', sense: 1, df: 7 },
    { gloss: 'queu', headword: '排队', sense: 0, df: 4 },
    { gloss: 'queu', headword: '队', sense: 0, df: 12 },
    { gloss: 'queu', headword: '行列', sense: 2, df: 1 },
    { gloss: 'messag', headword: '消息', sense: 1, df: 20 },
    { gloss: 'tim zon', headword: '时区', sense: 0, df: 2 },
    { gloss: 'golden', headword: '金', sense: 4, df: 178 },
    { gloss: 'golden', headword: '黄金', sense: 1, df: 16 },
    { gloss: 'carriag', headword: '车', sense: 0, df: 90 },
    { gloss: 'carriag', headword: '舆', sense: 1, df: 21 },
    { gloss: 'star', headword: '星', sense: 0, df: 300 },
  ];
  const lookup = async (keys: string[]) => rows.filter((r) => keys.includes(r.gloss));

  it('phrases first: the words of a matched phrase are not expanded on their own', async () => {
    const out = await lexiconExpansions('Postgres tables as a message queue, and time zones', lookup);
    expect(out.map((e) => [e.term, e.from])).toEqual([
      ['消息队列', 'message queue'],
      ['时区', 'time zones'],
    ]);
    expect(out.every((e) => e.weight === 1 && e.via === 'lexicon')).toBe(true);
  });

  it('a single word keeps its best senses (df, halved per later sense, a single character a quarter), weighted below phrases', async () => {
    const out = await lexiconExpansions('queues', lookup);
    expect(out).toHaveLength(PER_KEY);
    expect(out.map((e) => e.term)).toEqual(['排队', '队列']); // 队: df 12 but one character; 行列: third sense
    expect(out[0]!.weight).toBeLessThan(1);
    expect(out[1]!.weight).toBeLessThan(out[0]!.weight); // a later sense is less sure
    expect(await lexiconExpansions('队列怎么用', lookup)).toEqual([]);
  });

  it('two neighbouring words become the pair of their characters the corpus holds in three or more chunks', async () => {
    const chunks = (n: Record<string, number>) => new TermCountCache({ generation: async () => 1, termCounts: async (ts) => ts.map((t) => n[t] ?? 0) });
    const pairs = async (q: string, n: Record<string, number>) => (await lexiconExpansions(q, lookup, PER_KEY, chunks(n))).filter((e) => e.via === COMPOUND);
    expect(await pairs('Golden Carriage star', { 金舆: 5, 金车: 1, 舆星: 2 })).toEqual([{ term: '金舆', from: 'Golden Carriage', weight: 1, via: COMPOUND }]);
    expect(await pairs('Golden Carriage', { 金舆: 2 })).toEqual([]);
    // Not across a stop word or punctuation, and not without counts.
    expect(await pairs('Golden, Carriage', { 金舆: 5 })).toEqual([]);
    expect((await lexiconExpansions('Golden Carriage', lookup)).some((e) => e.via === COMPOUND)).toBe(false);
    // Where a profile read the question in its own words, the pairs stay out.
    const e = await lexiconExpansions('Golden Carriage', lookup, PER_KEY, chunks({ 金舆: 5 }));
    expect(withoutCompoundsBesideProfile(e, []).map((x) => x.term)).toContain('金舆');
    expect(withoutCompoundsBesideProfile(e, [{ term: '金舆', from: 'Golden Carriage', weight: 1, via: 'glossary' }]).map((x) => x.term)).not.toContain('金舆');
  });
});

// The real dictionary over a small dir source: df follows adds, changes and deletes; a dry run writes nothing.
describe('the corpus lexicon in the index', () => {
  let t: ReturnType<typeof tempDir>;
  let config: Config;
  const docs = () => join(t.dir, 'docs');
  const lexicon = (sql: string, ...params: unknown[]) => {
    const db = new Database(join(t.dir, 'i.db'), { readonly: true });
    try {
      return db.prepare(sql).all(...params);
    } finally {
      db.close();
    }
  };
  const df = (h: string) => (lexicon('SELECT df FROM lexicon_terms WHERE headword = ?', h)[0] as { df: number } | undefined)?.df ?? 0;
  beforeAll(() => {
    t = tempDir();
    mkdirSync(docs());
    config = parseConfig(builtinProfiles, builtinSourceKinds, {
      db: join(t.dir, 'i.db'),
      sources: [
        { name: 'notes', kind: 'dir', path: docs(), lexicon: true },
        { name: 'plain', kind: 'dir', path: join(t.dir, 'plain') },
      ],
    });
    mkdirSync(join(t.dir, 'plain'));
    writeFileSync(join(t.dir, 'plain', 'p.md'), '# 计划\n\n消息队列与数据库。\n');
  });
  afterAll(() => t.cleanup());

  it('an added document brings its headwords and their glosses', async () => {
    writeFileSync(join(docs(), 'a.md'), '# 架构\n\n用消息队列解耦服务。\n');
    expect((await runIndex(config)).status).toBe('ok');
    expect(df('消息队列')).toBe(1); // the plain source (lexicon off by default for markdown) adds nothing
    expect(lexicon("SELECT headword, sense, df FROM v_lexicon WHERE gloss = 'messag queu'")).toEqual([{ headword: '消息队列', sense: 0, df: 1 }]);
    expect(df('苹果')).toBe(0);
  });

  it('a second document raises df; a dry run writes nothing', async () => {
    writeFileSync(join(docs(), 'b.md'), '# 笔记\n\n消息队列和时区。\n');
    expect((await runIndex(config, { dryRun: true })).status).toBe('ok');
    expect(df('消息队列')).toBe(1);
    expect(df('时区')).toBe(0);
    expect((await runIndex(config)).status).toBe('ok');
    expect(df('消息队列')).toBe(2);
    expect(df('时区')).toBe(1);
  });

  it('a change lowers df of what it lost; a delete takes the last holder\'s headwords and glosses away', async () => {
    writeFileSync(join(docs(), 'a.md'), '# 架构\n\n吃苹果。\n');
    expect((await runIndex(config)).status).toBe('ok');
    expect(df('消息队列')).toBe(1);
    expect(df('苹果')).toBe(1);
    rmSync(join(docs(), 'b.md'));
    expect((await runIndex(config, { allowDelete: true })).status).toBe('ok');
    expect(df('消息队列')).toBe(0);
    expect(df('时区')).toBe(0);
    expect(lexicon("SELECT * FROM lexicon_glosses WHERE headword IN ('消息队列', '时区')")).toEqual([]);
    // Every df equals the documents whose row lists the headword.
    expect(
      lexicon(`SELECT t.headword FROM lexicon_terms t WHERE t.df != (SELECT count(*) FROM lexicon_docs d, json_each(d.headwords) j WHERE j.value = t.headword)`),
    ).toEqual([]);
  });

  it('search finds the Chinese passage from an English question and explains the expansion', async () => {
    writeFileSync(join(docs(), 'c.md'), '# 部署\n\n服务器的时区设置。\n');
    expect((await runIndex(config)).status).toBe('ok');
    const s = openSearcher(config);
    try {
      const r = await s.searchDetailed('which time zones do servers use', { explain: true, sources: ['notes'] });
      expect(r.expansions!.find((e) => e.term === '时区')).toMatchObject({ from: 'time zones', via: 'lexicon', weight: 1 });
      expect(r.results[0]!.path).toBe('c.md');
      expect(r.results[0]!.explain!.expansion).not.toBeNull();
      // The plain source does not use the lexicon: no expansions when only it is searched.
      expect((await s.searchDetailed('time zones', { explain: true, sources: ['plain'] })).expansions).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('ranks by concepts covered: both of the question\'s words beat one said many ways; a write shows in the next search', async () => {
    writeFileSync(join(docs(), 'd.md'), '# 运维\n\n任务队列跨时区调度。\n');
    writeFileSync(join(docs(), 'e.md'), '# 排队\n\n排队，队列，再排队，队列越来越长。\n');
    writeFileSync(join(docs(), 'g.md'), '# Notes\n\nQueues that span time zones.\n');
    expect((await runIndex(config)).status).toBe('ok');
    const s = openSearcher(config);
    try {
      const q = 'queues across time zones';
      const r = await s.searchDetailed(q, { explain: true, sources: ['notes'] });
      expect(r.expansions!.map((e) => e.from)).toEqual(expect.arrayContaining(['queues', 'time zones']));
      const ranked = r.results.filter((x) => x.explain!.expansion).sort((a, b) => a.explain!.expansion!.rank - b.explain!.expansion!.rank);
      // A concept score holds its terms' likelihoods: each hit counts at the list's weight. The
      // question's own words are terms of their concepts: the English note covers both by them.
      expect(ranked.every((x) => x.explain!.expansion!.weight === 1)).toBe(true);
      expect(ranked.map((x) => x.path).slice(0, 2)).toEqual(expect.arrayContaining(['d.md', 'g.md']));
      const dst = 'daylight saving time';
      expect((await s.searchDetailed(dst, { explain: true, sources: ['notes'] })).expansions!.map((e) => e.term)).not.toContain('夏令时');
      // The same searcher sees a new document after the next index run (lexicon rows and term sets follow the index).
      writeFileSync(join(docs(), 'f.md'), '# 新\n\n排队系统的时区问题，夏令时。\n');
      expect((await runIndex(config)).status).toBe('ok');
      const again = await s.searchDetailed(q, { explain: true, sources: ['notes'] });
      expect(again.results.find((x) => x.path === 'f.md')?.explain!.expansion).toBeTruthy();
      expect((await s.searchDetailed(dst, { explain: true, sources: ['notes'] })).expansions!.map((e) => e.term)).toContain('夏令时');
      // Concept scoring off: the ORed list of the Chinese terms alone.
      s.tuning = { ...s.tuning, concepts: false };
      const flat = await s.searchDetailed(q, { explain: true, sources: ['notes'] });
      expect(flat.results.find((x) => x.path === 'g.md')!.explain!.expansion).toBeNull();
    } finally {
      await s.close();
    }
  });

  it('a min score counts the expansion list: above the two lists\' ceiling is allowed, above all three is refused', async () => {
    const s = openSearcher(config);
    try {
      const q = 'which time zones do servers use';
      await expect(s.search(q, { sources: ['notes'], minScore: 0.05 })).resolves.toBeDefined();
      await expect(s.search(q, { sources: ['notes'], minScore: 0.05, expand: false })).rejects.toThrow(/at most 0\.0328/);
      await expect(s.search(q, { sources: ['notes'], minScore: 0.09 })).rejects.toThrow(/at most 0\.0820 .*this query's expansions/);
    } finally {
      await s.close();
    }
  });

  it('the CLI shows the expansions with --explain and leaves them out with --no-expand', async () => {
    const cfg = join(t.dir, 'cli.json');
    writeFileSync(cfg, JSON.stringify({ db: join(t.dir, 'i.db'), sources: [{ name: 'notes', kind: 'dir', path: docs(), lexicon: true }] }));
    const on = await runCli(['search', 'which time zones do servers use', '-c', cfg, '--explain']);
    expect(on.code).toBe(0);
    expect(on.stdout).toMatch(/^expanded: .*时区 ← "time zones" \(lexicon 1\.00\)/m);
    expect(on.stdout).toMatch(/expansion #1 /);
    const off = await runCli(['search', 'which time zones do servers use', '-c', cfg, '--explain', '--no-expand']);
    expect(off.stdout).toMatch(/^expanded: none$/m);
    expect(off.stdout).not.toMatch(/expansion #/);
  });
});
