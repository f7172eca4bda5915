/**
 * An entry is one unit of a book's own structure — a 穷通宝鉴 天干 × 月令 passage, a 子平真诠
 * chapter, a 滴天髓 section — before it is cut to size.
 */
export interface Entry {
  /** Id part, unique within the file once deduplicated: jia-yin, ch01, s03. */
  slug: string;
  /** Context after the book title, outermost first: [论甲木, 正月]. */
  context: string[];
  body: string;
  metadata: Record<string, unknown>;
}

/** Gives repeated slugs a suffix (-2, -3 …) in order of appearance, so ids stay unique and stable. */
export function dedupeSlugs(entries: Entry[]): Entry[] {
  const seen = new Map<string, number>();
  return entries.map((e) => {
    const n = (seen.get(e.slug) ?? 0) + 1;
    seen.set(e.slug, n);
    return n === 1 ? e : { ...e, slug: `${e.slug}-${n}` };
  });
}
