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
  expandQuery: (query) => expandClassicsQuery(query),
  // The thesaurus and glossary say what the query says in the books' words (measured: docs/benchmarks/query-analysis.md).
  expansionWeight: 2,
};
