import { describe, expect, it } from 'vitest';
import { bookOf, chineseNumber } from '../../src/profiles/classics/book.ts';
import { chunkClassics, classicsChunker } from '../../src/profiles/classics/chunker.ts';
import { builtinProfiles } from '../../src/builtin.ts';
const createChunker = builtinProfiles.createChunker;
import { estimateTokens } from '../../src/core/text/tokens.ts';

const settings = { targetTokens: 120, overlap: 0.15 };

// Our own text shaped like 穷通宝鉴: one ## per 天干, months marked only inside paragraphs.
const QIONGTONG = [
  '# 穷通宝鉴',
  '',
  '## 穷通宝鉴：五行总论',
  '',
  '五行之说，此处为测试所写。',
  '',
  '## 穷通宝鉴：论甲木',
  '',
  '甲木总说一句，作为本节引言。',
  '',
  '三春甲木正月甲木，初春尚寒，先用丙火。',
  '',
  '二月甲木，阳刃驾杀，可云小贵。',
  '',
  '总之正二月甲木，以庚为先。',
  '',
  '二月甲木，又一段，仍属二月。',
  '',
  '时日月年',
  '丙甲庚戊　寅子寅辰五六月甲木：五六月甲木，木性虚焦。',
  '',
  '寅月 调候表一行',
  '七月甲木，表中所记，不另成段。',
  '',
  '十二月甲木：天寒气冻。',
  '',
  '腊月甲木，仍是十二月。',
].join('\n');

describe('bookOf', () => {
  it('reads book, title and volume from the path', () => {
    expect(bookOf('content/命/穷通宝鉴.md')).toEqual({ key: 'qiongtong', title: '穷通宝鉴', volume: null, volumeKey: null });
    expect(bookOf('content/命/子平推命/子平真诠(上).md')).toMatchObject({ key: 'ziping', volume: '上', volumeKey: 'shang' });
    expect(bookOf('content/命/子平推命/渊海子平(格局篇).md')).toMatchObject({ key: 'yuanhai', volumeKey: 'geju' });
    expect(bookOf('content/命/滴天髓/滴天髓阐微(通神论).md')).toMatchObject({ key: 'ditian', title: '滴天髓阐微', volumeKey: 'tongshen' });
    expect(bookOf('content/命/三命通会/三命通会(卷十).md')).toMatchObject({ key: 'sanming', volume: '卷十', volumeKey: 'juan10' });
    expect(bookOf('content/命/千里命稿/千里命稿(卷十七)-上.md')).toMatchObject({ key: 'qianli', volumeKey: 'juan17-shang' });
    expect(bookOf('content/命/命理约言/命理约言-中.md')).toMatchObject({ key: 'mingli-yueyan', volumeKey: 'zhong' });
    expect(bookOf('content/命/星学大成-杂诗.md')).toMatchObject({ key: 'xingxue-dacheng', volumeKey: 'zashi' });
    expect(bookOf('content/命/未知之书.md').key).toMatch(/^book-[0-9a-f]{8}$/);
  });

  it('reads Chinese numbers', () => {
    expect([chineseNumber('一'), chineseNumber('十'), chineseNumber('十七'), chineseNumber('二十一'), chineseNumber('07')]).toEqual([1, 10, 17, 21, 7]);
    expect(chineseNumber('上')).toBeNaN();
  });
});

describe('classics chunker: 穷通宝鉴', () => {
  const doc = chunkClassics({ path: 'content/命/穷通宝鉴.md', text: QIONGTONG }, settings);
  const keys = doc.chunks.map((c) => c.key);

  it('cuts a 天干 section into 月令 entries found in the running text', () => {
    expect(keys).toEqual([
      'qiongtong-wuxing-01',
      'qiongtong-jia-zonglun-01',
      'qiongtong-jia-yin-01',
      'qiongtong-jia-mao-01',
      'qiongtong-jia-wu-wei-01',
      'qiongtong-jia-chou-01',
    ]);
  });

  it('keeps mentions, repeated months and 调候 tables inside the current entry', () => {
    const mao = doc.chunks.find((c) => c.key === 'qiongtong-jia-mao-01')!;
    expect(mao.content).toContain('总之正二月甲木');
    expect(mao.content).toContain('又一段');
    expect(mao.content).toContain('时日月年'); // the chart before the next marker stays with it
    const wuwei = doc.chunks.find((c) => c.key === 'qiongtong-jia-wu-wei-01')!;
    expect(wuwei.content.startsWith('五六月甲木：')).toBe(true);
    expect(wuwei.content).toContain('七月甲木，表中所记');
    expect(doc.chunks.find((c) => c.key === 'qiongtong-jia-chou-01')!.content).toContain('腊月甲木');
  });

  it('embeds the context first and stores book, months and keywords', () => {
    const yin = doc.chunks.find((c) => c.key === 'qiongtong-jia-yin-01')!;
    expect(yin.heading).toBe('穷通宝鉴 · 论甲木 · 正月');
    // Context, then the leading lexicon terms in normalised form, then the passage.
    expect(yin.text.startsWith('穷通宝鉴 · 论甲木 · 正月\n甲木 寅月')).toBe(true);
    expect(yin.text).toContain('\n\n三春甲木正月甲木');
    expect(yin.metadata).toMatchObject({ book: 'qiongtong', bookTitle: '穷通宝鉴', stem: '甲', months: ['正月'], branches: ['寅'] });
    expect(yin.metadata.keywords).toEqual(expect.arrayContaining(['甲木', '寅月']));
    const mao = doc.chunks.find((c) => c.key === 'qiongtong-jia-mao-01')!;
    expect(mao.metadata.keywords).toContain('羊刃驾杀');
    expect(doc.metadata).toMatchObject({ book: 'qiongtong', bookTitle: '穷通宝鉴' });
  });

  it('gives the same ids for the same text', () => {
    const again = chunkClassics({ path: 'content/命/穷通宝鉴.md', text: QIONGTONG }, settings);
    expect(again).toEqual(doc);
  });
});

describe('classics chunker: heading books', () => {
  it('uses 第 N 章 for chapter ids and strips the book name from headings', () => {
    const text = '# 子平真诠(上)\n\n## 《子平真诠评注》第 01 章 论十干十二支\n\n原文一段。\n\n徐注：注文一段。\n\n## 《子平真诠评注》第 02 章 论阴阳生克\n\n第二章正文。\n';
    const doc = chunkClassics({ path: 'content/命/子平推命/子平真诠(上).md', text }, settings);
    expect(doc.chunks.map((c) => [c.key, c.heading])).toEqual([
      ['ziping-shang-ch01-01', '子平真诠 · 上 · 第01章 论十干十二支'],
      ['ziping-shang-ch02-01', '子平真诠 · 上 · 第02章 论阴阳生克'],
    ]);
    expect(doc.chunks[0]!.content).toContain('徐注'); // commentary stays with its chapter
    expect(doc.chunks[0]!.metadata).toMatchObject({ chapter: '第01章 论十干十二支', chapterNo: 1, volume: '上' });
  });

  it('numbers plain sections and cleans 三命通会 headings', () => {
    const text = '# 三命通会(卷一)\n\n## 《三命通会》卷 一·论五行生成\n\n甲文。\n\n## 《三命通会》卷 一·论五行生克\n\n乙文。\n';
    const doc = chunkClassics({ path: 'content/命/三命通会/三命通会(卷一).md', text }, settings);
    expect(doc.chunks.map((c) => [c.key, c.heading])).toEqual([
      ['sanming-juan01-s01-01', '三命通会 · 卷一 · 论五行生成'],
      ['sanming-juan01-s02-01', '三命通会 · 卷一 · 论五行生克'],
    ]);
  });

  it('splits long entries with overlap under the size bound, keeping the entry title', () => {
    const sentence = '甲木参天，脱胎要火，春不容金，秋不容土。';
    const spaced = '甲木参天 脱胎要火 春不容金 秋不容土 ';
    const text = `# 滴天髓阐微(通神论)\n\n## 一、天道\n\n${sentence.repeat(30)}\n\n${spaced.repeat(30)}\n`;
    const doc = chunkClassics({ path: 'content/命/滴天髓/滴天髓阐微(通神论).md', text }, settings);
    expect(doc.chunks.length).toBeGreaterThan(3);
    doc.chunks.forEach((c, i) => {
      expect(c.key).toBe(`ditian-tongshen-s01-${String(i + 1).padStart(2, '0')}`);
      expect(c.heading).toBe('滴天髓阐微 · 通神论 · 一、天道');
      expect(estimateTokens(c.content)).toBeLessThanOrEqual(settings.targetTokens);
      expect(c.metadata).toMatchObject({ part: i + 1, parts: doc.chunks.length });
    });
    // Space-punctuated text is cut at its spaces, not inside a phrase.
    const last = doc.chunks[doc.chunks.length - 1]!.content;
    expect(last.endsWith('秋不容土')).toBe(true);
    // Consecutive pieces overlap by whole clauses (a long paragraph is cut at ，/。/spaces alike).
    const a = doc.chunks[0]!.content;
    const b = doc.chunks[1]!.content;
    const shared = Array.from({ length: b.length }, (_, i) => b.slice(0, i + 1)).filter((p) => a.endsWith(p)).pop() ?? '';
    expect(shared.length).toBeGreaterThanOrEqual('春不容金，秋不容土。'.length);
    expect('，。'.includes(a[a.length - shared.length - 1]!)).toBe(true); // the overlap starts at a clause
  });

  it('is registered and fingerprints its settings', () => {
    const c = createChunker('classics', settings);
    expect(c.fingerprint).toBe('classics@3:t120:o0.15');
    expect(classicsChunker(settings).chunk({ path: 'content/命/十喻歌.md', text: '# 十喻歌\n\n一句。\n' }).chunks[0]!.key).toBe('shiyu-ge-s01-01');
  });

  it('embeds traditional text in simplified characters and keeps the content as written', () => {
    const text = '# 三命通会(卷十)\n\n## 《三命通会》卷十·看命口訣\n\n陽刃見財，祿馬同鄉。\n';
    const [c] = chunkClassics({ path: 'content/命/三命通会/三命通会(卷十).md', text }, settings).chunks;
    expect(c!.heading).toBe('三命通会 · 卷十 · 看命口訣');
    expect(c!.content).toBe('陽刃見財，祿馬同鄉。');
    // Embedded in canonical punctuation: ，/。 read as spaces, none at the end (clauses.ts).
    expect(c!.text).toBe('三命通会 · 卷十 · 看命口诀\n羊刃\n\n阳刃见财 禄马同乡');
  });

  it('reads 造化元钥 fold markers as headings and cuts its 天干 sections by month', () => {
    const text = '# 造化元钥(评注)\n\n折叠编辑本段立论特色\n\n立论一段。\n\n折叠甲木\n\n甲木总说。\n\n正月甲木，先丙后癸。\n\n二月甲木，庚金得所。\n';
    const doc = chunkClassics({ path: 'content/命/造化元钥(评注).md', text }, settings);
    expect(doc.chunks.map((c) => [c.key, c.heading])).toEqual([
      ['zaohua-yuanyao-pingzhu-s01-01', '造化元钥 · 评注 · 立论特色'],
      ['zaohua-yuanyao-pingzhu-jia-zonglun-01', '造化元钥 · 评注 · 甲木 · 总论'],
      ['zaohua-yuanyao-pingzhu-jia-yin-01', '造化元钥 · 评注 · 甲木 · 正月'],
      ['zaohua-yuanyao-pingzhu-jia-mao-01', '造化元钥 · 评注 · 甲木 · 二月'],
    ]);
    expect(doc.chunks[2]!.metadata).toMatchObject({ stem: '甲', branches: ['寅'] });
  });
});
