import type { Entry } from './entry.ts';
import { chineseNumber, chineseNumeral, pad2 } from './book.ts';
import { stemEntries } from './qiongtong.ts';

/**
 * Entries for books whose headings carry the structure: 子平真诠 (第 N 章 论…, commentary inside),
 * 滴天髓阐微 (一、天道 with notes and charts), 渊海子平 (《论…》), 三命通会 (卷 一·论…) and the rest.
 * One entry per heading section; a file without headings is one entry.
 */

const STEM_HEADING = /^论?([甲乙丙丁戊己庚辛壬癸])[木火土金水]$/u;
const CHAPTER_NO = /第\s*([0-9]+|[一二三四五六七八九十]+)\s*章/u;

const VOLUME = /^卷\s*([0-9]+|[一二三四五六七八九十]+)$/u;

/**
 * "《三命通会》卷 一·论五行生成" → "论五行生成"; "《子平真诠评注》第 01 章 论…" → "第01章 论…";
 * "《神峰通考》卷 01" → "卷一" (the form a file name gives the volume: 神峰通考(卷一).md);
 * "甲，乙。" → "甲 乙".
 */
export function cleanHeading(h: string): string {
  const out = h
    .replace(/^《[^》]*》\s*/u, '')
    .replace(/^卷\s*[一二三四五六七八九十]+\s*[·・.．]\s*/u, '')
    .replace(/第\s*([0-9]+|[一二三四五六七八九十]+)\s*章\s*/u, (_m, n: string) => `第${pad2(chineseNumber(n))}章 `)
    // ，/。 in a heading read as the spaces a re-punctuated copy has instead (clauses.ts).
    .replace(/[，。\s]+/gu, ' ')
    .trim();
  const v = VOLUME.exec(out);
  const n = v ? chineseNumber(v[1]!) : NaN;
  return Number.isNaN(n) ? out : `卷${chineseNumeral(n)}`;
}

/** The number of a volume such as 卷六 or 卷十七-上; null for 上, 研究 … */
export function volumeNumber(volume: string): number | null {
  const m = /^卷([0-9]+|[一二三四五六七八九十]+)(?:-|$)/u.exec(volume);
  const n = m ? chineseNumber(m[1]!) : NaN;
  return Number.isNaN(n) ? null : n;
}

export function chapterNumber(h: string): number | null {
  const m = CHAPTER_NO.exec(h);
  if (!m) return null;
  const n = chineseNumber(m[1]!);
  return Number.isNaN(n) ? null : n;
}

/**
 * `sections` come from the outline: paths without the document title, whether that was front
 * matter or a `#` heading. The title matters only when it says more than the file name
 * (千里命稿's "# 千里命稿 第 01 章 天干篇"): it then leads every section's context.
 */
export function headingEntries(
  sections: { path: string[]; body: string }[],
  title: string | null,
  fileTitle: string,
  opts: { stemSections?: boolean } = {},
): Entry[] {
  const out: Entry[] = [];
  const titleSays = !!title && title.replace(/\s+/g, '') !== fileTitle.replace(/\s+/g, '') && chapterNumber(title) !== null;
  let n = 0;
  for (const s of sections) {
    const body = s.body.trim();
    if (!body) continue;
    const last = s.path[s.path.length - 1] ?? '';
    // A section titled by a 天干 (造化元钥's "甲木") is cut by month like 穷通宝鉴.
    const stem = opts.stemSections ? STEM_HEADING.exec(last)?.[1] : undefined;
    if (stem) {
      out.push(...stemEntries(stem, last, body));
      continue;
    }
    const path = (titleSays ? [title!, ...s.path] : s.path).map(cleanHeading).filter(Boolean);
    const chapter = path[0] ?? null;
    const num = chapterNumber(titleSays ? title! : (s.path[0] ?? ''));
    n++;
    const slug = num !== null ? `ch${pad2(num)}` : `s${pad2(n)}`;
    const metadata: Record<string, unknown> = {};
    if (chapter) metadata.chapter = chapter;
    if (path.length > 1) metadata.section = path.slice(1).join(' · ');
    if (num !== null) metadata.chapterNo = num;
    out.push({ slug, context: path, body, metadata });
  }
  return out;
}

/**
 * 造化元钥 (a commented 穷通宝鉴, copied from an encyclopedia page) marks its sections with lines
 * such as "折叠甲木" or "折叠编辑本段立论特色" (the page's fold controls): they become `##` headings.
 */
export function foldMarkersToHeadings(body: string): string {
  return body.replace(/^折叠(?:编辑本段)?[ \t]*(\S.*)$/gmu, '## $1');
}
