import type { ChunkHit } from '../core/types.ts';

/**
 * Question words and particles of modern Chinese queries ("…是什么意思", "怎么看"). They are rare in
 * the indexed texts, so BM25 would rank them high and pull in whatever modern commentary uses them;
 * queries drop them. Longest first.
 */
export const ZH_QUESTION_WORDS = ['是什么意思', '怎么回事', '为什么', '怎么办', '能不能', '会不会', '有没有', '是不是', '什么', '怎么', '怎样',
  '如何', '是否', '哪些', '哪个', '应该', '可以', '意思', '讲究', '的', '吗', '呢', '吧', '啊'];

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/**
 * The result fields every built-in profile gives (the CLI's and HTTP's documented JSON):
 * book (metadata.bookTitle, else the document title), chapter (metadata.chapter, else the heading),
 * url, tags and date (metadata.added_at or .date). A web page has no book or chapter: its url is
 * the page's, its title the result's.
 */
export function documentFields(h: ChunkHit) {
  const m = h.metadata;
  // A web page's path is its URL; its title is the result's title, not a book.
  const page = /^https?:\/\//.test(h.path) ? h.path : null;
  return {
    book: page ? null : (str(m.bookTitle) ?? h.title),
    chapter: page ? null : (str(m.chapter) ?? h.heading),
    url: str(m.url) ?? page,
    tags: Array.isArray(m.tags) ? m.tags.map(String) : [],
    date: str(m.added_at) ?? str(m.date),
  };
}
