/**
 * Pinyin spelled back into the characters a corpus writes, for words no dictionary lists (a
 * field's terms: "shang guan" 伤官, "sui yun bing lin" 岁运并临): each syllable's characters are
 * the dictionary's single characters read so, the few the most chunks hold; the reading is the
 * chain of characters whose neighbouring pairs the most chunks hold (a Viterbi over the keyword
 * index's counts of character pairs, which it keeps as terms), cut where a pair is rare. Counts
 * are asked once each and kept (term-counts.ts), so a question's syllables cost lookups only the
 * first time.
 */

/** Chunks holding keyword terms (a character or a pair of characters): load() asks, n() reads (term-counts.ts). */
export interface TermCounts {
  load(terms: readonly string[]): Promise<void>;
  n(term: string): number;
}

/** Characters tried per syllable: those the most chunks hold ("shi" reads as ~70 characters). */
export const CHARS_PER_SYLLABLE = 12;
/** Chunks that must hold a pair of characters for the two syllables to be read as one word. */
export const MIN_PAIR_CHUNKS = 3;

/** A stretch of syllables read as one word of the corpus. */
export interface DecodedSpan {
  /** The characters ("伤官佩印"). */
  text: string;
  /** Syllables [from, to) of the run it reads. */
  from: number;
  to: number;
  /** Chunks holding its rarest pair of characters. */
  support: number;
}

export class PinyinDecoder {
  private readonly candidates = new Map<string, string[]>();

  constructor(
    /** Toneless syllable → the characters read so. */
    private readonly chars: ReadonlyMap<string, readonly string[]>,
    /** The corpus's counts, kept as long as the index stands (the decoder is made anew when it changes). */
    private readonly counts: TermCounts,
  ) {}

  private n(term: string): number {
    return this.counts.n(term);
  }

  private count(terms: readonly string[]): Promise<void> {
    return this.counts.load(terms);
  }

  /** The characters of a syllable the corpus holds, most chunks first. */
  private async candidatesOf(syllable: string): Promise<string[]> {
    const known = this.candidates.get(syllable);
    if (known) return known;
    const all = [...(this.chars.get(syllable) ?? [])];
    await this.count(all);
    const counted = all.map((c) => [c, this.n(c)] as const).filter(([, n]) => n > 0);
    const kept = counted.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, CHARS_PER_SYLLABLE).map(([c]) => c);
    this.candidates.set(syllable, kept);
    return kept;
  }

  /** The words of the corpus a run of syllables spells: stretches of two or more syllables. */
  async decode(syllables: readonly string[]): Promise<DecodedSpan[]> {
    if (syllables.length < 2) return [];
    const cands = await Promise.all(syllables.map((s) => this.candidatesOf(s)));
    const pairs: string[] = [];
    for (let i = 0; i + 1 < cands.length; i++) for (const a of cands[i]!) for (const b of cands[i + 1]!) pairs.push(a + b);
    await this.count(pairs);
    // best[i][k]: the highest sum of log(1 + chunks) over the pairs of a chain ending in cands[i][k].
    const best: number[][] = [];
    const back: number[][] = [];
    for (let i = 0; i < cands.length; i++) {
      const row = cands[i]!;
      const prev = i ? cands[i - 1]! : [];
      best.push(
        row.map((b, k) => {
          let top = i && prev.length ? -Infinity : 0;
          let from = -1;
          prev.forEach((a, j) => {
            const s = best[i - 1]![j]! + Math.log1p(this.n(a + b));
            if (s > top) (top = s), (from = j);
          });
          (back[i] ??= [])[k] = from;
          return top;
        }),
      );
    }
    // Trace back the best chain; a syllable with no character breaks it.
    const path: (string | null)[] = new Array(cands.length).fill(null);
    let k = argmax(best[cands.length - 1]!);
    for (let i = cands.length - 1; i >= 0; i--) {
      if (k < 0) k = argmax(best[i]!);
      if (k < 0) continue;
      path[i] = cands[i]![k]!;
      k = back[i]![k]!;
    }
    const spans: DecodedSpan[] = [];
    let start = 0;
    let support = Infinity;
    for (let i = 1; i <= path.length; i++) {
      const a = path[i - 1];
      const b = path[i];
      const n = a && b ? this.n(a + b) : 0;
      if (i < path.length && n >= MIN_PAIR_CHUNKS) {
        support = Math.min(support, n);
        continue;
      }
      if (i - start >= 2) spans.push({ text: path.slice(start, i).join(''), from: start, to: i, support });
      start = i;
      support = Infinity;
    }
    return spans;
  }
}

function argmax(xs: readonly number[]): number {
  let k = -1;
  xs.forEach((x, i) => {
    if (x > -Infinity && (k < 0 || x > xs[k]!)) k = i;
  });
  return k;
}
