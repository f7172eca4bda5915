import { Answerer, type AnswererDeps } from '../answer/answer.ts';
import { chatSchema, type ChatConfig } from '../config/schema.ts';
import { lazySearcher, type SearcherLike } from '../search/search.ts';
import { searcherSource } from '../engine/library.ts';

/** A `chat` block as written in a config file (defaults filled in here). */
export type ChatOptions = Parameters<typeof chatSchema.parse>[0];

/**
 * A POST handler for a chat front end built on `useChat`, for web-standard servers:
 *
 *     // app/api/chat/route.ts (Next.js)
 *     const handle = createChatHandler(loadConfig(), { provider: 'dashscope' });
 *     export const POST = (req: Request) => handle(req);
 *
 * The response is the AI SDK UI message stream ragsync serve's POST /api/chat gives: `data-sources`
 * first, then source parts and the text (docs/answers.md).
 */
export function createChatHandler(searcher: SearcherLike, chat: ChatOptions | ChatConfig, deps: AnswererDeps = {}): (request: Request) => Promise<Response> {
  const get = lazySearcher(searcherSource(searcher));
  const config = chatSchema.parse(chat);
  let answerer: Promise<Answerer> | null = null;
  return async (request) => (await (answerer ??= get().then((s) => new Answerer(s, config, deps)))).respond(request);
}
