import { foldText } from '../../core/text/fold.ts';

/**
 * Normalisation for keyword search, applied alike to indexed text and to queries so that spellings
 * meet: 三命通会 卷十 is in traditional characters, some files use spaces instead of punctuation,
 * 月令 are written as 正月 or 寅月, and the books disagree on 阳刃/羊刃, 七煞/七杀 and the like.
 * Pure and deterministic; the displayed text is never normalised, only what keyword search sees.
 */

/** Spelling variants → the form the lexicon uses. Longest first where one contains another. */
export const VARIANT_TERMS: ReadonlyArray<readonly [string, string]> = [
  ['阳刃', '羊刃'],
  ['杨刃', '羊刃'],
  ['七煞', '七杀'],
  ['官煞', '官杀'],
  ['煞印', '杀印'],
  ['制煞', '制杀'],
  ['偏才', '偏财'],
  ['正才', '正财'],
  ['葵水', '癸水'], // a typo in 穷通宝鉴 (二月葵水); 葵水 is no term of its own
  ['劫杀', '劫煞'],
  ['灾杀', '灾煞'],
  ['魁刚', '魁罡'],
  ['刧', '劫'],
  ['梟', '枭'],
];

/** 月令: month numbers (lunar) → their 地支. */
export const MONTH_BRANCH: Readonly<Record<string, string>> = {
  正: '寅',
  一: '寅',
  二: '卯',
  三: '辰',
  四: '巳',
  五: '午',
  六: '未',
  七: '申',
  八: '酉',
  九: '戌',
  十: '亥',
  十一: '子',
  十二: '丑',
  腊: '丑',
};

/** Seasonal month names → 地支 (孟春 is the first month of spring, 寅). */
export const SEASON_MONTH_BRANCH: Readonly<Record<string, string>> = {
  孟春: '寅',
  仲春: '卯',
  季春: '辰',
  孟夏: '巳',
  仲夏: '午',
  季夏: '未',
  孟秋: '申',
  仲秋: '酉',
  季秋: '戌',
  孟冬: '亥',
  仲冬: '子',
  季冬: '丑',
};

const NUMERAL = '(?:十一|十二|正|腊|[一二三四五六七八九十])';
/** One or more month numerals then 月: 正月, 十一月, 正二月, 五六月. Not after another numeral (二十二月). */
const MONTHS = new RegExp(`(?<![一二三四五六七八九十百零〇])((?:${NUMERAL})+)月`, 'gu');
const NUMERAL_ONE = new RegExp(NUMERAL, 'gu');

/** Splits a run of month numerals: 正二 → [正, 二]; 十一 and 十二 are one month each. */
export function monthNumerals(run: string): string[] {
  return run.match(NUMERAL_ONE) ?? [];
}

const MONTH_ORDER: Readonly<Record<string, number>> = {
  正: 1, 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9, 十: 10, 十一: 11, 十二: 12, 腊: 12,
};

/** A run names months only when they follow each other (正二, 五六, 八九); 二十二 does not. */
function isMonthRun(numerals: string[]): boolean {
  return numerals.every((n, i) => i === 0 || MONTH_ORDER[n] === MONTH_ORDER[numerals[i - 1]!]! + 1);
}

/** 正月 → 寅月, 正二月 → 寅卯月, 孟春 → 寅月. */
export function monthsToBranches(text: string): string {
  let out = text.replace(MONTHS, (m, run: string) => {
    const numerals = monthNumerals(run);
    return isMonthRun(numerals) ? numerals.map((n) => MONTH_BRANCH[n]).join('') + '月' : m;
  });
  for (const [name, branch] of Object.entries(SEASON_MONTH_BRANCH)) out = out.split(name).join(`${branch}月`);
  return out;
}

function replaceVariants(text: string): string {
  let out = text;
  for (const [from, to] of VARIANT_TERMS) out = out.split(from).join(to);
  return out;
}

/**
 * The text keyword search indexes and queries the classics with: the engine's folding (NFKC, lower
 * case, traditional → simplified, punctuation as spaces) plus the field's own spellings: variants
 * unified (阳刃 → 羊刃) and 月令 as 地支 (正月 → 寅月).
 */
export function normalizeForSearch(text: string): string {
  return foldText(text, (s) => monthsToBranches(replaceVariants(s)));
}
