// `ragsync/ai`: AI SDK tools — the generic search tool and the ones the built-in profiles bring.
export { createSearchTool } from './search-tool.ts';
export { createCodeSearchTool, createDocSearchTool, createProfileTool } from './profile-tools.ts';
export type { SearcherLike } from '../search/search.ts';
export * from '../profiles/tools.ts';
