// zod/mini, as search/request.ts: the body of POST /api/chat is parsed here.
import * as z from 'zod/mini';
import '../config/zod-english.ts';
import { describeIssue } from '../config/load.ts';
import type { ChatConfig } from '../config/schema.ts';
import { RagsyncError, EXIT } from '../core/errors.ts';
import { MAX_LIST } from '../search/request.ts';
import type { Turn } from './prompts.ts';

/** Passages one answer may be given (the request's k). */
export const MAX_PASSAGES = 30;

const part = z.looseObject({ type: z.string(), text: z.optional(z.string()) });
const message = z.looseObject({
  id: z.optional(z.string()),
  role: z.enum(['user', 'assistant', 'system']),
  parts: z.array(part),
});
const names = z.array(z.string().check(z.trim(), z.minLength(1), z.maxLength(200))).check(z.maxLength(MAX_LIST));

/**
 * What `useChat` posts ({id, messages: UIMessage[], trigger, …}) plus the search contract's
 * `source`, `filters` and `k` (passages given to the model). Unknown keys are what a front end's
 * transport adds: they are ignored.
 */
const chatRequestSchema = z.looseObject({
  id: z.optional(z.string()),
  messages: z.array(message).check(z.minLength(1, { error: 'no messages' })),
  source: z.optional(z.union([z.string().check(z.trim(), z.minLength(1)), names])),
  filters: z.optional(z.record(z.string(), z.union([z.string(), names]))),
  k: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(MAX_PASSAGES))),
});

export type ChatMessage = z.output<typeof message>;

export interface ChatRequest {
  /** The UI messages as sent (the model gets them converted). */
  messages: ChatMessage[];
  /** The conversation as text, for the rewrite step. */
  turns: Turn[];
  sources?: string[];
  filters: Record<string, string | string[]>;
  /** Passages given to the model. */
  k: number;
}

const textOf = (m: ChatMessage) => m.parts.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');

/** Validates a chat request against the schema and the configured limits; a bad one is a usage error (HTTP 400). */
export function parseChatRequest(input: unknown, chat: Pick<ChatConfig, 'maxMessages' | 'maxMessageChars' | 'passages'>): ChatRequest {
  const parsed = chatRequestSchema.safeParse(input, { reportInput: true });
  if (!parsed.success) throw new RagsyncError(describeIssue(parsed.error.issues[0]!), EXIT.usage);
  const r = parsed.data;
  if (r.messages.length > chat.maxMessages) throw new RagsyncError(`messages: at most ${chat.maxMessages} per request (got ${r.messages.length})`, EXIT.usage);
  const turns = r.messages.map((m, i) => {
    const text = textOf(m);
    const n = Array.from(text).length;
    if (n > chat.maxMessageChars) throw new RagsyncError(`messages[${i}]: longer than ${chat.maxMessageChars} characters (got ${n})`, EXIT.usage);
    return { role: m.role, text };
  });
  const last = turns[turns.length - 1]!;
  if (last.role !== 'user' || !last.text.trim()) throw new RagsyncError('messages: the last message must be a user message with text', EXIT.usage);
  return {
    messages: r.messages,
    turns,
    sources: r.source === undefined ? undefined : typeof r.source === 'string' ? [r.source] : r.source,
    filters: r.filters ?? {},
    k: r.k ?? chat.passages,
  };
}
