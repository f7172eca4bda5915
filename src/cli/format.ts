import type { IndexResult, SourceResult } from '../sync/run.ts';
import type { SearchResult, StageReport } from '../search/search.ts';
import type { Expansion } from '../core/profile.ts';
import { resultJson } from '../search/present.ts';
import type { StatusReport } from '../storage/roles.ts';
import type { Health } from '../daemon/health.ts';
import { painter, type Paint } from './color.ts';

const short = (sha: string | null) => (sha ? sha.slice(0, 7) : '-');

/** `--json` shape of an index run: the CLI contract, without the plan's internals. */
export function indexJson(r: IndexResult) {
  return {
    status: r.status,
    dryRun: r.dryRun,
    embedded: r.textsEmbedded,
    textsDropped: r.textsDropped,
    durationMs: r.durationMs,
    fingerprint: r.fingerprint,
    runId: r.runId,
    trigger: r.trigger,
    requests: r.requests,
    tokens: r.tokens,
    retries: r.retries,
    sources: r.sources.map((s) => ({
      name: s.name,
      status: s.status,
      commit: s.commit,
      commitBefore: s.commitBefore,
      // The plan, in the shape documented before `planned` and `written` existed.
      documents: s.planned.documents,
      chunks: { total: s.planned.chunks, toEmbed: s.planned.texts, reused: s.planned.chunksReused },
      planned: s.planned,
      written: s.written,
      estimatedTokens: s.estimatedTokens,
      deferred: s.deferred,
      skippedFiles: s.skippedFiles,
      ...(s.wouldFetch ? { wouldFetch: s.wouldFetch } : {}),
      error: s.error,
    })),
  };
}

function sourceLine(s: SourceResult, dryRun: boolean, paint: Paint): string {
  // What happened; a dry run (or a source that stopped early) also shows what was planned.
  const c = dryRun ? s.planned : s.written;
  const d = c.documents;
  const moved = s.commitBefore && s.commitBefore !== s.commit ? `${short(s.commitBefore)}→${short(s.commit)}` : short(s.commit);
  const parts = [
    `${s.name.padEnd(12)} ${paint(s.status, s.status.padEnd(7))} @${moved}`,
    `docs +${d.added} ~${d.changed} -${d.deleted} >${d.renamed} =${d.unchanged}${d.skipped ? ` !${d.skipped}` : ''}`,
    `chunks ${c.chunks} (${c.chunksReused} reused)  texts ${dryRun ? 'to embed' : 'embedded'} ${c.texts}`,
  ];
  if (!dryRun && s.status !== 'ok' && s.status !== 'partial') {
    const p = s.planned;
    parts.push(`(planned: docs +${p.documents.added} ~${p.documents.changed} -${p.documents.deleted} >${p.documents.renamed}, texts ${p.texts})`);
  }
  if (s.estimatedTokens) parts.push(`~${s.estimatedTokens} tokens`);
  if (s.deferred) parts.push(`${s.deferred} deferred by --max-docs`);
  const w = s.wouldFetch;
  const fetch = w ? `\n  would fetch: ${w.new.length} new, ${w.revalidate.length} to revalidate (conditional), ${w.drop.length} to drop; pages linked from fetched pages are found as they are fetched` : '';
  return parts.join('  ') + fetch + (s.error ? `\n  error: ${s.error}` : '');
}

/** Per-file plan lines for -v. */
function planLines(s: SourceResult): string[] {
  if (!s.plan) return [];
  const lines: string[] = [];
  for (const w of s.plan.write) {
    const mark = w.kind === 'added' ? '+' : w.kind === 'changed' ? '~' : '>';
    const newTexts = w.doc.chunks.filter((c) => s.plan!.embed.has(c.textHash)).length;
    const from = w.from ? `${w.from} → ` : '';
    lines.push(`  ${mark} ${from}${w.doc.path}  (${w.doc.chunks.length} chunks, ${newTexts} to embed)`);
  }
  for (const p of s.plan.delete) lines.push(`  - ${p}`);
  for (const u of s.wouldFetch?.new ?? []) lines.push(`  ? ${u}  (new: would be fetched)`);
  for (const k of s.plan.skipped) lines.push(`  ! ${k.reason}`);
  return lines;
}

export function indexText(r: IndexResult, verbose: boolean, paint: Paint = painter(false)): string {
  const lines: string[] = [];
  for (const s of r.sources) {
    lines.push(sourceLine(s, r.dryRun, paint));
    if (verbose) lines.push(...planLines(s));
  }
  const what = r.dryRun ? 'dry run: nothing written, nothing embedded' : `embedded ${r.textsEmbedded} texts`;
  lines.push(`${paint(r.status)}: ${what} in ${(r.durationMs / 1000).toFixed(2)}s (${r.fingerprint})`);
  return lines.join('\n');
}

/** A Postgres worker that had nothing to claim: one line naming who holds what (index prints it on stderr). */
export function idleLine(idle: NonNullable<IndexResult['idle']>): string {
  const held = idle.held.map((l) => `${l.source} held by pid ${l.pid} on ${l.host} (lease ${l.claimedSecondsAgo}s old, renewed ${l.renewedSecondsAgo}s ago)`);
  const done = idle.done.length ? [`${idle.done.join(', ')} already indexed by another worker (for this tick, or since this run began)`] : [];
  return `nothing to do: no source is free for this worker: ${[...held, ...done].join('; ') || 'none selected'}`;
}

export function searchJson(results: SearchResult[]) {
  return results.map(resultJson);
}

/** The query's expansions, one line: `expanded: 消息队列 ← "message queue" (lexicon 1.00) …`. */
export function expansionsText(expansions: readonly Expansion[]): string {
  if (!expansions.length) return 'expanded: none';
  return `expanded: ${expansions.map((e) => `${e.term} ← "${e.from}" (${e.via} ${e.weight.toFixed(2)})`).join(', ')}`;
}

/** One line per search stage: `stage retrieve    4.12 ms  keyword 50, vector 50, …`. */
export function stagesText(stages: readonly StageReport[]): string {
  return stages.map((s) => `stage ${s.stage.padEnd(9)}${s.ms.toFixed(2).padStart(8)} ms  ${s.did}`).join('\n');
}

export function searchText(results: SearchResult[]): string {
  if (!results.length) return 'no results';
  return results
    .map((r, i) => {
      const body = r.content.replace(/\s+/g, ' ').slice(0, 160);
      const why = r.explain
        ? `\n   vector ${r.explain.vector ? `#${r.explain.vector.rank} ${r.explain.vector.score.toFixed(3)}` : '-'}` +
          `  keyword ${r.explain.keyword ? `#${r.explain.keyword.rank} ${r.explain.keyword.score.toFixed(3)}` : '-'}` +
          (r.explain.decay !== null ? `  decay ${r.explain.decay.toFixed(3)}` : '') +
          (r.explain.expansion ? `  expansion #${r.explain.expansion.rank} ${r.explain.expansion.score.toFixed(3)} ×${r.explain.expansion.weight.toFixed(2)}` : '') +
          (r.explain.duplicates ? `  +${r.explain.duplicates} near-duplicates` : '')
        : '';
      const lines = r.startLine !== undefined ? `:${r.startLine}-${r.endLine}` : '';
      return `${i + 1}. [${r.score.toFixed(4)}] ${r.source}:${r.path}${lines}
   ${r.heading}${factsLine(r.fields)}
   ${body}${why}`;
    })
    .join('\n');
}

/** "https://… · #database #sqlite · 2024-01-05": the link, tags and date a result carries, if any. */
function factsLine(f: Record<string, unknown>): string {
  const tags = Array.isArray(f.tags) ? f.tags.map((t) => `#${String(t)}`).join(' ') : '';
  const parts = [typeof f.url === 'string' ? f.url : '', tags, typeof f.date === 'string' ? f.date.slice(0, 10) : ''].filter(Boolean);
  return parts.length ? `\n   ${parts.join(' · ')}` : '';
}

/**
 * What `status` warns about: chunk texts the active embedder has no vector for (vector search does
 * not see them; after `gc --drop-other-fingerprints` run by another config, none at all).
 */
export function coverageWarnings(s: StatusReport, activeFingerprint: string): string[] {
  if (!s.distinctTexts) return [];
  const covered = s.coverage.find((c) => c.fingerprint === activeFingerprint)?.covered ?? 0;
  if (covered >= s.distinctTexts) return [];
  const missing = s.distinctTexts - covered;
  const effect = covered === 0 ? 'search is keyword-only' : 'vector search does not see them';
  return [
    `${missing} of ${s.distinctTexts} chunk texts have no vector for the active embedder ${activeFingerprint}: ${effect} until "ragsync index" embeds them`,
  ];
}

/** The health verdict as status's first line. */
export function healthLine(h: Health): string {
  return `health: ${h.status}${h.ok ? '' : ' (unhealthy)'}: ${h.reason}`;
}

export function statusText(s: StatusReport, activeFingerprint: string, health?: Health): string {
  const lines = health ? [healthLine(health)] : [];
  for (const w of coverageWarnings(s, activeFingerprint)) lines.push(`warning: ${w}`);
  lines.push('sources:');
  for (const src of s.sources) {
    lines.push(
      `  ${src.name.padEnd(12)} ${src.kind.padEnd(4)} @${short(src.commit)}  ${src.documents} docs  ${src.chunks} chunks  indexed ${src.indexedAt ?? 'never'}`,
    );
  }
  if (s.leases?.length) {
    // Postgres workers: who indexes (or last indexed) each source, and how fresh its lease is.
    lines.push('workers:');
    const last = new Map<string, { status: string; at: string }>();
    for (const r of [...s.runs].reverse()) for (const src of r.sources) last.set(src.source, { status: src.status, at: r.finishedAt ?? r.startedAt });
    for (const l of s.leases) {
      const who = l.host ? `pid ${l.pid} on ${l.host}` : 'nobody yet';
      const lease = l.held ? `holds it, renewed ${l.renewedSecondsAgo}s ago` : `idle on it (released ${l.renewedSecondsAgo}s ago)`;
      const run = last.get(l.source);
      lines.push(`  ${l.source.padEnd(12)} ${who}: ${lease}, tick ${l.tick ?? '-'}${run ? `; last run ${run.status} at ${run.at}` : ''}`);
    }
  }
  lines.push(`distinct chunk texts: ${s.distinctTexts}`, 'vectors:');
  for (const c of s.coverage) {
    const mark = c.fingerprint === activeFingerprint ? '*' : ' ';
    lines.push(`  ${mark} ${c.fingerprint}  ${c.covered}/${s.distinctTexts} texts covered, ${c.stored} stored`);
  }
  lines.push('runs:');
  for (const r of s.runs) {
    const took = r.finishedAt ? `  ${((Date.parse(r.finishedAt) - Date.parse(r.startedAt)) / 1000).toFixed(1)}s` : '';
    const retries = r.retries ? `  ${r.retries} retries` : '';
    lines.push(`  #${r.id} ${r.status.padEnd(7)} ${r.trigger.padEnd(6)} ${r.startedAt}${took}  embedded ${r.textsEmbedded} texts${retries}${r.error ? `  ${r.error}` : ''}`);
    for (const src of r.sources) {
      const d = src.written.documents;
      const moved = src.commitBefore !== src.commitAfter ? `${short(src.commitBefore)}→${short(src.commitAfter)}` : short(src.commitAfter);
      lines.push(`      ${src.source} ${src.status} @${moved}  +${d.added} ~${d.changed} -${d.deleted} >${d.renamed}  chunks written ${src.written.chunks} (${src.written.chunksReused} reused), texts embedded ${src.written.texts} of ${src.planned.texts} planned`);
      for (const k of src.skippedFiles) lines.push(`        ! ${k.reason}`);
      const unlisted = d.skipped - src.skippedFiles.length;
      if (src.skippedFiles.length && unlisted > 0) lines.push(`        ! and ${unlisted} more skipped`);
    }
  }
  return lines.join('\n');
}

/** `status --json`: the report, each run also in the shape documented before planned/written existed. */
export function statusJson(s: StatusReport, activeFingerprint: string, health?: Health) {
  return {
    activeFingerprint,
    ...(health ? { health } : {}),
    warnings: coverageWarnings(s, activeFingerprint),
    ...s,
    runs: s.runs.map((r) => ({
      ...r,
      embedded: r.textsEmbedded,
      sources: r.sources.map((src) => ({
        ...src,
        documents: src.written.documents,
        chunks: { total: src.written.chunks, toEmbed: src.written.texts, reused: src.written.chunksReused },
      })),
    })),
  };
}
