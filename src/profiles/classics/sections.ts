import type { Entry } from './entry.ts';
import { chineseNumber, pad2 } from './book.ts';
import { stemEntries } from './qiongtong.ts';

/**
 * Entries for books whose headings carry the structure: 子平真诠 (第 N 章 论…, commentary inside),
 * 滴天髓阐微 (一、天道 with notes and charts), 渊海子平 (《论…》), 三命通会 (卷 一·论…) and the rest.
 * One entry per heading section; a file without headings is one entry.
 */

const STEM_HEADING = /^论?([甲乙丙丁戊己庚辛壬癸])[木火土金水]$/u;
const CHAPTER_NO = /第\s*([0-9]+|[一二三四五六七八九十]+)\s*章/u;

/** "《三命通会》卷 一·论五行生成" → "论五行生成"; "《子平真诠评注》第 01 章 论…" → "第01章 论…". */
export function cleanHeading(h: string): string {
  return h
    .replace(/^《[^》]*》\s*/u, '')
    .replace(/^卷\s*[一二三四五六七八九十]+\s*[·・.．]\s*/u, '')
    .replace(/第\s*([0-9]+|[一二三四五六七八九十]+)\s*章\s*/u, (_m, n: string) => `第${pad2(chineseNumber(n))}章 `)
    .replace(/\s+/gu, ' ')
    .trim();
}

export function chapterNumber(h: string): number | null {
  const m = CHAPTER_NO.exec(h);
  if (!m) return null;
  const n = chineseNumber(m[1]!);
  return Number.isNaN(n) ? null : n;
}

/**
 * `sections` come from the Markdown splitter: path[0] is the file's `#` title. Its text matters
 * only when it says more than the file name (千里命稿's "# 千里命稿 第 01 章 天干篇").
 */
export function headingEntries(
  sections: { path: string[]; body: string }[],
  fileTitle: string,
  opts: { stemSections?: boolean } = {},
): Entry[] {
  const out: Entry[] = [];
  let n = 0;
  for (const s of sections) {
    const body = s.body.trim();
    if (!body) continue;
    const [h1, ...rest] = s.path;
    // A section titled by a 天干 (造化元钥's "甲木") is cut by month like 穷通宝鉴.
    const stem = opts.stemSections ? STEM_HEADING.exec(rest[rest.length - 1] ?? '')?.[1] : undefined;
    if (stem) {
      out.push(...stemEntries(stem, rest[rest.length - 1]!, body));
      continue;
    }
    const h1Says = h1 && h1.replace(/\s+/g, '') !== fileTitle.replace(/\s+/g, '') && chapterNumber(h1) !== null;
    const path = (h1Says ? [h1!, ...rest] : rest).map(cleanHeading).filter(Boolean);
    const chapter = path[0] ?? null;
    const num = chapterNumber(h1Says ? h1! : (rest[0] ?? ''));
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
