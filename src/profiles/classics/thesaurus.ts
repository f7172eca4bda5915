import { PATTERNS, STEM_ELEMENT } from './lexicon.ts';
import { normalizeForSearch } from './normalize.ts';

/**
 * The field's own equivalences, in the classics' vocabulary: what a modern question says in other
 * words than the books do. Each entry lists the phrasings (as normalizeForSearch leaves them:
 * simplified, 七煞 already 七杀, 正月 already 寅月) and the terms the books use for them, with a weight
 * (1 = says the same, lower = related or one of several readings). Spelling variants are not
 * here: the analyzer unifies those on both sides (normalize.ts).
 */
export type Rule = readonly [phrasings: readonly string[], terms: ReadonlyArray<readonly [string, number]>];

/** 天干 imagery (滴天髓 and 穷通宝鉴 speak of 丙 as the sun, 壬 as rivers …). */
const IMAGERY: Rule[] = [
  [['太阳', '阳光', '烈日'], [['丙火', 1]]],
  [['灯烛', '灯火', '烛火', '蜡烛', '灯光', '星火'], [['丁火', 1]]],
  [['江河', '大海', '河流', '海水', '江水', '大河'], [['壬水', 1]]],
  [['雨露', '雨水', '露水', '下雨'], [['癸水', 1]]],
  [['栋梁', '大树', '树木', '参天'], [['甲木', 1]]],
  [['藤萝', '花草', '小草', '花木', '藤蔓'], [['乙木', 1]]],
  [['顽铁', '刀剑', '钢铁', '斧头'], [['庚金', 1]]],
  [['珠玉', '珠宝', '首饰', '金银'], [['辛金', 1]]],
  [['城墙', '高山', '大山', '堤岸', '山岳'], [['戊土', 1]]],
  [['田园', '田地', '泥土', '农田'], [['己土', 1]]],
];

/** 阴阳 + element → the stem (阳木 = 甲, 阴木 = 乙 …). */
const YIN_YANG: Rule[] = [
  [['阳木'], [['甲木', 1]]],
  [['阴木'], [['乙木', 1]]],
  [['阳火'], [['丙火', 1]]],
  [['阴火'], [['丁火', 1]]],
  [['阳土'], [['戊土', 1]]],
  [['阴土'], [['己土', 1]]],
  [['阳金'], [['庚金', 1]]],
  [['阴金'], [['辛金', 1]]],
  [['阳水'], [['壬水', 1]]],
  [['阴水'], [['癸水', 1]]],
];

/** Solar terms and the like → the 月令 they fall in (节气 start the months: 立春 → 寅月). */
const SOLAR: Rule[] = [
  [['立春', '雨水', '初春', '早春'], [['寅月', 1]]],
  [['惊蛰', '春分', '仲春'], [['卯月', 1]]],
  [['清明', '谷雨', '暮春', '晚春'], [['辰月', 1]]],
  [['立夏', '小满', '初夏'], [['巳月', 1]]],
  [['芒种', '夏至', '盛夏'], [['午月', 1]]],
  [['小暑', '大暑', '晚夏', '最热'], [['未月', 1]]],
  [['立秋', '处暑', '初秋'], [['申月', 1]]],
  [['白露', '秋分', '中秋'], [['酉月', 1]]],
  [['寒露', '霜降', '深秋', '晚秋'], [['戌月', 1]]],
  [['立冬', '小雪', '初冬'], [['亥月', 1]]],
  [['大雪', '冬至', '隆冬'], [['子月', 1]]],
  [['小寒', '大寒', '腊月', '最冷', '年底'], [['丑月', 1]]],
];

const SEASONS: Readonly<Record<string, readonly string[]>> = {
  春: ['寅', '卯', '辰'],
  夏: ['巳', '午', '未'],
  秋: ['申', '酉', '戌'],
  冬: ['亥', '子', '丑'],
};

/** Seasons ↔ their three 月令 and the books' 三春/三夏/三秋/三冬 headings. */
const SEASON_RULES: Rule[] = Object.entries(SEASONS).map(([season, branches]) => [
  [`${season}天`, `${season}季`, `${season}生`, `生在${season}`, `${season}月`, `三${season}`, `${season}令`],
  [[`三${season}`, 1], ...branches.map((b) => [`${b}月`, 0.6] as const)],
]);

/** 十神: the books' names for the same god, and the group names modern writers use. */
const TEN_GODS: Rule[] = [
  [['七杀'], [['偏官', 1]]],
  [['偏官'], [['七杀', 1]]],
  [['偏印'], [['枭神', 1], ['枭印', 0.8]]],
  [['枭神', '枭印', '倒食'], [['偏印', 1]]],
  [['正印'], [['印绶', 1]]],
  [['印绶'], [['正印', 1]]],
  [['印星'], [['正印', 0.8], ['偏印', 0.6], ['印绶', 0.8]]],
  [['比劫'], [['比肩', 1], ['劫财', 1]]],
  [['财星'], [['正财', 0.8], ['偏财', 0.8]]],
  [['官星'], [['正官', 0.8], ['七杀', 0.5]]],
  [['官杀'], [['正官', 0.8], ['七杀', 0.8]]],
  [['食伤'], [['食神', 1], ['伤官', 1]]],
  [['杀旺用印', '用印化杀', '印化杀'], [['杀印相生', 1]]],
  [['食神制七杀', '食神制杀', '食制杀'], [['食神制杀', 1]]],
  [['伤官遇正官', '伤官遇官', '伤官格遇到正官', '伤官碰到正官'], [['伤官见官', 1]]],
  [['伤官用印', '伤官加印', '伤官带印'], [['伤官配印', 1]]],
  [['财多身弱', '财太多', '身弱财多', '财很多', '弱但是财'], [['财多身弱', 1], ['身弱财旺', 1], ['富屋贫人', 0.6]]],
  [['生我'], [['印', 0.6], ['印绶', 0.6]]],
  [['我生'], [['食伤', 0.6], ['食神', 0.5]]],
  [['克我'], [['官杀', 0.6], ['正官', 0.5]]],
  [['我克'], [['财', 0.6], ['正财', 0.5]]],
  [['同我', '和我一样'], [['比劫', 0.6]]],
  [['去留', '留哪个', '去哪个', '留一个'], [['去留', 1], ['去杀留官', 0.6], ['去官留杀', 0.6]]],
  [['势均力敌', '力量差不多', '力量相当', '旗鼓相当', '不相上下'], [['两停', 1], ['两神成象', 0.6]]],
  [['时柱', '时上'], [['时上', 1]]],
  [['阳干'], [['五阳', 0.6], ['阳干', 0.5]]],
  [['阴干'], [['五阴', 0.6], ['阴干', 0.5]]],
  [['顺排', '倒排', '顺着排', '倒着排', '顺逆', '逆排'], [['顺行', 0.8], ['逆行', 0.8], ['阳男阴女', 0.6]]],
  [['合化', '合起来', '变成', '化成'], [['合化', 0.8], ['化', 0.4]]],
  [['身弱财旺'], [['财多身弱', 1]]],
];

/** Modern phrasings → the classical terms. */
const MODERN: Rule[] = [
  [['命主', '日干'], [['日主', 0.6]]],
  [['身弱', '日主弱', '日元弱', '日主太弱', '日元太弱', '身太弱', '身体弱', '身轻', '太弱', '偏弱'], [['身弱', 1], ['身衰', 0.8], ['日主衰', 0.6]]],
  [['身强', '身旺', '日主强', '日主旺', '日元旺', '太强', '太旺', '偏强'], [['身旺', 1], ['身强', 1]]],
  [['用什么', '用啥', '取用', '喜用', '该用', '用什么神'], [['用神', 1]]],
  [['用神'], [['喜用', 0.6]]],
  [['太冷', '寒冷', '太热', '炎热', '寒暖', '燥湿', '气候', '冷暖'], [['调候', 1]]],
  [['格局', '什么格', '格局高低', '成格', '破格'], [['格局', 0.6], ['成格', 0.5], ['破格', 0.5]]],
  [['婚姻', '夫妻', '老婆', '老公', '配偶', '妻子', '丈夫', '姻缘', '缘分'], [['夫妻', 1], ['妻财', 0.5], ['夫星', 0.5]]],
  [['子女', '孩子', '儿女', '后代'], [['子女', 1], ['子息', 0.8]]],
  [['小孩', '小儿', '儿童', '婴儿'], [['小儿', 1], ['关煞', 0.6]]],
  [['父母', '六亲', '亲人', '家人'], [['六亲', 1], ['父母', 0.8]]],
  [['兄弟', '姐妹'], [['兄弟', 1], ['比劫', 0.6]]],
  [['财运', '发财', '赚钱', '有钱'], [['财星', 1], ['财旺', 0.6]]],
  [['当官', '仕途', '事业', '做官', '显贵', '富贵'], [['官星', 1], ['贵', 0.6]]],
  [['性格', '脾气', '为人'], [['性情', 1], ['性格', 0.6]]],
  [['寿命', '长寿', '短命', '早逝', '夭折'], [['寿夭', 1], ['夭', 0.8], ['寿元', 0.6]]],
  [['孤独', '孤单', '难成家', '单身', '寂寞'], [['孤辰', 0.8], ['寡宿', 0.8], ['孤鸾', 0.6]]],
  [['聪明', '文采', '才华', '才气'], [['秀气', 0.6], ['通明', 0.6]]],
  [['生病', '疾病', '健康', '身体'], [['疾病', 1]]],
  [['读书', '考试', '学业', '聪明'], [['文昌', 0.8], ['学堂', 0.6]]],
  [['女命', '女人', '女性', '女子'], [['女命', 1]]],
  [['大运', '行运', '走运'], [['大运', 1], ['运', 0.3]]],
  [['流年', '今年', '哪一年'], [['流年', 1], ['太岁', 0.6]]],
  [['贵人'], [['天乙贵人', 0.8]]],
  [['桃花'], [['咸池', 1]]],
  [['咸池'], [['桃花', 1]]],
  [['出门', '远行', '奔波', '搬家'], [['驿马', 1]]],
  [['五合', '天干合', '相合'], [['五合', 1], ['甲己', 0.6], ['化气', 0.5]]],
  [['开篇', '开头', '第一篇', '总论'], [['通神论', 0.6], ['总论', 0.6]]],
  [['天道'], [['天道', 0.6], ['三元', 0.6]]],
];

export const THESAURUS: readonly Rule[] = [...IMAGERY, ...YIN_YANG, ...SOLAR, ...SEASON_RULES, ...TEN_GODS, ...MODERN];

const STEM_TERM = new RegExp(`([${Object.keys(STEM_ELEMENT).join('')}])[${[...new Set(Object.values(STEM_ELEMENT))].join('')}]?`, 'u');

/** What a query names: its 天干 and 月令, for the 穷通宝鉴 entry headings (寅月甲木, 三春甲木). */
export interface Mentions {
  stems: Set<string>;
  months: Set<string>;
  seasons: Set<string>;
}

export function emptyMentions(): Mentions {
  return { stems: new Set(), months: new Set(), seasons: new Set() };
}

/** 天干 × 月令 headings as the books (normalised) write them: 寅月甲木, 三春甲木. */
export function entryHeadings(m: Mentions): string[] {
  if (m.stems.size !== 1) return [];
  const stem = [...m.stems][0]!;
  const s = stem + STEM_ELEMENT[stem]!;
  return [...[...m.months].map((b) => `${b}月${s}`), ...[...m.seasons].map((season) => `三${season}${s}`)];
}

export interface Match {
  term: string;
  from: string;
  weight: number;
}

/**
 * The thesaurus terms for a Chinese query (any script: it is normalised first), and what it names.
 * A term the query already holds is not added again.
 */
export function thesaurusMatches(query: string, mentions: Mentions = emptyMentions()): Match[] {
  const q = normalizeForSearch(query).replace(/\s+/g, '');
  const out: Match[] = [];
  for (const [phrasings, terms] of THESAURUS) {
    const from = phrasings.find((p) => q.includes(p));
    if (!from) continue;
    for (const [term, weight] of terms) if (!q.includes(term)) out.push({ term, from, weight });
  }
  // What the query names, for entry headings: stems (甲木 or a lone 甲 next to nothing else Han-like).
  for (const m of q.matchAll(new RegExp(STEM_TERM, 'gu'))) if (m[0].length === 2) mentions.stems.add(m[1]!);
  for (const img of [...IMAGERY, ...YIN_YANG]) if (img[0].some((p) => q.includes(p))) mentions.stems.add(img[1][0]![0][0]!);
  for (const m of SOLAR) if (m[0].some((p) => q.includes(p))) mentions.months.add(m[1][0]![0][0]!);
  for (const m of q.matchAll(/([子丑寅卯辰巳午未申酉戌亥])月/gu)) mentions.months.add(m[1]!);
  for (const [season] of Object.entries(SEASONS)) if (SEASON_RULES.find((r) => r[1][0]![0] === `三${season}`)![0].some((p) => q.includes(p))) mentions.seasons.add(season);
  return out;
}

/** 十神 and 羊刃 by the one character the books' compound terms use for them (食神制杀: 食 + 杀). */
const GOD_CHAR: ReadonlyArray<readonly [string, string]> = [
  ['七杀', '杀'], ['偏官', '杀'], ['正官', '官'], ['官星', '官'], ['正印', '印'], ['偏印', '印'], ['印绶', '印'], ['枭神', '印'],
  ['食神', '食'], ['伤官', '伤'], ['正财', '财'], ['偏财', '财'], ['财星', '财'], ['比肩', '比'], ['劫财', '劫'], ['比劫', '比'],
  ['羊刃', '刃'], ['杀', '杀'], ['官', '官'], ['印', '印'], ['财', '财'], ['食', '食'], ['伤', '伤'], ['刃', '刃'],
];

/** The gods a text names, as their characters: 伤官见官 → {伤, 官}; a full name is read before its characters. */
export function godsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < text.length; ) {
    const hit = GOD_CHAR.find(([name]) => text.startsWith(name, i));
    if (hit) {
      out.add(hit[1]);
      i += hit[0].length;
    } else i++;
  }
  return out;
}

// Beside the lexicon's configurations, the ones for 官 and 杀 together. Read on the first query
// that needs them: every command loads this module, and the hourly no-op expands no query.
let compounds: ReadonlyArray<readonly [string, Set<string>]> | undefined;
const compoundsOfGods = () =>
  (compounds ??= [...PATTERNS, '官杀混杂', '去杀留官', '去官留杀'].map((p) => [p, godsOf(p)] as const).filter(([, g]) => g.size >= 2));

/** 天干五合 and what each pair becomes. */
const STEM_PAIRS: ReadonlyArray<readonly [string, string, string]> = [
  ['甲', '己', '土'], ['乙', '庚', '金'], ['丙', '辛', '水'], ['丁', '壬', '木'], ['戊', '癸', '火'],
];

/**
 * The books' compound terms for what a query combines: the gods it names (in its own words or
 * through expansions) → the configurations made of exactly those (伤官 + 正官 → 伤官见官; 七杀 + 食神
 * → 食神制杀); two stems of a 五合 pair → their 合 and 化 (甲 + 己 → 甲己合, 甲己化土).
 */
export function compoundTerms(normalizedQuery: string, terms: readonly string[]): Match[] {
  const q = normalizedQuery.replace(/\s+/g, '');
  const gods = godsOf([q, ...terms].join(' '));
  const from = [...gods].join('+');
  const out: Match[] = [];
  // The compound names the whole combination the query names, not a part of it: a line listing
  // four gods (杀伤枭刃) asks after none of their pairs (羊刃驾杀).
  const names = (g: Set<string>) => [...g].every((x) => gods.has(x)) && g.size === gods.size;
  for (const [p, g] of compoundsOfGods()) if (!q.includes(p) && names(g)) out.push({ term: p, from, weight: 0.9 });
  const stems = new Set([...q.replace(/[自知]己/g, '')].filter((c) => c in STEM_ELEMENT));
  for (const t of terms) if (t.length === 2 && t[0]! in STEM_ELEMENT) stems.add(t[0]!);
  for (const [a, b, el] of STEM_PAIRS) {
    if (stems.has(a) && stems.has(b)) out.push({ term: `${a}${b}合`, from: `${a}+${b}`, weight: 0.9 }, { term: `${a}${b}化${el}`, from: `${a}+${b}`, weight: 0.9 });
  }
  return out;
}
