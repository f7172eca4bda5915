/**
 * The commented config `ragsync init` writes (JSON with comments, which the loader reads): one
 * source, the offline embedder, the index in a hidden folder beside the file.
 */
export interface StarterSource {
  name: string;
  kind: 'git' | 'dir';
  /** git: the repository URL (or a local path to one). */
  url?: string;
  branch?: string;
  /** dir: the folder, relative to the config file. */
  path?: string;
  chunker: string;
  /** Globs of the files read: what the chunker is made for (its profile's default, else Markdown). */
  include: readonly string[];
}

/** A source name from a URL or folder: its last part, in the letters a name may use. */
export function sourceNameOf(where: string): string {
  const last = where.replace(/[\\/]+$/, '').split(/[\\/:]/).pop()?.replace(/\.git$/, '') ?? '';
  const name = last.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return name || 'docs';
}

/** Whether a source given on the command line is a git repository (a URL, or a path ending .git) rather than a folder. */
export const looksLikeGit = (where: string): boolean =>
  /^[a-z][a-z0-9+.-]*:\/\//i.test(where) || /^[^/\\]+@[^/\\]+:/.test(where) || /\.git\/?$/.test(where);

export function starterConfig(source: StarterSource, schemaPath: string): string {
  const q = JSON.stringify;
  const where =
    source.kind === 'git'
      ? [
          `      // cloned into .ragsync/checkouts/${source.name}-<hash> and pulled on every run (ragsync never`,
          `      // resets or deletes a folder it did not create)`,
          `      "kind": "git",`,
          `      "url": ${q(source.url)},`,
          `      "branch": ${q(source.branch ?? 'main')},`,
        ]
      : [`      // a folder read in place, no git (relative to this file)`, `      "kind": "dir",`, `      "path": ${q(source.path)},`];
  return `{
  // Your editor completes and checks this file from the schema. Comments are allowed.
  "$schema": ${q(schemaPath)},
  // The index: one SQLite file (relative paths are read from this file's folder).
  // Add .ragsync/ to your .gitignore.
  "db": ".ragsync/index.db",
  // "hash" is offline and lexical (words and characters, not meaning); no key, no download.
  // Semantic search: { "provider": "ollama" } (bge-m3 on a local Ollama), or
  // { "provider": "openai", "apiKeyEnv": "OPENAI_API_KEY" }. \`ragsync embedders\` lists them all.
  "embedder": { "provider": "hash", "dims": 1024 },
  "sources": [
    {
      "name": ${q(source.name)},
${where.join('\n')}
      // Globs relative to the source's root, chosen for the chunker below.
      "include": [${source.include.map((g) => q(g)).join(', ')}],
      "exclude": [],
      // markdown (any Markdown), classics (the 八字 classics), bookmarks (bookmark-summary files),
      // code (source code: a chunk per function or class)
      "chunker": ${q(source.chunker)}
    }
  ]
  // More settings (chunk size, the daemon's schedule, deletion guard, search): docs/configuration.md
}
`;
}
