/**
 * What the config layer knows of a kind of source: the part of a kind's registry entry
 * (sources/registry.ts) that validating a config and writing a `source add` entry read. The
 * composition roots hand the registry to the loader (as they hand it the profiles), so the kind
 * names, their rules and the `--kind` choices all come from the entries; nothing below names a kind.
 */

/** A `source add` location, looked at once: what every kind's inference reads. */
export interface SourceLocation {
  /** As given. */
  location: string;
  /** The local folder it names (resolved), or null for a URL. */
  folder: string | null;
  /** The folder exists. */
  isFolder: boolean;
  /** The folder holds a git repository (a work tree or a bare one). */
  isGitRepo: boolean;
}

/** One config issue: the source's field and what is wrong with it. */
export interface SourceIssue {
  field: string;
  message: string;
}

export interface SourceKindSpec {
  /** The `kind` a config writes. */
  readonly name: string;
  /** One line for `--kind` help, MCP and the docs. */
  readonly description: string;
  /**
   * Where its files are: `checkout` (a clone under `checkouts`, or its `path`; a local-path `url`
   * resolved against the config file), `path` (the configured folder, read in place), `none` (fetched).
   */
  readonly root: 'checkout' | 'path' | 'none';
  /** `include`/`exclude` are file globs defaulting to the profile's (else URL globs, none by default). */
  readonly fileGlobs: boolean;
  /** `source add --branch` applies (the entry's `branch`). */
  readonly takesBranch?: boolean;
  /** Config fields only this kind takes (given on another kind's source, they are refused). */
  readonly ownFields?: readonly string[];
  /** Its rules over one source entry (required fields, their forms). */
  check?(source: Readonly<Record<string, unknown>>): SourceIssue[];
  /** `source add` without --kind: whether the location is this kind's (asked in registry order). */
  claims?(where: SourceLocation): boolean;
  /** `source add`: why the location cannot be this kind's (given with --kind), or null. */
  refuses?(where: SourceLocation): string | null;
  /** `source add`: the entry's own keys for the location (`name` and the common keys are added around them). */
  entry(where: SourceLocation, ctx: { cwd: string; configDir: string; branch?: string | null }): Record<string, unknown>;
  /** `source add`: a name for the source from its location (default: the last part of the path). */
  nameFor?(location: string): string;
}

export interface SourceKindRegistry<K extends SourceKindSpec = SourceKindSpec> {
  readonly kinds: readonly K[];
  readonly names: readonly string[];
  /** The kind of a source that names none. */
  readonly defaultKind: string;
  has(name: string): boolean;
  get(name: string): K;
}

/** A registry of kinds; the first is the default kind. Duplicate names are a programming error. */
export function createSourceKindRegistry<K extends SourceKindSpec>(kinds: readonly K[]): SourceKindRegistry<K> {
  const byName = new Map(kinds.map((k) => [k.name, k]));
  if (byName.size !== kinds.length || !kinds.length) throw new Error('source kinds: names must be unique and at least one given');
  return {
    kinds,
    names: kinds.map((k) => k.name),
    defaultKind: kinds[0]!.name,
    has: (name) => byName.has(name),
    get: (name) => {
      const k = byName.get(name);
      if (!k) throw new Error(`unknown source kind "${name}"`);
      return k;
    },
  };
}

/** The issues of one source entry against its kind: fields another kind owns, then the kind's own rules. */
export function sourceIssues(kinds: SourceKindRegistry, source: Readonly<Record<string, unknown>>): SourceIssue[] {
  const kind = String(source.kind);
  const issues: SourceIssue[] = [];
  for (const other of kinds.kinds) {
    if (other.name === kind) continue;
    for (const f of other.ownFields ?? []) {
      if (source[f] !== undefined && !kinds.get(kind).ownFields?.includes(f)) issues.push({ field: f, message: `only for a ${other.name} source (this one is ${kind})` });
    }
  }
  return [...issues, ...(kinds.get(kind).check?.(source) ?? [])];
}
