/**
 * A bookmarks corpus N times over, for benches that compare ×1 with ×N: the tip of
 * bookmarks.bundle's summaries written into `c<k>/<month>/<file>` for k < N. Copy 0 is the corpus
 * as it is; every other copy is varied deterministically (seeded by copy and path), so no chunk
 * text repeats across copies and the ×N index really holds about N times the distinct texts:
 * each prose line gets a copy-specific word inserted at a seeded position, and a seeded share of
 * lines swap two neighbouring words. Headings and `- Key:` metadata lines stay as they are (the
 * chunker reads them), so every copy chunks like the original.
 *
 *   makeScaledCorpus({ bundle, dir, copies: 10 }) → { files, bytes }
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { xorshift } from '../tests/helpers/rng.ts';

/** The files a bookmarks source indexes (config/ragsync.json), below each copy's folder. */
export const SCALED_INCLUDE = ['c*/[0-9][0-9][0-9][0-9][0-9][0-9]/*.md'];
export const SCALED_EXCLUDE = ['**/monthly-index.md'];

const MONTH = /^\d{6}$/;

/** A stable 32-bit seed from a copy number and a path (FNV-1a). */
function seedOf(copy: number, path: string): number {
  let h = 0x811c9dc5 ^ copy;
  for (let i = 0; i < path.length; i++) h = Math.imul(h ^ path.charCodeAt(i), 0x01000193);
  return h >>> 0 || 1;
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'su', 'ta', 'vo', 'el', 'dri', 'an', 'por', 'ux', 'ne', 'shi', 'gal', 'teo'];

/** Copy `copy`'s variant of one file's text (copy 0: the text itself). */
export function varyText(text: string, copy: number, path: string): string {
  if (copy === 0) return text;
  const rnd = xorshift(seedOf(copy, path));
  const word = SYLLABLES[copy % SYLLABLES.length]! + SYLLABLES[(copy * 7 + 3) % SYLLABLES.length]! + String(copy);
  return text
    .split('\n')
    .map((line) => {
      if (!line.trim() || line.startsWith('#') || /^\s*-\s+[\w ]+:/.test(line) || line.startsWith('---')) return line;
      // Indentation and a list marker stay in front (the Markdown structure is kept).
      const lead = /^\s*(?:[-*+]\s+|\d+\.\s+)?/.exec(line)![0];
      const words = line.slice(lead.length).split(' ');
      if (words.length > 3 && rnd() < 0.3) {
        const i = Math.floor(rnd() * (words.length - 1));
        [words[i], words[i + 1]] = [words[i + 1]!, words[i]!];
      }
      words.splice(Math.floor(rnd() * (words.length + 1)), 0, word);
      return lead + words.join(' ');
    })
    .join('\n');
}

function* walk(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.isFile()) yield p;
  }
}

/**
 * Writes `copies` copies of the bundle's month folders into `dir` (created; emptied first) and
 * returns how many files and bytes it wrote.
 */
export function makeScaledCorpus(opts: { bundle: string; dir: string; copies: number }): { files: number; bytes: number } {
  const tip = mkdtempSync(join(tmpdir(), 'ragsync-scale-tip-'));
  try {
    // The tip's tree, as files (git archive | tar), once for all copies.
    execFileSync('git', ['clone', '--quiet', '--no-checkout', opts.bundle, join(tip, '.clone')]);
    execFileSync('sh', ['-c', 'git -C "$0/.clone" archive HEAD | tar -x -C "$0" && rm -rf "$0/.clone"', tip]);
    const sources = [...walk(tip)].map((p) => relative(tip, p)).filter((p) => MONTH.test(p.split('/')[0]!) && p.endsWith('.md')).sort();
    rmSync(opts.dir, { recursive: true, force: true });
    let files = 0;
    let bytes = 0;
    for (let k = 0; k < opts.copies; k++) {
      for (const rel of sources) {
        const out = join(opts.dir, `c${k}`, rel);
        mkdirSync(dirname(out), { recursive: true });
        const text = varyText(readFileSync(join(tip, rel), 'utf8'), k, rel);
        writeFileSync(out, text);
        files++;
        bytes += statSync(out).size;
      }
    }
    return { files, bytes };
  } finally {
    rmSync(tip, { recursive: true, force: true });
  }
}
