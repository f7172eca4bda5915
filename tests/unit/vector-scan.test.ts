/**
 * VectorScan (the one-shot strategy: rows streamed from SQLite, scored a block at a time) against
 * VectorIndex (everything in memory) over the same real SQLite file: the same matches, scores and
 * tie order, across partial blocks, with `accept` filters, the int8 codes and the float32 fallback.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HashEmbedder } from '../../src/embedding/hash.ts';
import { VectorIndex } from '../../src/storage/ranking/vector-index.ts';
import { VectorScan } from '../../src/storage/ranking/vector-scan.ts';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';
import { writeFixture, type FixtureDoc } from '../helpers/search-fixture.ts';
import { tempDir } from '../helpers/tmp.ts';

const WORDS = '甲 乙 丙 丁 戊 己 庚 辛 壬 癸 子 丑 寅 卯 辰 巳 午 未 申 酉 戌 亥 alpha beta gamma delta'.split(' ');

/** n documents of pseudo-random passages; every 7th repeats an earlier text (equal vectors: ties). */
function docs(n: number): FixtureDoc[] {
  let x = 11;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31);
  const texts: string[] = [];
  return Array.from({ length: n }, (_, i) => {
    const text = i % 7 === 6 ? texts[i - 3]! : Array.from({ length: 12 }, () => WORDS[next() % WORDS.length]).join(' ');
    texts.push(text);
    return { path: `d${i}.md`, chunks: [['h', text]] };
  });
}

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).reverse().forEach((c) => c()));

async function store(n: number, dims: number): Promise<{ db: SqliteIndex; fingerprint: string }> {
  const tmp = tempDir('ragsync-scan-');
  cleanups.push(tmp.cleanup);
  const db = new SqliteIndex(join(tmp.dir, 'index.db'));
  cleanups.push(() => void db.close());
  await writeFixture(db, 'notes', docs(n), dims);
  return { db, fingerprint: new HashEmbedder(dims).info.fingerprint };
}

describe('VectorScan ranks as VectorIndex does', () => {
  it.each([
    [700, 64], // SIMD kernel, two full blocks and a partial one
    [300, 24], // dims not a multiple of 16: the JS loop
  ])('%i rows × %i dims', async (n, dims) => {
    const { db, fingerprint } = await store(n, dims);
    const index = new VectorIndex(db.reader.vectors, fingerprint);
    const scan = new VectorScan(db.reader.vectors, fingerprint);
    const embedder = new HashEmbedder(dims);
    expect(await scan.dims()).toBe(dims);
    for (const q of ['甲 乙 丙', 'alpha gamma 子', '癸 亥 delta beta']) {
      const [v] = await embedder.embed([q]);
      const [warm, cold] = [await index.ranker(v!), await scan.ranker(v!)];
      for (const k of [1, 10, 50, n + 5]) {
        const [w, c] = [await warm(k), await cold(k)];
        // Both rank the stored int8 codes through int8Rank (64 dims), or score float32 rows with the
        // same kernel (24 dims: no int8 kernel): equal matches, scores and rows.
        expect(c).toEqual(w);
      }
      const odd = (ref: number) => ref % 2 === 1;
      expect((await cold(20, odd)).map((m) => m.ref)).toEqual((await warm(20, odd)).map((m) => m.ref));
    }
    for (const ref of [1, 2, n]) {
      const [a, b] = [await scan.vectorOf(ref), await index.vectorOf(ref)];
      a!.forEach((x, j) => expect(Math.abs(x - b![j]!)).toBeLessThan(1e-6));
    }
  });

  it('an index without vectors for the fingerprint: nothing, dims 0', async () => {
    const { db } = await store(5, 64);
    const scan = new VectorScan(db.reader.vectors, 'hash:other@1:64');
    expect(await scan.dims()).toBe(0);
    expect(await (await scan.ranker(new Float32Array(64).fill(1)))(10)).toEqual([]);
    expect(await scan.vectorOf(1)).toBeNull();
  });
});
