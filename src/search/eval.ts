import { readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { RagsyncError, EXIT } from '../core/errors.ts';
import type { SearchOptions, SearchResult, Searcher } from './search.ts';

/** One line of an eval file. */
const lineSchema = z.object({
  id: z.string().min(1),
  query: z.string().min(1),
  kind: z.string().min(1).optional(),
  source: z.string().min(1).optional(),
  gold: z
    .array(z.object({ path: z.string().min(1), evidence: z.array(z.string()).default([]) }))
    .min(1),
});
export type EvalCase = z.output<typeof lineSchema>;

export interface Metrics {
  queries: number;
  hit1: number;
  hit3: number;
  hit10: number;
  mrr10: number;
}

export interface EvalReport {
  overall: Metrics;
  byKind: Record<string, Metrics>;
  /** Per query: 1-based rank of the first hit within 10, or null. */
  ranks: { id: string; kind: string; rank: number | null }[];
}

/** Reads and validates a JSONL eval file; a bad line is a one-line error naming file:line and field. */
export function readEvalFile(file: string): EvalCase[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new RagsyncError(`eval file not found: ${file}`, EXIT.usage);
  }
  const cases: EvalCase[] = [];
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw new RagsyncError(`${file}:${i + 1}: not valid JSON`, EXIT.usage);
    }
    const r = lineSchema.safeParse(json);
    if (!r.success) {
      const issue = r.error.issues[0]!;
      throw new RagsyncError(`${file}:${i + 1}: ${issue.path.join('.') || '(line)'}: ${issue.message}`, EXIT.usage);
    }
    cases.push(r.data);
  });
  if (!cases.length) throw new RagsyncError(`${file}: no queries`, EXIT.usage);
  return cases;
}

const squash = (s: string) => s.replace(/\s+/g, '');

/** A hit: same path as a gold entry, and its content holds one of the evidence strings (any, if none). */
export function isHit(r: Pick<SearchResult, 'path' | 'content'>, c: EvalCase): boolean {
  return c.gold.some(
    (g) => g.path === r.path && (!g.evidence.length || g.evidence.some((e) => squash(r.content).includes(squash(e)))),
  );
}

function metrics(ranks: (number | null)[]): Metrics {
  const n = ranks.length;
  const at = (k: number) => ranks.filter((r) => r !== null && r <= k).length / n;
  return {
    queries: n,
    hit1: at(1),
    hit3: at(3),
    hit10: at(10),
    mrr10: ranks.reduce<number>((s, r) => s + (r !== null && r <= 10 ? 1 / r : 0), 0) / n,
  };
}

export interface EvalOptions extends Pick<SearchOptions, 'mode' | 'mmr' | 'dedupe' | 'weights' | 'expand'> {
  /** Default source for lines without one. */
  source?: string;
  /** Results fetched per query (≥ 10 so hit@10 is defined). */
  k?: number;
  /** Writes {"id","results":[{"path","text"}]} lines in rank order. */
  resultsFile?: string;
}

export async function runEval(searcher: Searcher, cases: EvalCase[], opts: EvalOptions = {}): Promise<EvalReport> {
  const k = Math.max(opts.k ?? 10, 10);
  const out: string[] = [];
  const ranks: EvalReport['ranks'] = [];
  for (const c of cases) {
    const source = c.source ?? opts.source;
    const results = await searcher.search(c.query, {
      k,
      sources: source ? [source] : undefined,
      mode: opts.mode,
      mmr: opts.mmr,
      dedupe: opts.dedupe,
      weights: opts.weights,
      expand: opts.expand,
    });
    const i = results.findIndex((r) => isHit(r, c));
    ranks.push({ id: c.id, kind: c.kind ?? 'default', rank: i >= 0 && i < 10 ? i + 1 : null });
    if (opts.resultsFile) out.push(JSON.stringify({ id: c.id, results: results.map((r) => ({ path: r.path, text: r.content })) }));
  }
  if (opts.resultsFile) writeFileSync(opts.resultsFile, out.join('\n') + '\n');
  const kinds = [...new Set(ranks.map((r) => r.kind))].sort();
  return {
    overall: metrics(ranks.map((r) => r.rank)),
    byKind: Object.fromEntries(kinds.map((kind) => [kind, metrics(ranks.filter((r) => r.kind === kind).map((r) => r.rank))])),
    ranks,
  };
}

export function evalText(r: EvalReport): string {
  const row = (name: string, m: Metrics) =>
    `${name.padEnd(14)} ${String(m.queries).padStart(5)}  ${m.hit1.toFixed(3)}  ${m.hit3.toFixed(3)}  ${m.hit10.toFixed(3)}  ${m.mrr10.toFixed(3)}`;
  return [
    `${'kind'.padEnd(14)} ${'n'.padStart(5)}  hit@1  hit@3  hit@10 MRR@10`,
    row('overall', r.overall),
    ...Object.entries(r.byKind).map(([k, m]) => row(k, m)),
  ].join('\n');
}

/**
 * The default search and each of its single parts on the same index: the keyword list alone, the
 * vector list alone, and hybrid without expansions. The default should never lose to a part.
 */
export const MODE_VARIANTS = {
  default: {},
  keyword: { mode: 'keyword' },
  vector: { mode: 'vector' },
  'expand off': { mode: 'hybrid', expand: false },
} as const satisfies Record<string, EvalOptions>;
export type ModeVariant = keyof typeof MODE_VARIANTS;

export async function runModes(searcher: Searcher, cases: EvalCase[]): Promise<Record<ModeVariant, EvalReport>> {
  const out = {} as Record<ModeVariant, EvalReport>;
  for (const [name, opts] of Object.entries(MODE_VARIANTS)) out[name as ModeVariant] = await runEval(searcher, cases, opts);
  return out;
}

/**
 * The parts the default loses to at hit@3 by more than one query (`slack`): none means the
 * default holds. One query of slack: a single tie broken the other way is noise, not a pattern.
 */
export function modesBeatingDefault(r: Record<ModeVariant, EvalReport>, slack = 1): ModeVariant[] {
  const hits = (m: Metrics) => Math.round(m.hit3 * m.queries);
  const own = hits(r.default.overall);
  return (Object.keys(r) as ModeVariant[]).filter((m) => m !== 'default' && hits(r[m].overall) > own + slack);
}
