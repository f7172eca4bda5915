import { BRANCH_PINYIN, BRANCHES, STEM_ELEMENT, STEM_PINYIN, STEMS } from './lexicon.ts';
import { MONTH_BRANCH } from './normalize.ts';
import type { Match, Mentions } from './thesaurus.ts';

/**
 * English BaZi vocabulary (as the English books and sites write it) and pinyin → the classics'
 * terms. Phrases are matched whole, longest first, case-insensitively, at word boundaries; a
 * phrase inside a longer matched one does not match again ("Seven Killings" is not also "seven").
 */

type Entry = readonly [phrases: readonly string[], terms: ReadonlyArray<readonly [string, number]>];

const ELEMENT_EN: Readonly<Record<string, string>> = { wood: '木', fire: '火', earth: '土', metal: '金', water: '水' };
const EN_ELEMENT = Object.fromEntries(Object.entries(ELEMENT_EN).map(([en, zh]) => [zh, en]));

/** The month animals in 月令 order from 寅 (tiger month = 寅月 = 正月). */
const ANIMALS: Readonly<Record<string, readonly string[]>> = {
  子: ['rat'], 丑: ['ox', 'buffalo'], 寅: ['tiger'], 卯: ['rabbit', 'hare'], 辰: ['dragon'], 巳: ['snake'],
  午: ['horse'], 未: ['goat', 'sheep', 'ram'], 申: ['monkey'], 酉: ['rooster', 'chicken'], 戌: ['dog'], 亥: ['pig', 'boar'],
};
const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'eleventh', 'twelfth'];
const ORDINAL_DIGITS = ['1st', '2nd', '3rd', '4th', '5th', '6th', '7th', '8th', '9th', '10th', '11th', '12th'];
const MONTH_NUMERALS = ['正', '二', '三', '四', '五', '六', '七', '八', '九', '十', '十一', '十二'];

const TERMS: Entry[] = [
  // 十神
  [['day master', 'daymaster', 'day stem', 'self element', 'day element'], [['日主', 1], ['日元', 0.8]]],
  [['seven killings', 'seven killing', 'seven kills', '7 killings', 'qi sha', 'qisha', 'indirect officer', 'seven killings star'], [['七杀', 1], ['偏官', 1]]],
  [['hurting officer', 'hurt officer', 'shang guan', 'shangguan'], [['伤官', 1]]],
  [['eating god', 'eating gods', 'food god', 'shi shen'], [['食神', 1]]],
  [['direct wealth', 'proper wealth', 'zheng cai'], [['正财', 1]]],
  [['indirect wealth', 'partial wealth', 'windfall wealth', 'pian cai'], [['偏财', 1]]],
  [['direct officer', 'proper officer', 'zheng guan'], [['正官', 1]]],
  [['direct resource', 'proper resource', 'zheng yin', 'direct seal'], [['正印', 1], ['印绶', 1]]],
  [['indirect resource', 'partial resource', 'pian yin', 'owl god', 'owl', 'indirect seal'], [['偏印', 1], ['枭神', 1]]],
  [['rob wealth', 'robbing wealth', 'jie cai'], [['劫财', 1]]],
  [['friend', 'friends', 'companion', 'parallel', 'bi jian', 'shoulder to shoulder'], [['比肩', 1]]],
  [['resource star', 'resource', 'seal star', 'seal'], [['印绶', 0.8], ['正印', 0.8], ['偏印', 0.4]]],
  [['wealth star', 'wealth'], [['财星', 0.8], ['正财', 0.5], ['偏财', 0.5]]],
  [['officer star', 'officer', 'officers'], [['官星', 0.8], ['正官', 0.6]]],
  [['output star', 'output'], [['食伤', 0.8], ['食神', 0.5], ['伤官', 0.5]]],
  [['ten gods', 'ten deities', 'ten gods star'], [['十神', 1]]],
  // 神煞
  [['goat blade', 'yang blade', 'sheep blade', 'yang ren'], [['羊刃', 1]]],
  [['tian yi gui ren', 'tianyi gui ren', 'tianyi guiren', 'tianyi nobleman', 'tian yi nobleman', 'heavenly nobleman', 'nobleman star', 'noble man', 'nobleman'], [['天乙贵人', 1], ['贵人', 0.6]]],
  [['tao hua', 'taohua', 'peach blossom', 'peach blossoms', 'romance star'], [['桃花', 1], ['咸池', 0.8]]],
  [['yi ma', 'yima', 'travelling horse', 'traveling horse', 'sky horse', 'post horse'], [['驿马', 1]]],
  [['hua gai', 'huagai', 'canopy', 'elegant seal'], [['华盖', 1]]],
  [['kui gang', 'kuigang'], [['魁罡', 1]]],
  [['wen chang', 'wenchang', 'academic star', 'intelligence star'], [['文昌', 1]]],
  [['void', 'emptiness', 'death emptiness', 'kong wang'], [['空亡', 1]]],
  [['lonely star'], [['孤辰', 1], ['寡宿', 0.8]]],
  // structure and method
  [['useful god', 'useful gods', 'useful element', 'favourable element', 'favorable element', 'yong shen', 'yongshen'], [['用神', 1], ['喜神', 0.5]]],
  [['unfavourable element', 'unfavorable element', 'taboo god', 'harmful god', 'ji shen'], [['忌神', 1]]],
  [['climate adjustment', 'climate', 'regulate the climate', 'tiao hou', 'temperature'], [['调候', 1]]],
  [['structure', 'pattern', 'chart structure', 'ge ju'], [['格局', 1]]],
  [['follow the wealth', 'following wealth'], [['从财格', 1]]],
  [['follow the killing', 'following killings'], [['从杀格', 1]]],
  [['heavenly stem', 'heavenly stems', 'celestial stem', 'stems'], [['天干', 1]]],
  [['earthly branch', 'earthly branches', 'branches'], [['地支', 1]]],
  [['hidden stems', 'hidden stem'], [['藏干', 1]]],
  [['five elements', 'wu xing', 'wuxing'], [['五行', 1]]],
  [['five combinations', 'stem combination', 'stem combinations', 'combine', 'combination'], [['五合', 1], ['合', 0.4]]],
  [['clash', 'clashes', 'clashing'], [['冲', 1], ['相冲', 0.8]]],
  [['punishment', 'punishments'], [['刑', 1], ['三刑', 0.8]]],
  [['luck pillar', 'luck pillars', 'luck cycle', 'major luck', 'da yun', 'dayun'], [['大运', 1]]],
  [['annual luck', 'annual pillar', 'liu nian', 'year luck'], [['流年', 1], ['太岁', 0.6]]],
  [['four pillars', 'bazi', 'ba zi', 'eight characters'], [['八字', 1], ['四柱', 0.8]]],
  [['day pillar'], [['日柱', 1]]],
  [['month pillar', 'month branch', 'month order', 'yue ling'], [['月令', 1], ['月柱', 0.6]]],
  [['hour pillar'], [['时柱', 1]]],
  [['year pillar'], [['年柱', 1]]],
  [['na yin', 'nayin', 'sound element'], [['纳音', 1]]],
  [['strong day master', 'strong self', 'strong'], [['身旺', 1], ['身强', 0.8], ['日主', 0.5]]],
  [['weak day master', 'weak self', 'weak'], [['身弱', 1], ['身衰', 0.6], ['日主', 0.5]]],
  [['spouse', 'husband and wife', 'marriage', 'wife', 'husband'], [['夫妻', 1], ['妻', 0.5], ['夫', 0.5]]],
  [['children', 'child', 'offspring'], [['子女', 1]]],
  [['parents', 'six relations', 'relatives', 'family'], [['六亲', 1]]],
  [['female chart', "woman's chart", 'women', 'woman', 'female'], [['女命', 1]]],
  [['wealthy', 'rich', 'riches'], [['富', 0.6], ['财', 0.5]]],
  [['nobility', 'noble', 'high rank'], [['贵', 0.6]]],
  [['health', 'illness', 'disease'], [['疾病', 1]]],
  [['longevity', 'lifespan'], [['寿', 0.8]]],
  [['personality', 'character', 'temperament'], [['性情', 1]]],
  [['three harmony', 'three harmonies', 'triple harmony', 'three combination', 'san he'], [['三合', 1]]],
  [['six harmony', 'six harmonies', 'six combination', 'liu he'], [['六合', 1]]],
  [['half combination', 'half harmony'], [['半合', 1]]],
  [['directional combination', 'seasonal combination', 'san hui'], [['三会', 1]]],
  [['water frame', 'water bureau'], [['水局', 1]]],
  [['wood frame', 'wood bureau'], [['木局', 1]]],
  [['fire frame', 'fire bureau'], [['火局', 1]]],
  [['metal frame', 'metal bureau'], [['金局', 1]]],
  [['twelve life stages', 'twelve stages', 'life stages', 'growth stages', 'twelve growth', 'chang sheng', 'growth phase'], [['长生', 1], ['十二长生', 1]]],
  [['mu yu', 'bath stage'], [['沐浴', 1]]],
  [['guan dai', 'cap and belt'], [['冠带', 1]]],
  [['lin guan', 'di wang', 'emperor stage', 'prosperous stage'], [['临官', 0.8], ['帝旺', 0.8]]],
  [['golden spirit', 'jin shen'], [['金神', 1]]],
  [['flying horse', 'fei tian lu ma', 'flying heaven'], [['飞天禄马', 1]]],
  [['illness and medicine', 'disease and medicine', 'illness and cure', 'medicine'], [['病药', 1], ['药', 0.6]]],
  [['water flooding', 'flooding water', 'flood', 'flooding'], [['水泛', 1]]],
  [['wood float', 'wood floats', 'floating wood', 'float', 'floats'], [['木浮', 1]]],
  [['buries', 'buried', 'bury'], [['埋', 0.8]]],
  [['exhausted', 'completely exhausted', 'used up'], [['尽', 0.8], ['伤尽', 0.6]]],
  [['generating each other', 'generate each other', 'mutual generation', 'xiang sheng'], [['相生', 1]]],
  [['seizing', 'seizes', 'steals', 'snatching', 'robbing'], [['夺', 0.8]]],
  [['fierce', 'intense', 'blazing'], [['猛烈', 0.6]]],
  [['weakest', 'weak and soft', 'gentle'], [['至弱', 0.6], ['柔', 0.5]]],
  [['gate', 'doorway'], [['门户', 0.6]]],
  // imagery (滴天髓, 穷通宝鉴): the stems as things
  [['towering tree', 'tall tree', 'big tree', 'great tree', 'timber'], [['甲木', 1], ['参天', 0.8]]],
  [['flowers and grass', 'vines', 'vine', 'grass', 'flowers'], [['乙木', 1]]],
  [['the sun', 'sunlight', 'sun'], [['丙火', 1], ['太阳', 0.6]]],
  [['candle', 'lamp', 'candlelight', 'lamplight'], [['丁火', 1], ['灯烛', 0.6]]],
  [['rivers', 'river', 'ocean', 'sea'], [['壬水', 1], ['江河', 0.6]]],
  [['rain and dew', 'rain', 'dew'], [['癸水', 1], ['雨露', 0.6]]],
  [['mountain', 'city wall', 'dyke', 'dam'], [['戊土', 1], ['城墙', 0.5]]],
  [['garden soil', 'fields', 'soil', 'farmland', 'moist earth'], [['己土', 1], ['田园', 0.5]]],
  [['raw iron', 'axe', 'sword', 'blade'], [['庚金', 1]]],
  [['jewel', 'jewels', 'jewelry', 'pearl', 'gems'], [['辛金', 1], ['珠玉', 0.6]]],
  // books
  [['di tian sui', 'ditiansui', 'dripping heaven'], [['滴天髓', 1]]],
  [['qiong tong bao jian', 'qiongtong baojian', 'qiong tong', 'exhaustive penetration'], [['穷通宝鉴', 1]]],
  [['zi ping zhen quan', 'ziping zhenquan', 'zi ping', 'ziping'], [['子平真诠', 0.8], ['子平', 1]]],
  [['san ming tong hui', 'sanming tonghui'], [['三命通会', 1]]],
  [['yuan hai zi ping', 'yuanhai ziping'], [['渊海子平', 1]]],
  [['shen feng tong kao'], [['神峰通考', 1]]],
];

/** Stems: "Jia wood", "yang wood", "Jia" alone (weaker), "Jia Mu". */
function stemEntries(): Entry[] {
  const out: Entry[] = [];
  STEMS.forEach((stem, i) => {
    const el = STEM_ELEMENT[stem]!;
    const py = STEM_PINYIN[stem]!;
    const en = EN_ELEMENT[el]!;
    const yin = i % 2 === 1;
    out.push([[`${py} ${en}`, `${py}-${en}`, `${yin ? 'yin' : 'yang'} ${en}`, `${py} ${elementPinyin(el)}`], [[stem + el, 1]]]);
    // "Wu" is also 午, "Ji" a common syllable: alone, a stem name is weaker.
    if (py !== 'wu' && py !== 'ji' && py !== 'yi') out.push([[py], [[stem + el, 0.6]]]);
  });
  return out;
}

function elementPinyin(el: string): string {
  return { 木: 'mu', 火: 'huo', 土: 'tu', 金: 'jin', 水: 'shui' }[el]!;
}

/** Branches and months: "Zi", "rat month", "tiger month" = 寅月 = 正月, "first lunar month", "fifth month". */
function branchEntries(): Entry[] {
  const out: Entry[] = [];
  for (const b of BRANCHES) {
    const py = BRANCH_PINYIN[b]!;
    const animals = ANIMALS[b]!;
    const monthNumeral = Object.entries(MONTH_BRANCH).find(([n, br]) => br === b && n !== '一' && n !== '腊')![0];
    const order = MONTH_NUMERALS.indexOf(monthNumeral);
    const months = [
      ...animals.map((a) => `${a} month`),
      `${py} month`,
      `${ORDINALS[order]} lunar month`,
      `${ORDINALS[order]} month`,
      `${ORDINAL_DIGITS[order]} month`,
      `${ORDINAL_DIGITS[order]} lunar month`,
      `lunar month ${order + 1}`,
      `month ${order + 1}`,
    ];
    out.push([months, [[`${b}月`, 1]]]);
    out.push([[...animals.map((a) => `${a} branch`), `${py} branch`, ...animals.map((a) => `the ${a}`)], [[b, 0.8]]]);
    // Bare pinyin that is not also a common word or a stem's name.
    if (!['wu', 'si', 'you', 'yin', 'wei', 'hai', 'shen'].includes(py)) out.push([[py], [[b, 0.5]]]);
  }
  return out;
}

const SEASONS_EN: ReadonlyArray<readonly [string[], string]> = [
  [['spring'], '春'],
  [['summer'], '夏'],
  [['autumn', 'fall'], '秋'],
  [['winter'], '冬'],
];
const SEASON_BRANCHES: Readonly<Record<string, string>> = { 春: '寅卯辰', 夏: '巳午未', 秋: '申酉戌', 冬: '亥子丑' };

function seasonEntries(): Entry[] {
  return SEASONS_EN.map(([words, s]) => [
    words.flatMap((w) => [`born in ${w}`, `${w} born`, w]),
    [[`三${s}`, 1], ...[...SEASON_BRANCHES[s]!].map((b) => [`${b}月`, 0.6] as const)],
  ]);
}

/** "too much earth" → 土多, "excess water" → 水多. */
const EXCESS: Entry[] = Object.entries(ELEMENT_EN).map(([en, zh]) => [[`too much ${en}`, `excess ${en}`, `excessive ${en}`, `${en} too strong`], [[`${zh}多`, 1], [`${zh}旺`, 0.6]]]);

/** 干支 by pinyin: "Yi Chou" → 乙丑 (the sixty pillars only: a stem and a branch of one polarity). */
function pillarEntries(): Entry[] {
  const out: Entry[] = [];
  STEMS.forEach((s, i) => {
    BRANCHES.forEach((b, j) => {
      if (i % 2 !== j % 2) return;
      const a = STEM_PINYIN[s]!;
      const c = BRANCH_PINYIN[b]!;
      out.push([[`${a} ${c}`, `${a}${c}`], [[s + b, 1]]]);
    });
  });
  return out;
}

/** "Shen-Zi-Chen" → 申子辰 (a three-harmony or directional frame named by its branches). */
function branchTriples(): Entry[] {
  const out: Entry[] = [];
  const triples = ['申子辰', '亥卯未', '寅午戌', '巳酉丑', '寅卯辰', '巳午未', '申酉戌', '亥子丑'];
  for (const t of triples) {
    const py = [...t].map((b) => BRANCH_PINYIN[b]!);
    out.push([[py.join('-'), py.join(' ')], [[t, 1]]]);
  }
  return out;
}

/** Element words alone (after the stems, which take "Jia wood" whole). */
const ELEMENT_ENTRIES: Entry[] = Object.entries(ELEMENT_EN).map(([en, zh]) => [[en], [[zh, 0.5]]]);

export const GLOSSARY: readonly Entry[] = [
  ...TERMS,
  ...EXCESS,
  ...branchTriples(),
  ...pillarEntries(),
  ...stemEntries(),
  ...branchEntries(),
  ...seasonEntries(),
  ...ELEMENT_ENTRIES,
];

interface Phrase {
  re: RegExp;
  phrase: string;
  terms: Entry[1];
  words: number;
}
/**
 * The phrases, longest first: built on the first English query (about a thousand regular
 * expressions, ~3 ms that a process with no English to look up should not pay).
 */
let phraseList: Phrase[] | undefined;
const phraseTable = (): Phrase[] =>
  (phraseList ??= GLOSSARY.flatMap(([phrases, terms]) =>
    phrases.map((p) => ({
      phrase: p,
      terms,
      words: p.split(/[\s-]+/).length,
      // Word boundaries; a trailing plural "s" allowed; "-" and spaces alike between words.
      re: new RegExp(`(?<![a-z0-9])${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[\s-]+/g, '[\\s-]+')}s?(?![a-z0-9])`, 'gi'),
    })),
  ).sort((a, b) => b.phrase.length - a.phrase.length));

/** True when the query has Latin letters worth looking up. */
export const hasLatin = (q: string) => /[a-z]{2}/i.test(q);

/**
 * Glossary terms for the English (or pinyin) words of a query, and what it names (stems, months,
 * seasons) for entry headings. Longest phrases claim their words first.
 */
export function glossaryMatches(query: string, mentions: Mentions): Match[] {
  if (!hasLatin(query)) return [];
  // Brackets and punctuation read as spaces: "Zi (rat) month" is "Zi rat month".
  const text = query.normalize('NFKC').replace(/[()[\]{},;:!?"“”]/g, ' ').replace(/\s+/g, ' ');
  const taken = new Uint8Array(text.length);
  const out: Match[] = [];
  for (const p of phraseTable()) {
    for (const m of text.matchAll(p.re)) {
      const start = m.index!;
      const end = start + m[0].length;
      if (taken.subarray(start, end).some((x) => x)) continue;
      taken.fill(1, start, end);
      for (const [term, weight] of p.terms) {
        out.push({ term, from: m[0], weight });
        noteMention(term, weight, mentions);
      }
    }
  }
  return out;
}

function noteMention(term: string, weight: number, m: Mentions): void {
  if (weight < 1) return;
  const stem = /^([甲乙丙丁戊己庚辛壬癸])[木火土金水]$/u.exec(term);
  if (stem) m.stems.add(stem[1]!);
  const month = /^([子丑寅卯辰巳午未申酉戌亥])月$/u.exec(term);
  if (month) m.months.add(month[1]!);
  const season = /^三([春夏秋冬])$/u.exec(term);
  if (season) m.seasons.add(season[1]!);
}
