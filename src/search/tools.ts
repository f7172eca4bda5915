import type { ToolScope, ToolSpec } from '../core/profile.ts';
import type { Searcher } from './search.ts';

const scopeOf = (searcher: Searcher): ToolScope => searcher.scope.sources.map((s) => ({ name: s.name, kind: s.kind, chunker: s.chunker }));

/** The profiles' agent tools this configuration offers (codeSearch needs a code source, docSearch another). */
export function toolsOf(searcher: Searcher): ToolSpec[] {
  const scope = scopeOf(searcher);
  return searcher.scope.profiles.tools().filter((t) => t.appliesTo(scope));
}

/** One call of a profile's agent tool, through the one search contract. */
export function runTool(searcher: Searcher, spec: ToolSpec, args: Record<string, unknown>): Promise<unknown[]> {
  return spec.run(
    (query, o) => searcher.search(query, o),
    args,
    scopeOf(searcher),
    (words, o) => searcher.mentioning(words, o),
  );
}
