import { normalizeForSearch } from '../../profiles/classics/normalize.ts';

/**
 * The keyword tokeniser, shared by indexing (chunks_fts) and queries so both sides agree.
 *
 * CJK runs become unigrams + bigrams (a two-character term such as 甲木 or 伤官 is one token, so it
 * matches as a whole and ranks by its own IDF); other words are lowercased. Text first goes through
 * `searchNormalizer` (traditional→simplified, variant terms: issue 6's normalizeForSearch).
 */

/** Applied to indexed text and queries alike (change it → bump TOKENIZER_VERSION). */
export let searchNormalizer: (text: string) => string = normalizeForSearch;

/** For tests and embedders of the library that bring their own normaliser. */
export function setSearchNormalizer(fn: (text: string) => string): void {
  searchNormalizer = fn;
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const TOKEN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|[\p{L}\p{N}]+/gu;

function prepare(text: string): string {
  return searchNormalizer(text.normalize('NFKC')).toLowerCase();
}

/** Tokens stored for a chunk: every unigram and bigram of each CJK run, every other word. */
export function indexTokens(text: string): string[] {
  const out: string[] = [];
  for (const m of prepare(text).matchAll(TOKEN)) {
    const tok = m[0];
    if (!CJK.test(tok[0]!)) {
      out.push(tok);
      continue;
    }
    const chars = Array.from(tok);
    for (let i = 0; i < chars.length; i++) {
      out.push(chars[i]!);
      if (i + 1 < chars.length) out.push(chars[i]! + chars[i + 1]!);
    }
  }
  return out;
}

/** The FTS column value for a chunk. */
export function indexText(...parts: string[]): string {
  return indexTokens(parts.join('\n')).join(' ');
}

/**
 * Question words and particles of modern Chinese queries ("…是什么意思", "怎么看"). They are rare in
 * the classical texts, so BM25 would rank them high and pull in whatever modern commentary uses them;
 * queries drop them (indexed text keeps everything). Longest first.
 */
const QUERY_STOP = ['是什么意思', '怎么回事', '为什么', '怎么办', '能不能', '会不会', '有没有', '是不是', '什么', '怎么', '怎样', '如何',
  '是否', '哪些', '哪个', '应该', '可以', '意思', '讲究', '的', '吗', '呢', '吧', '啊'];
const QUERY_STOP_RE = new RegExp(QUERY_STOP.join('|'), 'gu');

/**
 * Query terms, distinct, in order. CJK runs give their bigrams (a run of one character gives the
 * character): unigrams of a longer run would match nearly every classical passage. `unigrams: true`
 * is the fallback when the bigrams match nothing.
 */
export function queryTokens(query: string, opts: { unigrams?: boolean } = {}): string[] {
  const out = new Set<string>();
  const prepared = prepare(query);
  const stripped = prepared.replace(QUERY_STOP_RE, ' ');
  for (const m of (stripped.trim() ? stripped : prepared).matchAll(TOKEN)) {
    const tok = m[0];
    if (!CJK.test(tok[0]!)) {
      out.add(tok);
      continue;
    }
    const chars = Array.from(tok);
    if (chars.length === 1 || opts.unigrams) for (const c of chars) out.add(c);
    for (let i = 0; i + 1 < chars.length; i++) out.add(chars[i]! + chars[i + 1]!);
  }
  return [...out];
}

/** An FTS5 MATCH expression ORing the tokens (each quoted: tokens are letters/digits only). */
export function matchExpression(tokens: string[]): string {
  return tokens.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');
}

/**
 * Bump when indexTokens' output changes (e.g. a new normaliser): a writable store re-tokenises every
 * chunk into chunks_fts on open.
 */
export const TOKENIZER_VERSION = 2; // 2: normalizeForSearch (traditional→simplified, variants, 正月→寅月)
