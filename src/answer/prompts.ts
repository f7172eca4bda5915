import type { ChatConfig } from '../config/schema.ts';
import type { AnsweringStyle } from '../core/profile.ts';
import type { SearchScope } from '../search/search.ts';
import type { SearchResult } from '../search/search.ts';
import { titleWithHeading } from './sources.ts';

/** A profile's answering style with the config's overrides and the names of the two sides. */
export interface AnswerStyle extends AnsweringStyle {
  /** chat.systemPrompt: replaces the persona, topic and citation text of the answer prompt. */
  systemPrompt: string | null;
  user: string | null;
  assistant: string | null;
}

const GENERIC: AnsweringStyle = {
  persona: 'You are an assistant that answers from the passages of a knowledge base the user keeps. Answer in the language of the question.',
  topic: 'the documents of this knowledge base',
  citation: 'After each claim taken from a passage, cite it as [1], [2] by its number.',
};

/** The style of the asked sources' profile (one profile: its own; several: the first with one, topics joined). */
export function answerStyle(scope: SearchScope, sources: string[] | undefined, chat: Pick<ChatConfig, 'systemPrompt' | 'topic' | 'names'>): AnswerStyle {
  const names = new Set(sources?.length ? sources : scope.sources.map((s) => s.name));
  const profiles = [...new Set(scope.sources.filter((s) => names.has(s.name)).map((s) => scope.profiles.get(s.profile)))];
  const styles = profiles.map((p) => p.answering ?? GENERIC);
  const first = styles[0] ?? GENERIC;
  const topic = [...new Set(styles.map((s) => s.topic))].join('; ') || GENERIC.topic;
  return {
    persona: first.persona,
    citation: first.citation,
    topic: chat.topic ?? topic,
    systemPrompt: chat.systemPrompt ?? null,
    user: chat.names?.user ?? null,
    assistant: chat.names?.assistant ?? null,
  };
}

/** One line of a conversation as the rewrite step reads it. */
export interface Turn {
  role: 'user' | 'assistant' | 'system';
  text: string;
}

/** Most recent turns the rewrite step sees: enough for a follow-up to find what it refers to. */
const REWRITE_TURNS = 8;
const REWRITE_TURN_CHARS = 1500;

/** System and user prompt of the one call that classifies the last message and rewrites it into a search query. */
export function rewritePrompt(style: AnswerStyle, turns: Turn[]): { system: string; prompt: string } {
  const who = (t: Turn) => (t.role === 'user' ? (style.user ?? 'user') : t.role === 'assistant' ? (style.assistant ?? 'assistant') : 'system');
  const recent = turns.filter((t) => t.role !== 'system').slice(-REWRITE_TURNS);
  const transcript = recent.map((t) => `${who(t)}: ${Array.from(t.text).slice(0, REWRITE_TURN_CHARS).join('')}`).join('\n');
  return {
    system: [
      'You decide whether a chat message needs a search of a library, and write the search query.',
      `The library covers: ${style.topic}.`,
      'isRelevant is true when the last user message asks about that (a follow-up that refers back to such a question counts); false for greetings, thanks, small talk and other subjects.',
      'query is the last user message rewritten as one standalone search query: resolve pronouns and references from the conversation, keep names, terms and quoted words verbatim, in the language of the message, without explanation.',
      'Reply with a JSON object only: {"isRelevant": boolean, "query": string}.',
    ].join('\n'),
    prompt: `Conversation:\n${transcript}\n\nJSON for the last ${who({ role: 'user', text: '' })} message:`,
  };
}

/** The passages as the answer prompt numbers them: [n] title · heading, then the text. */
export function numberedPassages(results: SearchResult[], titles: string[]): string {
  return results
    .map((r, i) => `[${i + 1}] ${titleWithHeading(titles[i] ?? r.path, r.heading)}\n${r.content.trim()}`)
    .join('\n\n');
}

function namesLine(style: AnswerStyle): string | null {
  const parts = [style.assistant ? `You are ${style.assistant}.` : null, style.user ? `The user is ${style.user}.` : null].filter(Boolean);
  return parts.length ? parts.join(' ') : null;
}

/** The answer's system prompt: persona, how to cite, and the numbered passages it may cite. */
export function groundedSystem(style: AnswerStyle, passages: string): string {
  return [
    style.systemPrompt ?? style.persona,
    namesLine(style),
    'Answer the last message from the numbered passages below.',
    style.systemPrompt ? 'After each claim taken from a passage, cite it as [1], [2] by its number.' : style.citation,
    'Cite only numbers that appear below. If the passages do not hold the answer, say so plainly rather than guess.',
    '',
    'Passages:',
    passages,
  ]
    .filter((l) => l !== null)
    .join('\n');
}

/** No passages (the message is not about the library): a general assistant, no citations. */
export function generalSystem(style: AnswerStyle): string {
  return [
    'You are a helpful, concise general assistant. Answer in the language of the message.',
    namesLine(style),
    `You can also answer questions about ${style.topic} from a library, but this message did not need it: do not cite anything.`,
  ]
    .filter(Boolean)
    .join('\n');
}
