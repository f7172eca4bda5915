import { MONTH_BRANCH, monthsToBranches, normalizeForSearch } from './normalize.ts';

/**
 * The 八字 domain lexicon: what a chunk's `keywords` are drawn from. Terms are in the form
 * normalizeForSearch produces (simplified, 羊刃 not 阳刃, months as 寅月), so keywords, indexed text
 * and queries all agree.
 */

export const STEMS = ['甲', '乙', '丙', '丁', '戊', '己', '庚', '辛', '壬', '癸'] as const;
export const BRANCHES = ['子', '丑', '寅', '卯', '辰', '巳', '午', '未', '申', '酉', '戌', '亥'] as const;

/** 天干 with its element as the books name them (甲木, 丙火 …). */
export const STEM_ELEMENT: Readonly<Record<string, string>> = {
  甲: '木',
  乙: '木',
  丙: '火',
  丁: '火',
  戊: '土',
  己: '土',
  庚: '金',
  辛: '金',
  壬: '水',
  癸: '水',
};

/** Pinyin for ids (qiongtong-jia-yin-01). */
export const STEM_PINYIN: Readonly<Record<string, string>> = {
  甲: 'jia',
  乙: 'yi',
  丙: 'bing',
  丁: 'ding',
  戊: 'wu',
  己: 'ji',
  庚: 'geng',
  辛: 'xin',
  壬: 'ren',
  癸: 'gui',
};
export const BRANCH_PINYIN: Readonly<Record<string, string>> = {
  子: 'zi',
  丑: 'chou',
  寅: 'yin',
  卯: 'mao',
  辰: 'chen',
  巳: 'si',
  午: 'wu',
  未: 'wei',
  申: 'shen',
  酉: 'you',
  戌: 'xu',
  亥: 'hai',
};

export const TEN_GODS = ['比肩', '劫财', '食神', '伤官', '偏财', '正财', '七杀', '偏官', '正官', '偏印', '枭神', '正印', '印绶'] as const;

export const SHENSHA = [
  '天乙贵人', '天德贵人', '月德贵人', '天德', '月德', '文昌', '太极贵人', '国印贵人', '福星贵人', '天厨贵人',
  '学堂', '词馆', '金舆', '禄神', '羊刃', '飞刃', '驿马', '华盖', '将星', '咸池', '桃花', '红艳', '孤辰', '寡宿',
  '亡神', '劫煞', '灾煞', '元辰', '勾绞', '空亡', '魁罡', '天罗地网', '阴差阳错', '十恶大败', '孤鸾', '天赦',
  '金神', '血刃', '丧门', '吊客', '白虎', '天狗', '红鸾', '天喜', '三奇', '六秀', '日贵', '日德', '拱禄', '拱贵',
] as const;

/** 六十甲子 with its 纳音, in cycle order. */
export const NAYIN: ReadonlyArray<readonly [string, string]> = [
  ['甲子', '海中金'], ['乙丑', '海中金'], ['丙寅', '炉中火'], ['丁卯', '炉中火'], ['戊辰', '大林木'], ['己巳', '大林木'],
  ['庚午', '路旁土'], ['辛未', '路旁土'], ['壬申', '剑锋金'], ['癸酉', '剑锋金'], ['甲戌', '山头火'], ['乙亥', '山头火'],
  ['丙子', '涧下水'], ['丁丑', '涧下水'], ['戊寅', '城头土'], ['己卯', '城头土'], ['庚辰', '白蜡金'], ['辛巳', '白蜡金'],
  ['壬午', '杨柳木'], ['癸未', '杨柳木'], ['甲申', '泉中水'], ['乙酉', '泉中水'], ['丙戌', '屋上土'], ['丁亥', '屋上土'],
  ['戊子', '霹雳火'], ['己丑', '霹雳火'], ['庚寅', '松柏木'], ['辛卯', '松柏木'], ['壬辰', '长流水'], ['癸巳', '长流水'],
  ['甲午', '砂中金'], ['乙未', '砂中金'], ['丙申', '山下火'], ['丁酉', '山下火'], ['戊戌', '平地木'], ['己亥', '平地木'],
  ['庚子', '壁上土'], ['辛丑', '壁上土'], ['壬寅', '金箔金'], ['癸卯', '金箔金'], ['甲辰', '覆灯火'], ['乙巳', '覆灯火'],
  ['丙午', '天河水'], ['丁未', '天河水'], ['戊申', '大驿土'], ['己酉', '大驿土'], ['庚戌', '钗钏金'], ['辛亥', '钗钏金'],
  ['壬子', '桑柘木'], ['癸丑', '桑柘木'], ['甲寅', '大溪水'], ['乙卯', '大溪水'], ['丙辰', '沙中土'], ['丁巳', '沙中土'],
  ['戊午', '天上火'], ['己未', '天上火'], ['庚申', '石榴木'], ['辛酉', '石榴木'], ['壬戌', '大海水'], ['癸亥', '大海水'],
];
export const PILLARS = NAYIN.map(([p]) => p);
export const NAYIN_NAMES = [...new Set(NAYIN.map(([, n]) => n))];

/** 格局 and the classic configurations people search by. */
export const PATTERNS = [
  '正官格', '七杀格', '偏官格', '正财格', '偏财格', '正印格', '偏印格', '印绶格', '食神格', '伤官格', '建禄格', '月劫格',
  '羊刃格', '从财格', '从杀格', '从儿格', '从旺格', '从强格', '化气格', '曲直格', '炎上格', '稼穑格', '从革格', '润下格',
  '魁罡格', '金神格', '日贵格', '日德格', '井栏叉格', '飞天禄马', '倒冲格', '拱禄格', '拱贵格', '六乙鼠贵', '六阴朝阳',
  '壬骑龙背', '子遥巳禄', '丑遥巳禄', '时上一位贵', '时上偏财', '伤官配印', '伤官见官', '伤官佩印', '伤官生财', '食神制杀',
  '食神生财', '杀印相生', '财滋弱杀', '官印相生', '财官双美', '羊刃驾杀', '羊刃合杀', '身弱财旺', '财多身弱', '身强财弱',
  '枭神夺食', '比劫夺财', '木火通明', '金白水清', '水火既济', '寒木向阳', '水泛木浮', '调候', '用神', '喜神', '忌神',
] as const;

/** Branches with their element as the books name them (子水, 寅木 …). */
const BRANCH_ELEMENT: Readonly<Record<string, string>> = {
  子: '水', 丑: '土', 寅: '木', 卯: '木', 辰: '土', 巳: '火', 午: '火', 未: '土', 申: '金', 酉: '金', 戌: '土', 亥: '水',
};

/** Every term keywordsOf can return, grouped: for documentation, filters and tests. */
export const LEXICON = {
  stems: STEMS.map((s) => s + STEM_ELEMENT[s]!),
  branches: BRANCHES.map((b) => b + BRANCH_ELEMENT[b]!),
  months: BRANCHES.map((b) => `${b}月`),
  tenGods: [...TEN_GODS],
  shensha: [...SHENSHA],
  pillars: PILLARS,
  nayin: NAYIN_NAMES,
  patterns: [...PATTERNS],
} as const;

const ALL_TERMS: string[] = [...new Set(Object.values(LEXICON).flat())].sort((a, b) => b.length - a.length);

const MAX_KEYWORDS = 40;

/**
 * Lexicon terms found in `text` (any script, any spelling the normaliser knows), in order of first
 * appearance, each once. A term inside a longer term found at the same place is not repeated
 * (伤官配印 does not also yield 伤官 for that occurrence). At most 40.
 */
export function keywordsOf(text: string): string[] {
  const norm = normalizeForSearch(text).replace(/\s+/g, '');
  const found = new Map<string, number>();
  const covered = new Uint8Array(norm.length);
  for (const term of ALL_TERMS) {
    let i = norm.indexOf(term);
    while (i !== -1) {
      let free = false;
      for (let j = i; j < i + term.length; j++) if (!covered[j]) free = true;
      if (free) {
        for (let j = i; j < i + term.length; j++) covered[j] = 1;
        const prev = found.get(term);
        if (prev === undefined || i < prev) found.set(term, i);
      }
      i = norm.indexOf(term, i + 1);
    }
  }
  return [...found.entries()]
    .sort((a, b) => a[1] - b[1])
    .map(([t]) => t)
    .slice(0, MAX_KEYWORDS);
}

/** 正 → 寅; the 地支 of a month numeral run such as 正二 → [寅, 卯]. */
export function branchesOfMonths(numerals: string[]): string[] {
  return numerals.map((n) => MONTH_BRANCH[n]).filter((b): b is string => !!b);
}

export { monthsToBranches };
