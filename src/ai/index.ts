// `ragsync/ai`: AI SDK tools — the generic search tool and the ones the built-in profiles bring —
// and a chat route handler for useChat front ends.
export { createSearchTool } from './search-tool.ts';
export { createCodeSearchTool, createDocSearchTool, createProfileTool, createQueryClassicsTool } from './profile-tools.ts';
export { createChatHandler, type ChatOptions } from './chat-handler.ts';
export type { SourceItem } from '../answer/sources.ts';
export type { AnswerMessage } from '../answer/answer.ts';
export type { SearcherLike } from '../search/search.ts';
export * from '../profiles/tools.ts';
