import { RagsyncError, EXIT } from './errors.ts';
import type { Analyzer } from './text/analyzer.ts';
import { locateLines } from './text/lines.ts';
import type { Chunker, ChunkerFactory, ChunkHit, ChunkingSettings } from './types.ts';

/**
 * A profile is what the engine knows about one kind of content, plugged in by name: its chunkers,
 * how its text is analysed for keyword search, the filters people use on it and the fields its
 * results carry. The engine is written against this interface only; the profiles themselves live
 * in src/profiles and are handed in by the composition roots (CLI, library entry points).
 */

/** A search filter a profile offers: a CLI flag, an HTTP parameter, an MCP/AI tool field. */
export interface FilterSpec {
  /** As people type it: --<name>, ?<name>=, {"<name>": …}. */
  name: string;
  description: string;
  /**
   * equals: one value, the field equals it; all-of: repeatable, the array field holds every value;
   * month: 'YYYY-MM'; since / until: 'YYYY-MM-DD', inclusive.
   */
  kind: 'equals' | 'all-of' | 'month' | 'since' | 'until';
  /** Metadata fields read, the first present one counts. */
  fields: string[];
  /** For equals: accepted values (a pattern may admit more), and the value meaning "any". */
  values?: readonly string[];
  pattern?: RegExp;
  any?: string;
  /**
   * The values the index holds in `fields` are the known ones (with `values`): when a search finds
   * nothing and no chunk has a value given, the search is refused naming the closest of them
   * instead of answering an empty list. For equals, all-of (the arrays' elements) and month.
   */
  knownFromIndex?: boolean;
}

/**
 * A term a query analysis adds to the user's own words. Expansions are secondary: search weighs
 * them below the query's own terms, and `explain` lists each one with where it came from.
 */
export interface Expansion {
  /** Text to search for (a CJK word, an English word or phrase); tokenised like a query. */
  term: string;
  /** The part of the query it stands for ("Seven Killings", "秋", "message queue"). */
  from: string;
  /** Relative weight in (0, 1]: 1 = as strong as any other expansion of that query part. */
  weight: number;
  /** What produced it: "thesaurus", "glossary", "lexicon", "prf", … */
  via: string;
}

/**
 * A profile's opinion of one candidate of a query, read from its heading path and content: a
 * factor on its score (1: no opinion, above 1: more likely the answer, below: less).
 */
export type CandidatePrior = (candidate: { heading: string; content: string }) => number;

/** A parameter of an agent tool, as MCP and the AI SDK describe it. */
export interface ToolParam {
  name: string;
  type: 'string' | 'strings' | 'integer';
  description: string;
  required?: boolean;
  /** For string params: the accepted values. */
  values?: readonly string[];
}

/** What a tool asks the search for. */
export interface ToolSearch {
  k: number;
  sources?: string[];
  filters?: Record<string, string | string[]>;
  path?: string;
}

/** A search hit as tools see it: the engine's hit with the profile's result fields. */
export type ToolHit = ChunkHit & { fields: Record<string, unknown> };

/**
 * What a tool asks for besides ranked search: the chunks whose keyword terms hold every term of
 * some words, unranked (in index order), read from the keyword index so they are as current as it.
 * `accept` keeps a chunk (a tool's own, exact check); reading stops at `limit` kept.
 */
export interface ToolMentions {
  sources?: string[];
  filters?: Record<string, string | string[]>;
  path?: string;
  limit: number;
  accept?: (hit: ToolHit) => boolean;
}

/**
 * An agent tool a profile brings (codeSearch, docSearch): its parameters, and what one call does
 * with the search it is given. MCP and the AI SDK build their tool from this one description.
 */
export interface ToolSpec {
  name: string;
  description: string;
  params: readonly ToolParam[];
  /** Whether a configuration with these sources offers the tool at all. */
  appliesTo(scope: ToolScope): boolean;
  run(
    search: (query: string, opts: ToolSearch) => Promise<ToolHit[]>,
    args: Record<string, unknown>,
    scope: ToolScope,
    mentioning: (words: string, opts: ToolMentions) => Promise<ToolHit[]>,
  ): Promise<unknown[]>;
}

/** The sources a tool may search, with the chunker and kind of each. */
export type ToolScope = readonly { name: string; kind: string; chunker: string }[];

/** How an answering model speaks about a profile's sources (answer/). */
export interface AnsweringStyle {
  /** Who the assistant is, in the language its users write. */
  persona: string;
  /** What questions the sources can answer: the rewrite step searches only for those. */
  topic: string;
  /** How to cite the numbered passages. */
  citation: string;
}

export interface Profile {
  readonly name: string;
  readonly description: string;
  /** Persona, topic and citation style for answers over its sources (default: a generic one). */
  readonly answering?: AnsweringStyle;
  /** Chunkers it brings, by the name a source's `chunker` field uses. */
  readonly chunkers?: Readonly<Record<string, ChunkerFactory>>;
  /** Keyword analysis of its sources' text and of queries over them (default: the engine's). */
  readonly analyzer?: Analyzer;
  readonly filters?: readonly FilterSpec[];
  /** Fields its results carry besides the engine's own (shown at the top level and under metadata). */
  resultFields?(hit: ChunkHit): Record<string, unknown>;
  /**
   * Query analysis for its sources: terms of the field's own vocabulary that mean what the query
   * says in other words (synonyms, imagery, English terms). Pure and fast: called per query.
   */
  expandQuery?(query: string): Expansion[];
  /**
   * Set when its expansions are the field's own equivalences rather than guesses: they are then
   * searched as a keyword list of their own (common words of other expanders cannot drown them in
   * one OR query), fused with this RRF weight against the query's own keyword list (1). Absent:
   * they join the other expansions' list below the query's words.
   */
  readonly expansionWeight?: number;
  /**
   * What the structure of its chunks says about a query's candidates (code: the chunk that
   * defines an identifier the query names, above tests and imports that only mention it). Called
   * once per query, cheap; null: no opinion. Search applies it to the head of the ranked list when
   * every searched source is of this profile.
   */
  candidatePrior?(query: string): CandidatePrior | null;
  /** Agent tools it brings (MCP and AI SDK). */
  readonly tools?: readonly ToolSpec[];
  /**
   * What its sources list when they set no `include` (instead of Markdown), and what they always
   * leave out besides their own `exclude` (build output, dependencies).
   */
  readonly sourceDefaults?: { readonly include?: readonly string[]; readonly exclude?: readonly string[] };
  /**
   * Its sources use the engine's corpus lexicon by default (a source's `lexicon` field overrides):
   * English words of a query also search the Chinese words the dictionary glosses them with.
   */
  readonly lexicon?: boolean;
}

export interface ProfileRegistry {
  readonly profiles: readonly Profile[];
  get(name: string): Profile;
  has(name: string): boolean;
  /** The profile that brings `chunker`. */
  ownerOf(chunker: string): Profile | undefined;
  chunkerNames(): string[];
  createChunker(name: string, settings: ChunkingSettings): Chunker;
  /** Every profile's filters, one per name. */
  filters(): FilterSpec[];
  /** Every profile's agent tools. */
  tools(): ToolSpec[];
}

export function createProfileRegistry(profiles: readonly Profile[]): ProfileRegistry {
  const byName = new Map<string, Profile>();
  const byChunker = new Map<string, Profile>();
  for (const p of profiles) {
    if (byName.has(p.name)) throw new Error(`two profiles named "${p.name}"`);
    byName.set(p.name, p);
    for (const c of Object.keys(p.chunkers ?? {})) {
      if (byChunker.has(c)) throw new Error(`chunker "${c}" is brought by both ${byChunker.get(c)!.name} and ${p.name}`);
      byChunker.set(c, p);
    }
  }
  const filters = new Map<string, FilterSpec>();
  for (const p of profiles) for (const f of p.filters ?? []) if (!filters.has(f.name)) filters.set(f.name, f);
  return {
    profiles,
    get(name) {
      const p = byName.get(name);
      if (!p) throw new RagsyncError(`unknown profile "${name}" (known: ${[...byName.keys()].join(', ')})`, EXIT.usage);
      return p;
    },
    has: (name) => byName.has(name),
    ownerOf: (chunker) => byChunker.get(chunker),
    chunkerNames: () => [...byChunker.keys()],
    createChunker(name, settings) {
      const p = byChunker.get(name);
      if (!p) throw new RagsyncError(`unknown chunker "${name}" (known: ${[...byChunker.keys()].join(', ')})`, EXIT.usage);
      return withLines(p.chunkers![name]!(settings));
    },
    filters: () => [...filters.values()],
    tools: () => profiles.flatMap((p) => p.tools ?? []),
  };
}

/** Every chunk carries its line range: the ones a chunker left without are looked up in the text. */
function withLines(chunker: Chunker): Chunker {
  return {
    fingerprint: chunker.fingerprint,
    ...(chunker.prepare ? { prepare: (paths: readonly string[]) => chunker.prepare!(paths) } : {}),
    ...(chunker.takesAsWritten ? { takesAsWritten: true } : {}),
    ...(chunker.expects ? { expects: (path: string) => chunker.expects!(path) } : {}),
    chunk(input) {
      const doc = chunker.chunk(input);
      return doc.chunks.every((c) => c.startLine !== undefined) ? doc : { ...doc, chunks: locateLines(input.text, doc.chunks) };
    },
  };
}
