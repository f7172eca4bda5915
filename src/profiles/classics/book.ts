import { sha256 } from '../../core/hash.ts';
import { stripInvisible } from '../../chunking/outline.ts';

/** Which book a file is, read from its path: content/命/子平推命/渊海子平(格局篇).md. */
export interface BookInfo {
  /** Short stable key used in ids and filters: qiongtong, ziping, yuanhai … */
  key: string;
  /** The book's title: 穷通宝鉴, 子平真诠 … */
  title: string;
  /** Volume from the filename (卷一, 上, 格局篇 …), or null for a one-file book. */
  volume: string | null;
  /** The volume as an id part: juan01, shang, geju … */
  volumeKey: string | null;
}

/** Known works under content/命/ by title → key. Titles not listed get a key from a hash of the title. */
export const BOOK_KEYS: Readonly<Record<string, string>> = {
  穷通宝鉴: 'qiongtong',
  子平真诠: 'ziping',
  滴天髓: 'ditian',
  滴天髓阐微: 'ditian',
  渊海子平: 'yuanhai',
  三命通会: 'sanming',
  神峰通考: 'shenfeng',
  五行大义: 'wuxingdayi',
  五行精纪: 'wuxingjingji',
  命理探源: 'mingli-tanyuan',
  命理约言: 'mingli-yueyan',
  千里命稿: 'qianli',
  子平管见: 'ziping-guanjian',
  御定子平: 'yuding-ziping',
  八字基础知识: 'bazi-jichu',
  八字如何看健康与疾病: 'bazi-jiankang',
  八字案例分析: 'bazi-anli',
  八字理论进阶版: 'bazi-jinjie',
  生辰八字: 'shengchen-bazi',
  十喻歌: 'shiyu-ge',
  增补太微赋: 'taiwei-fu',
  女命骨髓赋: 'nvming-gusui-fu',
  情色命理: 'qingse-mingli',
  斗数发微轮: 'doushu-fawei',
  斗数骨髓赋: 'doushu-gusui-fu',
  星学大成: 'xingxue-dacheng',
  星平会海: 'xingping-huihai',
  李虚中命书: 'lixuzhong',
  格局章: 'geju-zhang',
  流年星宿: 'liunian-xingxiu',
  玄微论: 'xuanwei-lun',
  玉照定真经: 'yuzhao',
  神煞大全: 'shensha-daquan',
  神煞章: 'shensha-zhang',
  观命经验谈: 'guanming',
  造化元钥: 'zaohua-yuanyao',
  重补斗数彀率: 'doushu-goulv',
  鬼谷遗文: 'guigu',
};

/** Other spellings of a title in file names → the title BOOK_KEYS knows (神锋通考.md became 神峰通考/…). */
const TITLE_ALIASES: Readonly<Record<string, string>> = {
  神锋通考: '神峰通考',
};

/** Volume names → id parts. 卷N is handled by number. */
const VOLUME_KEYS: Readonly<Record<string, string>> = {
  上: 'shang',
  中: 'zhong',
  下: 'xia',
  研究: 'yanjiu',
  评注: 'pingzhu',
  六亲篇: 'liuqin',
  十神篇: 'shishen',
  基础篇: 'jichu',
  女命篇: 'nvming',
  格局篇: 'geju',
  神煞篇: 'shensha',
  赋论: 'fulun',
  六亲论: 'liuqin',
  通神论: 'tongshen',
  杂诗: 'zashi',
};

const DIGITS: Readonly<Record<string, number>> = { 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9, 十: 10 };

/** 一 … 九十九 → number (enough for 卷 and 章). Returns NaN for anything else. */
export function chineseNumber(s: string): number {
  if (/^\d+$/.test(s)) return Number(s);
  if (!s || ![...s].every((c) => c in DIGITS)) return NaN;
  const i = s.indexOf('十');
  if (i === -1) return s.length === 1 ? DIGITS[s]! : NaN;
  const tens = i === 0 ? 1 : DIGITS[s[i - 1]!]!;
  const ones = i === s.length - 1 ? 0 : DIGITS[s[i + 1]!]!;
  return tens * 10 + ones;
}

export const pad2 = (n: number): string => String(n).padStart(2, '0');

const NUMERALS = ['', '一', '二', '三', '四', '五', '六', '七', '八', '九'];

/** 1 … 99 → 一 … 九十九 (the inverse of chineseNumber); other numbers as digits. */
export function chineseNumeral(n: number): string {
  if (!Number.isInteger(n) || n < 1 || n > 99) return String(n);
  const tens = Math.floor(n / 10);
  const ones = n % 10;
  return `${tens > 1 ? NUMERALS[tens] : ''}${tens ? '十' : ''}${NUMERALS[ones]}`;
}

function volumeKey(volume: string): string {
  const parts = volume.split('-').filter(Boolean);
  return parts
    .map((p) => {
      const juan = /^卷(.+)$/.exec(p);
      if (juan) {
        const n = chineseNumber(juan[1]!);
        if (!Number.isNaN(n)) return `juan${pad2(n)}`;
      }
      return VOLUME_KEYS[p] ?? `v${sha256(p).slice(0, 6)}`;
    })
    .join('-');
}

/**
 * Book from a path: the file name without extension is `书名`, `书名(卷)`, `书名-卷` or
 * `书名(卷)-上`. 滴天髓阐微's volumes and 滴天髓 itself share the key `ditian`; 渊海子平's 篇 files
 * share `yuanhai`.
 */
export function bookOf(path: string): BookInfo {
  // Invisible characters in a file name ("滴天髓\u00ad.md") are no part of the title.
  const base = stripInvisible(path.split('/').pop() ?? path).replace(/\.(md|markdown)$/i, '');
  const m = /^(.+?)(?:[(（]([^)）]+)[)）])?(?:-(.+))?$/.exec(base)!;
  let title = m[1]!.trim();
  title = TITLE_ALIASES[title] ?? title;
  const volumes = [m[2], m[3]].filter((v): v is string => !!v).map((v) => v.trim());
  // 星学大成-杂诗 and similar: a known title followed by '-part'.
  if (!BOOK_KEYS[title] && volumes.length === 0 && title.includes('-')) {
    const [head, ...rest] = title.split('-');
    if (BOOK_KEYS[head!]) {
      title = head!;
      volumes.push(rest.join('-'));
    }
  }
  const key = BOOK_KEYS[title] ?? `book-${sha256(title).slice(0, 8)}`;
  const volume = volumes.length ? volumes.join('-') : null;
  return { key, title, volume, volumeKey: volume ? volumeKey(volume) : null };
}
