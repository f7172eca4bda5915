import type { AnswerChunk } from './answer.ts';
import { titleWithHeading, type SourceItem } from './sources.ts';

/** An answer read to its end. */
export interface CollectedAnswer {
  text: string;
  sources: SourceItem[];
  /** The error part's text when the answer failed part way. */
  error: string | null;
}

/** Reads an answer stream to its end, handing each text delta to `onText` as it arrives. */
export async function collectAnswer(stream: ReadableStream<AnswerChunk>, onText: (delta: string) => void = () => {}): Promise<CollectedAnswer> {
  const out: CollectedAnswer = { text: '', sources: [], error: null };
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    if (value.type === 'data-sources') out.sources = value.data;
    else if (value.type === 'text-delta') {
      out.text += value.delta;
      onText(value.delta);
    } else if (value.type === 'error') out.error = value.errorText;
  }
}

/** "[1] 子平真诠 · 论伤官 · https://…" per source, as a terminal or a tool result lists them. */
export function sourceLines(sources: SourceItem[]): string[] {
  return sources.map((s, i) => `[${i + 1}] ${titleWithHeading(s.title, typeof s.metadata.heading === 'string' ? s.metadata.heading : null)} · ${s.url}`);
}
