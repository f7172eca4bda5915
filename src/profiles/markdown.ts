import type { Profile } from '../core/profile.ts';
import { markdownChunker } from '../chunking/markdown.ts';
import { documentFields } from './common.ts';
import { docSearchTool } from './docs-tool.ts';

/** Any Markdown: heading-aware chunks, the engine's own analysis, no filters of its own. */
export const markdownProfile: Profile = {
  name: 'markdown',
  description: 'any Markdown: chunks by heading, then by size',
  chunkers: { markdown: markdownChunker },
  resultFields: documentFields,
  tools: [docSearchTool],
};
