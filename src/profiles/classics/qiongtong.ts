import { monthNumerals } from './normalize.ts';
import type { Entry } from './entry.ts';
import { BRANCH_PINYIN, branchesOfMonths, STEM_ELEMENT, STEM_PINYIN } from './lexicon.ts';

/**
 * 穷通宝鉴 has one `##` per 天干; its months are marked only in the running text ("三春甲木正月甲木，
 * 初春尚有余寒…", "五六月甲木，…", chart rows followed by "五月丙火：…"). This finds those markers
 * and cuts the 天干 section into one entry per 月令 (or per season, "三秋甲木总论"), plus the
 * general discussion before the first month.
 */

const SEASON_PINYIN: Readonly<Record<string, string>> = { 春: 'chun', 夏: 'xia', 秋: 'qiu', 冬: 'dong' };
const NUMERAL_RUN = '(?:十一|十二|正|腊|[一二三四五六七八九十])+';
// Text before a marker on its line that is only a chart (干支 rows, 时日月年 captions) or punctuation.
const CHART_PREFIX = /^[\s\u3000甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥时日月年,，.．、；;]*$/u;
// 调候 tables list months by 地支 ("寅月 …", "申月 …"); month words inside them start no entry.
const TABLE_LINE = /(?:^|\n)[子丑寅卯辰巳午未申酉戌亥]月[ \u3000]/u;

interface Marker {
  /** Where the entry starts in the body. */
  at: number;
  /** 正二, 五六 … or null for a season marker. */
  numerals: string[] | null;
  season: string | null;
}

/** Label as printed: 正月, 五六月, 三秋. */
function label(m: Marker): string {
  return m.numerals ? `${m.numerals.join('')}月` : `三${m.season}`;
}

function slugOf(stem: string, m: Marker): string {
  const s = STEM_PINYIN[stem]!;
  if (m.numerals) return `${s}-${branchesOfMonths(m.numerals).map((b) => BRANCH_PINYIN[b]).join('-')}`;
  return `${s}-${SEASON_PINYIN[m.season!]}`;
}

function findMarkers(body: string, stem: string): Marker[] {
  const el = STEM_ELEMENT[stem]!;
  const month = new RegExp(`(?:三([春夏秋冬])${stem}${el}(?:总论)?)?(${NUMERAL_RUN})月${stem}${el}([：:])?`, 'gu');
  const season = new RegExp(`三([春夏秋冬])${stem}${el}`, 'gu');
  const candidates: { index: number; end: number; colon: boolean; numerals: string[] | null; season: string | null }[] = [];
  for (const m of body.matchAll(month)) {
    candidates.push({ index: m.index!, end: m.index! + m[0].length, colon: !!m[3], numerals: monthNumerals(m[2]!), season: m[1] ?? null });
  }
  for (const m of body.matchAll(season)) {
    // A season word that opens a month marker was matched above.
    if (candidates.some((c) => c.index <= m.index! && m.index! < c.end)) continue;
    const colon = /^[：:]/.test(body.slice(m.index! + m[0].length));
    candidates.push({ index: m.index!, end: m.index! + m[0].length, colon, numerals: null, season: m[1]! });
  }
  candidates.sort((a, b) => a.index - b.index);

  const markers: Marker[] = [];
  let lastAt = 0;
  let lastLabel = '';
  for (const c of candidates) {
    const lineStart = body.lastIndexOf('\n', c.index - 1) + 1;
    const prefix = body.slice(lineStart, c.index);
    const atLineStart = prefix.trim() === '';
    const chartBefore = !atLineStart && CHART_PREFIX.test(prefix);
    if (!atLineStart && !chartBefore && !c.colon) continue; // "总之正二月甲木…", "惟五月丙火…": a mention
    if (!c.colon && TABLE_LINE.test(body.slice(lastAt, c.index))) continue;
    const m: Marker = { at: atLineStart ? lineStart : c.index, numerals: c.numerals, season: c.numerals ? null : c.season };
    const l = slugOf(stem, m);
    if (l === lastLabel) continue; // the same month continued ("二月乙木…" twice in a row, 十二月 then 腊月)
    markers.push(m);
    lastAt = m.at;
    lastLabel = l;
  }
  return markers;
}

/** Entries of one 天干 section (heading "穷通宝鉴：论甲木"). */
export function stemEntries(stem: string, chapter: string, body: string): Entry[] {
  const markers = findMarkers(body, stem);
  const base = { stem, element: STEM_ELEMENT[stem] };
  const out: Entry[] = [];
  const first = markers[0]?.at ?? body.length;
  const intro = body.slice(0, first).trim();
  if (intro) out.push({ slug: `${STEM_PINYIN[stem]}-zonglun`, context: [chapter, '总论'], body: intro, metadata: { ...base } });
  markers.forEach((m, i) => {
    const text = body.slice(m.at, markers[i + 1]?.at ?? body.length).trim();
    if (!text) return;
    const meta: Record<string, unknown> = { ...base };
    if (m.numerals) {
      const branches = branchesOfMonths(m.numerals);
      meta.months = m.numerals.map((n) => `${n}月`);
      meta.branches = branches;
    } else {
      meta.season = `三${m.season}`;
    }
    out.push({ slug: slugOf(stem, m), context: [chapter, label(m)], body: text, metadata: meta });
  });
  return out;
}

/**
 * 穷通宝鉴 sections (paths without the document title): "穷通宝鉴：论甲木" → 天干 entries; anything
 * else (五行总论) is one entry.
 */
export function qiongtongEntries(sections: { path: string[]; body: string }[]): Entry[] {
  const out: Entry[] = [];
  for (const s of sections) {
    const heading = s.path[s.path.length - 1] ?? '';
    const chapter = heading.replace(/^穷通宝鉴\s*[：:·]\s*/u, '').trim();
    const stem = /^论([甲乙丙丁戊己庚辛壬癸])[木火土金水]$/u.exec(chapter)?.[1];
    if (stem) {
      out.push(...stemEntries(stem, chapter, s.body));
      continue;
    }
    const body = s.body.trim();
    if (!body) continue;
    const slug = chapter === '五行总论' ? 'wuxing' : 'preface';
    out.push({ slug, context: chapter ? [chapter] : [], body, metadata: {} });
  }
  return out;
}
