/** A document named by source + path, or by one of its chunks' ids. */
export interface DocRef {
  source?: string;
  path?: string;
  id?: string;
}

/**
 * What a caller may name a document by, read the way it was meant: a path; `source:path` as the
 * text output of `search` prints it; a chunk id as its JSON prints it (also as `source:id`). The
 * first reading that names chunks in the index wins; none does: the plain reading (whose error then
 * says "not in the index"). A bare string is a path if one exists, else an id. A path may end in
 * the line range search prints after it (`classics:穷通宝鉴.md:9-9`).
 */
export async function resolveDocRef(ref: string | DocRef, find: (ref: DocRef) => Promise<readonly number[]>): Promise<DocRef> {
  const readings: DocRef[] = [];
  const split = (s: string): [string, string] | null => {
    const i = s.indexOf(':');
    return i > 0 && i < s.length - 1 ? [s.slice(0, i), s.slice(i + 1)] : null;
  };
  if (typeof ref === 'string') {
    readings.push({ path: ref });
    const parts = split(ref);
    if (parts) readings.push({ source: parts[0], path: parts[1] }, { source: parts[0], id: parts[1] });
    readings.push({ id: ref });
  } else {
    readings.push(ref);
    for (const key of ['path', 'id'] as const) {
      const parts = ref[key] ? split(ref[key]) : null;
      if (parts && (!ref.source || ref.source === parts[0])) readings.push({ ...ref, source: parts[0], [key]: parts[1] });
    }
  }
  // The same readings without a trailing line range (`:9-9`, `:12`).
  for (const r of [...readings]) {
    const bare = r.path?.replace(/:\d+(-\d+)?$/, '');
    if (bare && bare !== r.path) readings.push({ ...r, path: bare }, ...(split(bare) && !r.source ? [{ source: split(bare)![0], path: split(bare)![1] }] : []));
  }
  for (const r of readings) if ((r.path || r.id) && (await find(r)).length) return r;
  return typeof ref === 'string' ? { id: ref } : ref;
}
