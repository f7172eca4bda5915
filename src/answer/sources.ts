import type { SourceConfig } from '../config/load.ts';
import { sourceItem } from '../search/present.ts';
import type { SearchResult } from '../search/search.ts';
import { passageLines } from './lines.ts';
import { permalink, webRoot } from './permalink.ts';

/** A passage as the chat front end shows it (the field names of its contract). */
export interface SourceItem {
  /** source:chunk id, as GET /search?format=sourceItem gives it. */
  id: string;
  title: string;
  /** A permalink to the passage (git: the file at the indexed commit with its lines), the bookmark's URL, else the path. */
  url: string;
  /** The passage's first 200 characters. */
  transcript: string;
  /** The rerank score, else the fused score. */
  score: number;
  metadata: Record<string, unknown>;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** "1:02:03", "62:03", "3723" or a number of seconds → seconds; else null. */
export function seconds(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
  if (typeof v !== 'string' || !/^\d+(:\d{1,2}){0,2}(\.\d+)?$/.test(v.trim())) return null;
  return v.trim().split(':').reduce((acc, part) => acc * 60 + Number(part), 0);
}

/** "title · heading", the heading left out when the title holds it or its last part already (book · chapter). */
export function titleWithHeading(title: string, heading: string | null | undefined): string {
  const h = heading?.trim() ?? '';
  return h && !title.includes(h.split('›').pop()!.trim()) ? `${title} · ${h}` : title;
}

/** Where the passages' sources live and at which commit they were indexed. */
export interface SourcePlaces {
  sources: readonly Pick<SourceConfig, 'name' | 'kind' | 'url' | 'root'>[];
  commits: ReadonlyMap<string, string | null>;
}

export function toSourceItems(results: SearchResult[], places: SourcePlaces): SourceItem[] {
  const files = new Map<string, string[] | null>();
  // Per source: where its passages link to (a git host's page at the indexed commit), if anywhere.
  const hosts = new Map<string, { url: string; commit: string; root: string } | null>();
  const hostOf = (name: string) => {
    if (hosts.has(name)) return hosts.get(name)!;
    const source = places.sources.find((s) => s.name === name);
    const commit = places.commits.get(name) ?? null;
    const host = source?.kind === 'git' && source.url && commit && webRoot(source.url) ? { url: source.url, commit, root: source.root } : null;
    hosts.set(name, host);
    return host;
  };
  return results.map((r) => {
    const base = sourceItem(r);
    const own = str(r.fields.url) ?? str(r.metadata.url);
    // The checkout is searched for the passage's lines only where they make a link (reading a
    // large file costs more than the rest of the answer's own work).
    const host = own ? null : hostOf(r.source);
    const lines = passageLines(r, host?.root ?? null, files);
    const git = host ? permalink(host.url, host.commit, r.path, lines) : null;
    const book = str(r.fields.book);
    // A heading path starts with the document's title ("甲木 › 正月"): the title is said once.
    const chapter = book ? str(r.fields.chapter)?.replace(new RegExp(`^${escapeRegExp(book)}\\s*›\\s*`), '') || null : null;
    const title = own
      ? (r.title ?? base.title)
      : book && chapter && book !== chapter
        ? `${book} · ${chapter}`
        : (r.title ?? (lines ? `${r.path}:${lines.start}` : r.path));
    const startTime = seconds(r.metadata.startTime);
    const endTime = seconds(r.metadata.endTime);
    return {
      ...base,
      title: title || r.path,
      url: own ?? git ?? r.path,
      metadata: {
        ...base.metadata,
        ...(lines ? { startLine: lines.start, endLine: lines.end } : {}),
        ...(startTime !== null ? { startTime } : {}),
        ...(endTime !== null ? { endTime } : {}),
      },
    };
  });
}
