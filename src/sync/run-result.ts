import type { Logger } from 'pino';
import type { SourceRunStatus, WorkCounts } from '../core/types.ts';
import type { Embedder } from '../embedding/types.ts';
import type { FetchPreview } from '../sources/registry.ts';
import type { LeaseRow, SyncStore } from '../storage/roles.ts';
import { noWork } from './apply.ts';
import type { SkippedFile, SourcePlan } from './plan.ts';

/** What a run is asked to do and what it answers, per source and as a whole. */

export interface IndexOptions {
  /** Only these sources (default: all). */
  sources?: string[];
  dryRun?: boolean;
  force?: boolean;
  maxDocs?: number;
  /** What started the run: 'manual' (CLI), 'cron' (daemon schedule), 'start' (daemon runOnStart). */
  trigger?: string;
  log?: Logger;
  signal?: AbortSignal;
  /** Use this embedder instead of the configured one (tests, benchmarks). */
  embedder?: Embedder;
  /** Use this store instead of opening config.db (tests); the caller closes it. */
  store?: SyncStore;
  /** Sources that list no files may lose every document this run (as per-source allowEmpty). */
  allowEmpty?: boolean;
  /** Deletions over a source's maxDeleteShare go through this run (`--force` implies it). */
  allowDelete?: boolean;
  /**
   * The schedule tick this run is for (workers sharing a Postgres index index each source once per
   * tick); default: a tick of this run alone.
   */
  tick?: string;
}

export type IndexStatus = 'ok' | 'partial' | 'failed' | 'aborted';

export interface SourceResult {
  name: string;
  status: SourceRunStatus;
  commit: string | null;
  commitBefore: string | null;
  /** What the plan asked for (a dry run's whole answer). */
  planned: WorkCounts;
  /** What was committed: equals planned for a source that finished, less for one that did not. */
  written: WorkCounts;
  /** Estimated tokens of the planned texts. */
  estimatedTokens: number;
  deferred: number;
  skippedFiles: SkippedFile[];
  error: string | null;
  /** The plan itself (per-file detail for -v). */
  plan?: SourcePlan;
  /** A dry run of a web source: the pages it would fetch (new, to revalidate) and drop, none requested. */
  wouldFetch?: FetchPreview;
}

export interface IndexResult {
  status: IndexStatus;
  dryRun: boolean;
  /** Distinct texts embedded and stored in this run. */
  textsEmbedded: number;
  /** Texts whose batch was in flight when a stop ran out of time (embedded again next run). */
  textsDropped: number;
  durationMs: number;
  fingerprint: string;
  runId: number | null;
  trigger: string;
  requests: number;
  tokens: number;
  /** Embedder calls retried. */
  retries: number;
  sources: SourceResult[];
  /**
   * A Postgres worker that found no source to claim: the selected sources other workers hold, and
   * those indexed since this run began. Absent when the run claimed one (or is not a worker).
   */
  idle?: { held: LeaseRow[]; done: string[] };
  /** The process exit code this outcome maps to (README: exit codes). */
  exitCode: number;
}

/** A source's result before its pipeline runs: nothing planned, nothing written. */
export function emptyResult(name: string, commitBefore: string | null): SourceResult {
  return {
    name,
    status: 'skipped',
    commit: commitBefore,
    commitBefore,
    planned: noWork(),
    written: noWork(),
    estimatedTokens: 0,
    deferred: 0,
    skippedFiles: [],
    error: null,
  };
}

