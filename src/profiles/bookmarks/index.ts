import type { Profile } from '../../core/profile.ts';
import { defaultAnalyzer } from '../../core/text/analyzer.ts';
import { documentFields, ZH_QUESTION_WORDS } from '../common.ts';
import { bookmarksChunker } from './chunker.ts';
import { techGlossary } from './glossary.ts';

const ADDED = ['added_at', 'date'];

/** Bookmark summaries (jerrylususu/bookmark-summary): one file per bookmark in YYYYMM/. */
export const bookmarksProfile: Profile = {
  name: 'bookmarks',
  description: 'bookmark summaries: header, TL;DR and Summary per file',
  chunkers: { bookmarks: bookmarksChunker },
  lexicon: true,
  // English tech words → the Chinese the summaries use; RAGSYNC_BOOKMARKS_GLOSSARY=0 turns it off (comparisons).
  expandQuery: (query) => (process.env.RAGSYNC_BOOKMARKS_GLOSSARY === '0' ? [] : techGlossary().expand(query)),
  analyzer: { id: 'bookmarks@1', normalize: defaultAnalyzer.normalize, queryStopWords: ZH_QUESTION_WORDS },
  filters: [
    { name: 'tag', description: 'bookmark tag (repeatable: all must match)', kind: 'all-of', fields: ['tags'], knownFromIndex: true },
    { name: 'month', description: 'added in this month (YYYY-MM)', kind: 'month', fields: ['month', ...ADDED], knownFromIndex: true },
    { name: 'since', description: 'added on or after (YYYY-MM-DD)', kind: 'since', fields: ADDED },
    { name: 'until', description: 'added on or before (YYYY-MM-DD)', kind: 'until', fields: ADDED },
  ],
  resultFields: documentFields,
  answering: {
    persona: "You are a reading assistant for the user's bookmarked articles and their summaries. Answer in the language of the question.",
    topic: 'the articles, posts and pages the user bookmarked (mostly software, AI and technology) and what their summaries say',
    citation: 'After each claim taken from a passage, cite it as [1], [2] by its number and name the article.',
  },
};
