import type { Expansion } from '../core/profile.ts';
import { wordKey } from '../core/text/english-keys.ts';
import type { SearchStore } from '../storage/roles.ts';
import { cedictPinyin, type CedictPinyin } from '../sync/lexicon/cedict.ts';
import type { Expander } from './expand.ts';
import { PinyinDecoder, type DecodedSpan } from './pinyin-decode.ts';
import { TermCountCache } from './term-counts.ts';

/**
 * Pinyin questions over a Chinese corpus ("tian yi gui ren", "tianyiguiren", "shāng guān"): a run of
 * Latin words that parses wholly as pinyin syllables is matched, toneless and joined, against the
 * readings of the corpus lexicon's headwords (the dictionary's pinyin of the words the corpus
 * holds), longest matches first, and the headwords found become expansions. English words that
 * happen to be syllables ("men", "long", "you") rarely spell a corpus word of two or more
 * syllables; a single untoned word must spell three (so "women", "change" stay English).
 */

const SYLLABLES = new Set(
  (
    'a ai an ang ao ba bai ban bang bao bei ben beng bi bian biao bie bin bing bo bu pa pai pan pang pao pei pen peng pi pian piao pie pin ping po pou pu ' +
    'ma mai man mang mao me mei men meng mi mian miao mie min ming miu mo mou mu fa fan fang fei fen feng fo fou fu ' +
    'da dai dan dang dao de dei den deng di dia dian diao die ding diu dong dou du duan dui dun duo ta tai tan tang tao te teng ti tian tiao tie ting tong tou tu tuan tui tun tuo ' +
    'na nai nan nang nao ne nei nen neng ni nian niang niao nie nin ning niu nong nou nu nuan nun nuo nv nve nue ' +
    'la lai lan lang lao le lei leng li lia lian liang liao lie lin ling liu lo long lou lu luan lun luo lv lve lue ' +
    'ga gai gan gang gao ge gei gen geng gong gou gu gua guai guan guang gui gun guo ka kai kan kang kao ke kei ken keng kong kou ku kua kuai kuan kuang kui kun kuo ' +
    'ha hai han hang hao he hei hen heng hong hou hu hua huai huan huang hui hun huo ji jia jian jiang jiao jie jin jing jiong jiu ju juan jue jun ' +
    'qi qia qian qiang qiao qie qin qing qiong qiu qu quan que qun xi xia xian xiang xiao xie xin xing xiong xiu xu xuan xue xun ' +
    'zha zhai zhan zhang zhao zhe zhei zhen zheng zhi zhong zhou zhu zhua zhuai zhuan zhuang zhui zhun zhuo ' +
    'cha chai chan chang chao che chen cheng chi chong chou chu chua chuai chuan chuang chui chun chuo ' +
    'sha shai shan shang shao she shei shen sheng shi shou shu shua shuai shuan shuang shui shun shuo ra ran rang rao re ren reng ri rong rou ru rua ruan rui run ruo ' +
    'za zai zan zang zao ze zei zen zeng zi zong zou zu zuan zui zun zuo ca cai can cang cao ce cen ceng ci cong cou cu cuan cui cun cuo ' +
    'sa sai san sang sao se sen seng si song sou su suan sui sun suo ya yan yang yao ye yi yin ying yo yong you yu yuan yue yun wa wai wan wang wei wen weng wo wu e ei en eng er o ou'
  ).split(' '),
);
/** Letters of the longest syllable (zhuang), and syllables of the longest headword the lexicon keeps. */
const LONGEST_SYLLABLE = 6;
const LONGEST_READING = 6;

/** Lower case, tone marks and tone digits dropped, ü as v ("Lǜ4" → "lv"). */
export function toneless(s: string): string {
  return s
    .toLowerCase()
    .normalize('NFD')
    .replace(/u:|u\u0308/g, 'v')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z])[1-5]/g, '$1');
}

/** The syllables of a toneless word, or null when it is not all pinyin (fewest syllables: "xian" one, not "xi an"). */
export function syllablesOf(word: string): string[] | null {
  const n = word.length;
  const best: (string[] | null)[] = [[]];
  for (let j = 1; j <= n; j++) {
    best[j] = null;
    for (let k = Math.max(0, j - LONGEST_SYLLABLE); k < j; k++) {
      const prev = best[k];
      if (!prev || !SYLLABLES.has(word.slice(k, j))) continue;
      if (!best[j] || prev.length + 1 < best[j]!.length) best[j] = [...prev, word.slice(k, j)];
    }
  }
  return best[n] ?? null;
}

/**
 * A dictionary reading as a key: toneless syllables, space-separated ("gui4 ren2" → "gui ren"), so
 * 提案 "ti an" is not read as the one syllable "tian"; null when not all pinyin.
 */
export function readingKey(reading: string): string | null {
  const parts = toneless(reading).split(/\s+/).filter(Boolean);
  return parts.length && parts.every((p) => SYLLABLES.has(p)) ? parts.join(' ') : null;
}

/** A run of pinyin in a query: its words' letters joined, where syllables may start, and whether it was toned. */
export interface PinyinRun {
  /** Its syllables (of the fewest parse of each word: "xian" is one, as "Xi'an" would be written). */
  syllables: string[];
  words: number;
  /** Words of one syllable. */
  monosyllables: number;
  /** Its words of several syllables, toneless. */
  multi: string[];
  toned: boolean;
}

/**
 * The runs of consecutive Latin words in a query that each parse as pinyin syllables; an untoned
 * word in `english` (a word the corpus lexicon glosses: "database", "women") breaks a run.
 */
export function pinyinRuns(query: string, english: ReadonlySet<string> = new Set()): PinyinRun[] {
  const runs: PinyinRun[] = [];
  let cur: PinyinRun | null = null;
  for (const m of query.matchAll(/[\p{Script=Latin}\p{M}0-9:]+|[^\s'’-]/gu)) {
    const raw = m[0];
    const word = toneless(raw);
    const toned = /[1-5]|[\u0300-\u0307\u0309-\u036f]/.test(raw.normalize('NFD'));
    const syl = /^[a-z]+$/.test(word) && (toned || !english.has(word)) ? syllablesOf(word) : null;
    if (!syl) {
      cur = null;
      continue;
    }
    if (!cur) runs.push((cur = { syllables: [], words: 0, monosyllables: 0, multi: [], toned: false }));
    cur.syllables.push(...syl);
    cur.words++;
    if (syl.length === 1) cur.monosyllables++;
    else cur.multi.push(word);
    // A tone mark or digit (the diaeresis of ü is not one) says the word is pinyin, not English.
    cur.toned ||= toned;
  }
  return runs;
}

/** A headword of the corpus and how many documents hold it. */
export interface Reading {
  headword: string;
  df: number;
}

/** Toneless joined reading → the corpus headwords read so, most documents first. */
export type PinyinIndex = Map<string, Reading[]>;

export function buildPinyinIndex(headwords: readonly Reading[], readings: ReadonlyMap<string, readonly string[]>): PinyinIndex {
  const index: PinyinIndex = new Map();
  for (const h of headwords) {
    for (const r of readings.get(h.headword) ?? []) {
      const key = readingKey(r);
      if (!key) continue;
      const list = index.get(key);
      if (!list) index.set(key, [h]);
      else if (!list.some((x) => x.headword === h.headword)) list.push(h);
    }
  }
  for (const list of index.values()) list.sort((a, b) => b.df - a.df || (a.headword < b.headword ? -1 : 1));
  return index;
}

/** Toneless syllable → the characters the dictionary reads so (from character → its readings). */
export function syllableCharacters(characters: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [c, readings] of characters) {
    for (const r of readings) {
      const key = readingKey(r);
      if (!key || key.includes(' ')) continue;
      const list = out.get(key);
      if (!list) out.set(key, [c]);
      else if (!list.includes(c)) list.push(c);
    }
  }
  return out;
}

/**
 * Whether a run reads as pinyin, given how many of its syllables corpus headwords spell. Toned
 * words always. Pinyin written a syllable a word ("tian yi gui ren": two or more such words) when
 * headwords spell at least half of it. Otherwise (one word, or words of several syllables each,
 * as English words that parse happen to be: "database" da-ta-ba-se, "like case", "an anti") only
 * when headwords spell every syllable of three or more.
 */
function isPinyin(run: PinyinRun, matched: number): boolean {
  if (matched < 2) return false;
  if (run.toned) return true;
  const total = run.syllables.length;
  if (run.monosyllables >= 2) return matched * 2 >= total;
  return total >= 3 && matched === total;
}

/** Syllables of a run inside an English question for it to be read as pinyin (two are often English words, or names spelled otherwise). */
const MIN_INLINE_SYLLABLES = 3;

/** Headwords kept per matched stretch (most documents first). */
export const PINYIN_PER_KEY = 3;

/** Whether every Latin word of a query is in its pinyin runs (pinyin inside an English question is not read). */
function wholePinyin(query: string, runs: readonly PinyinRun[]): boolean {
  return runs.reduce((a, r) => a + r.words, 0) === (query.match(/[\p{Script=Latin}\p{M}0-9:]*\p{Script=Latin}[\p{Script=Latin}\p{M}0-9:]*/gu) ?? []).length;
}

/**
 * The expansions of a query's pinyin: each run split into the fewest stretches (a stretch a
 * headword's reading, or one syllable left over), headwords of the matched stretches weighted by
 * their share of the stretch's documents. A run counts only when a match covers two or more
 * syllables, and a single untoned word only when it spells three. `decoded` (per run, from
 * PinyinDecoder) adds the words the corpus spells that no headword reads, and counts as matched.
 */
export function pinyinExpansions(
  query: string,
  index: PinyinIndex,
  english?: ReadonlySet<string>,
  perKey = PINYIN_PER_KEY,
  decoded: readonly (readonly DecodedSpan[] | undefined)[] = [],
): Expansion[] {
  const out: Expansion[] = [];
  const runs = pinyinRuns(query, english);
  // Pinyin inside an English question ("Golden Carriage star (Jin Yu)") is mostly names the
  // dictionary spells with other characters: there only a run of three or more syllables that the
  // corpus's pairs spell whole, as one word, is read ("(sha yin xiang sheng)").
  if (!wholePinyin(query, runs)) {
    runs.forEach((run, r) => {
      const whole = decoded[r]?.find((s) => s.from === 0 && s.to === run.syllables.length && s.to >= MIN_INLINE_SYLLABLES);
      if (whole) out.push({ term: whole.text, from: run.syllables.join(' '), weight: 1, via: 'pinyin' });
    });
    return out;
  }
  runs.forEach((run, r) => {
    const syl = run.syllables;
    const n = syl.length;
    // best[j]: the fewest stretches covering the first j syllables, ties to more syllables matched, then more documents.
    const best: { pieces: number; matched: number; df: number; from: number; key: string | null }[] = [{ pieces: 0, matched: 0, df: 0, from: -1, key: null }];
    for (let j = 1; j <= n; j++) {
      let b: (typeof best)[number] = { ...best[j - 1]!, pieces: best[j - 1]!.pieces + 1, from: j - 1, key: null };
      for (let i = Math.max(0, j - LONGEST_READING); i < j - 1; i++) {
        const key = syl.slice(i, j).join(' ');
        const hits = index.get(key);
        if (!hits) continue;
        const p = best[i]!;
        const cand = { pieces: p.pieces + 1, matched: p.matched + j - i, df: p.df + hits[0]!.df, from: i, key };
        if (cand.pieces < b.pieces || (cand.pieces === b.pieces && (cand.matched > b.matched || (cand.matched === b.matched && cand.df > b.df)))) b = cand;
      }
      best[j] = b;
    }
    const spans = decoded[r] ?? [];
    const spelled = spans.reduce((a, s) => a + s.to - s.from, 0);
    if (!isPinyin(run, Math.max(best[n]!.matched, spelled))) return;
    const stretches: [key: string, from: number, to: number][] = [];
    for (let j = n; j > 0; j = best[j]!.from) if (best[j]!.key) stretches.push([best[j]!.key!, best[j]!.from, j]);
    for (const [key, i, j] of stretches.reverse()) {
      const all = index.get(key)!;
      const sum = all.reduce((a, r) => a + r.df + 1, 0);
      // Inside a decoded word, the corpus's own pairs say which homophone it writes there.
      const within = spans.find((s) => s.from <= i && j <= s.to);
      const written = within && Array.from(within.text).slice(i - within.from, j - within.from).join('');
      for (const r of all.slice(0, perKey)) {
        if (written === undefined || r.headword === written) out.push({ term: r.headword, from: key, weight: Math.max(0.01, Math.min(1, (r.df + 1) / sum)), via: 'pinyin' });
      }
    }
    for (const s of spans) {
      if (!out.some((e) => e.term === s.text)) out.push({ term: s.text, from: syl.slice(s.from, s.to).join(' '), weight: 1, via: 'pinyin' });
    }
  });
  return out;
}

/**
 * The corpus lexicon's headwords by reading, as an expander: the index is built on the first query
 * that holds a pinyin run (the dictionary's readings read once, the headwords of the index at that
 * generation), and rebuilt when the index has changed since. Where the store counts its keyword
 * terms, a run is also decoded into the characters the corpus writes (pinyin-decode.ts).
 */
export function pinyinExpander(
  store: Pick<SearchStore, 'lexiconHeadwords' | 'lexiconLookup' | 'generation' | 'termCounts'>,
  counts: TermCountCache = new TermCountCache(store),
  dictionary: (headwords: ReadonlySet<string>) => CedictPinyin = cedictPinyin,
): Expander {
  let built: { generation: number; index: PinyinIndex; decoder: PinyinDecoder | null } | null = null;
  let syllables: Map<string, string[]> | null = null;
  return async (q) => {
    if (!store.lexiconHeadwords || !/[A-Za-z]/.test(q)) return [];
    const runs = pinyinRuns(q);
    if (!runs.length) return [];
    const english = await englishWordsOf(runs, store);
    const generation = await store.generation();
    if (built?.generation !== generation) {
      const headwords = await store.lexiconHeadwords(2);
      const dict = dictionary(new Set(headwords.map((h) => h.headword)));
      syllables ??= syllableCharacters(dict.characters);
      built = { generation, index: buildPinyinIndex(headwords, dict.readings), decoder: counts.available ? new PinyinDecoder(syllables, counts) : null };
    }
    const read = pinyinRuns(q, english);
    const decoder = built.decoder;
    const whole = wholePinyin(q, read);
    const decoded = decoder ? await Promise.all(read.map((r) => (whole || r.syllables.length >= MIN_INLINE_SYLLABLES ? decoder.decode(r.syllables) : []))) : [];
    return pinyinExpansions(q, built.index, english, PINYIN_PER_KEY, decoded);
  };
}

/**
 * The untoned words of several syllables in the runs that the corpus lexicon glosses (English
 * words that parse as pinyin: "database", "like"); a single syllable ("long", "fan") is left to
 * the run's other tests, since pinyin questions are mostly made of them.
 */
async function englishWordsOf(runs: readonly PinyinRun[], store: Pick<SearchStore, 'lexiconLookup'>): Promise<Set<string>> {
  const words = [...new Set(runs.filter((r) => !r.toned).flatMap((r) => r.multi))];
  const keyed = words.map((w) => [w, wordKey(w)] as const).filter((x): x is readonly [string, string] => x[1] !== null);
  if (!keyed.length || !store.lexiconLookup) return new Set();
  const glossed = new Set((await store.lexiconLookup(keyed.map((x) => x[1]))).map((r) => r.gloss));
  return new Set(keyed.filter(([, k]) => glossed.has(k)).map(([w]) => w));
}

/**
 * Expansions left once the pinyin ones are in: another expander's reading of part of a stretch a
 * pinyin headword spells whole ("di wang" of "tian luo di wang") gives way to the longer match.
 */
export function withoutPinyinParts(list: readonly Expansion[], pinyin: readonly Expansion[]): Expansion[] {
  const spans = [...new Set(pinyin.filter((e) => e.via === 'pinyin').map((e) => ` ${e.from} `))];
  if (!spans.length) return [...list];
  return list.filter((e) => {
    if (e.via === 'pinyin') return true;
    const from = ` ${toneless(e.from).replace(/[^a-z]+/g, ' ').trim()} `;
    return !spans.some((sp) => sp !== from && sp.includes(from));
  });
}
