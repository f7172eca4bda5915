/** The header every bookmark summary starts with. */
export interface BookmarkHeader {
  title: string | null;
  url: string | null;
  /** As written: "2024-07-20 14:02:56" (no time zone in the files). */
  addedAt: string | null;
  /** Without '#': ["read", "llm"]. Empty when the file has no Tags line (many have none). */
  tags: string[];
}

const FIELD = /^\s*[-*]\s*([A-Za-z][A-Za-z ]*?)\s*:\s*(.*?)\s*$/;

/**
 * Reads `# title`, `- URL:`, `- Added At:`, `- Tags:` from the lines before the first `##`. Field
 * names are matched without case; unknown fields and missing ones are simply absent.
 */
export function parseHeader(body: string): BookmarkHeader {
  const out: BookmarkHeader = { title: null, url: null, addedAt: null, tags: [] };
  for (const line of body.split('\n')) {
    if (/^##\s/.test(line)) break;
    const h1 = /^#\s+(.+?)\s*#*\s*$/.exec(line);
    if (h1 && out.title === null) {
      out.title = h1[1]!;
      continue;
    }
    const f = FIELD.exec(line);
    if (!f) continue;
    const name = f[1]!.toLowerCase().replace(/\s+/g, ' ');
    const value = f[2]!;
    if (name === 'url' && value) out.url = value;
    else if (name === 'added at' && value) out.addedAt = value;
    else if (name === 'tags') out.tags = [...value.matchAll(/#?([^\s#,]+)/g)].map((m) => m[1]!);
  }
  return out;
}

/** "2024-07-20 14:02:56" → { iso: "2024-07-20T14:02:56", compact: "20240720-140256", month: "202407" }. */
export function parseAddedAt(s: string | null): { iso: string; compact: string; month: string } | null {
  const m = s && /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?/.exec(s);
  if (!m) return null;
  const [, y, mo, d, h, mi, sec = '00'] = m;
  return { iso: `${y}-${mo}-${d}T${h}:${mi}:${sec}`, compact: `${y}${mo}${d}-${h}${mi}${sec}`, month: `${y}${mo}` };
}
