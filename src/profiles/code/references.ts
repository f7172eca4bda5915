import { EXIT, RagsyncError } from '../../core/errors.ts';
import type { ToolHit } from '../../core/profile.ts';

/**
 * A symbol's references: the chunks whose code names it. Resolved at query time from the keyword
 * index (which is rewritten with the chunks, so references follow every change with nothing of
 * their own to keep current), then checked here on the code itself: the name as a whole word,
 * case as written, outside the chunks that define it and the repository's Markdown (documentation
 * that names a symbol is docSearch's to find).
 */
export interface ReferenceTarget {
  /** The name code writes: `create` for `Store.create`. */
  name: string;
  /** The parent a qualified name gives (`Store`), or null. */
  parent: string | null;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const escape = (s: string) => s.replace(/[$]/g, '\\$&');

/** `createStore`, `Store.create` or `Store::create`; anything else is refused naming the value. */
export function referenceTarget(symbol: string): ReferenceTarget {
  const parts = symbol.trim().split(/\.|::/);
  if (parts.length > 2 || !parts.every((p) => IDENTIFIER.test(p))) {
    throw new RagsyncError(`references: ${JSON.stringify(symbol)} is not a symbol name (an identifier, or Parent.name)`, EXIT.usage);
  }
  return parts.length === 2 ? { name: parts[1]!, parent: parts[0]! } : { name: parts[0]!, parent: null };
}

/** The whole-word pattern of a name: `store` does not match in `createStore` or `store_path`. */
export const namePattern = (name: string) => new RegExp(`(?<![\\w$])${escape(name)}(?![\\w$])`);

/** The file's line numbers, within a chunk, where its code names `name`. */
export function linesNaming(content: string, startLine: number | undefined, name: string): number[] {
  const word = namePattern(name);
  const out: number[] = [];
  content.split('\n').forEach((line, i) => {
    if (word.test(line)) out.push((startLine ?? 1) + i);
  });
  return out;
}

/** Whether a chunk is (a part of) the symbol's own definition, or a pack that holds it. */
export function defines(hit: ToolHit, t: ReferenceTarget): boolean {
  const m = hit.metadata;
  if (m.symbolName === t.name && (t.parent === null || m.parentSymbol === t.parent)) return true;
  return t.parent === null && Array.isArray(m.symbols) && m.symbols.includes(t.name);
}

/** A referencing chunk: code (a README's prose is not) that names the symbol and does not define it. */
export const refersTo = (t: ReferenceTarget) => {
  const word = namePattern(t.name);
  return (hit: ToolHit) => hit.metadata.language !== 'markdown' && word.test(hit.content) && !defines(hit, t);
};
