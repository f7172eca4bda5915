import type { Config } from '../config/load.ts';
import type { Answerer } from '../answer/answer.ts';
import type { Searcher } from '../search/search.ts';

/**
 * The answerer over a searcher when the config has a `chat` block, else null. Loaded on demand:
 * the AI SDK costs start-up time a server without chat should not pay.
 */
export async function answererFor(cfg: Config, searcher: Searcher, log: (line: string) => void): Promise<Answerer | null> {
  if (!cfg.chat) return null;
  const { Answerer } = await import('../answer/answer.ts');
  const a = new Answerer(searcher, cfg.chat, { log });
  // A chat block whose key variable is unset is refused at start, not on the first question.
  a.call.apiKey();
  return a;
}
