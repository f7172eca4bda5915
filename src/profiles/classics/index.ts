import type { Profile } from '../../core/profile.ts';
import { documentFields, ZH_QUESTION_WORDS } from '../common.ts';
import { BOOK_KEYS } from './book.ts';
import { classicsChunker } from './chunker.ts';
import { expandClassicsQuery } from './expand.ts';
import { normalizeForSearch } from './normalize.ts';

/** Every book key the classics chunker gives (chunk metadata.book). */
export const KNOWN_BOOK_KEYS: readonly string[] = [...new Set(Object.values(BOOK_KEYS))];

/** The classical Chinese 八字 texts (s-theo/xx.theojs.cn, content/命/). */
export const classicsProfile: Profile = {
  name: 'classics',
  description: '八字 classics: 穷通宝鉴 by 天干 × 月令, the other books by chapter',
  chunkers: { classics: classicsChunker },
  lexicon: true,
  analyzer: {
    // Bump the version when normalizeForSearch or the stop words change what they produce.
    id: 'classics@1',
    normalize: normalizeForSearch,
    queryStopWords: ZH_QUESTION_WORDS,
  },
  filters: [
    {
      name: 'book',
      description: 'classics book key',
      kind: 'equals',
      fields: ['book'],
      values: KNOWN_BOOK_KEYS,
      // Works not in BOOK_KEYS get a generated key of the same shape, so any such slug is accepted.
      pattern: /^[a-z][a-z0-9-]*$/,
      any: 'all',
      knownFromIndex: true,
    },
  ],
  resultFields: documentFields,
  answering: {
    persona: '你是一位精通子平八字命理的助手，依据所给的命理古籍原文（《穷通宝鉴》《滴天髓》《子平真诠》《三命通会》等）作答，解释古文时忠于原意。',
    topic: '八字命理与命理古籍：天干地支、五行、十神、格局、用神、调候、旺衰、六亲、大运流年，以及这些古籍的原文与章节',
    citation: '每个依据原文的论断后用 [1]、[2] 标出所据段落的编号，并说明出自哪本书哪一章（如《滴天髓·通神论》）。',
  },
  expandQuery: (query) => expandClassicsQuery(query),
  // The thesaurus and glossary say what the query says in the books' words (measured: docs/benchmarks/query-analysis.md).
  expansionWeight: 2,
};
