import { describe, expect, it } from 'vitest';
import { vectorLiteral } from '../../src/storage/postgres/vectors.ts';

describe("pgvector's text form of a vector", () => {
  it('parses back to the same float32s, extremes included, in fewer characters than String gives', () => {
    const v = new Float32Array(4096);
    let seed = 7;
    for (let i = 0; i < v.length; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      v[i] = ((seed / 2 ** 31) - 0.5) * 10 ** ((i % 12) - 8);
    }
    v.set([0, 1, -1, 3.4028234663852886e38, 1.401298464324817e-45, 1.1754943508222875e-38, 0.1, 1 / 3], 0);
    const text = vectorLiteral(v);
    const back = Float32Array.from(text.slice(1, -1).split(','), Number);
    expect(Array.from(back)).toEqual(Array.from(v));
    expect(text.length).toBeLessThan(`[${Array.from(v).join(',')}]`.length);
  });
});

describe('a text[] literal', () => {
  it("reads back (as text[], oid 1009) as the same strings, whatever they hold", async () => {
    const { default: pg } = await import('pg');
    const { textArrayLiteral } = await import('../../src/storage/postgres/writer.ts');
    const xs = ['a"b', 'c\\d', '', '伤官', 'NULL', '{x,y}', ' spaced ', '\\"', "it's"];
    expect((pg.types.getTypeParser as (oid: number) => (text: string) => unknown)(1009)(textArrayLiteral(xs))).toEqual(xs);
  });
});
