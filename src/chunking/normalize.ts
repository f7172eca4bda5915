/** Line endings, BOM and `<br>` normalised: every chunker starts from the same text. */
export function normalizeMarkdown(raw: string): string {
  return raw
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .replace(/<br\s*\/?>/gi, '\n');
}

export interface FrontMatter {
  data: Record<string, string>;
  body: string;
}

/**
 * Splits a leading `---` YAML block off. Only flat `key: value` lines are read (titles, dates);
 * anything richer is kept verbatim as a string — enough for metadata, no YAML dependency.
 */
export function splitFrontMatter(text: string): FrontMatter {
  const m = /^---[ \t]*\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/.exec(text);
  if (!m) return { data: {}, body: text };
  const data: Record<string, string> = {};
  for (const line of m[1]!.split('\n')) {
    const kv = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (kv && kv[2]) data[kv[1]!] = kv[2].replace(/^(['"])(.*)\1$/, '$2').trim();
  }
  return { data, body: text.slice(m[0].length) };
}
