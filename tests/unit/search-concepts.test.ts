import { describe, expect, it } from 'vitest';
import type { Expansion } from '../../src/core/profile.ts';
import { conceptsOf, scoreConcepts, type Concept } from '../../src/search/concepts.ts';
import { topPositions } from '../../src/core/top-positions.ts';

const e = (term: string, from: string, weight: number): Expansion => ({ term, from, weight, via: 'lexicon' });
const set = (...ps: number[]) => Int32Array.from(ps);
const top = (concepts: Concept[], sets: Int32Array[][], total = 100, n = 10) => {
  const { score, scored } = scoreConcepts(concepts, sets, total, total);
  return topPositions(score, scored, n);
};

describe('conceptsOf', () => {
  it('groups expansions by the words they stand for, the words themselves a term of weight 1', () => {
    const cs = conceptsOf('message queue for time zones', [e('消息队列', 'message queue', 1), e('时区', 'time zones', 0.6), e('时差', 'time zones', 0.2)]);
    expect(cs).toEqual([
      { from: 'message queue', terms: [{ term: 'message queue', weight: 1 }, { term: '消息队列', weight: 1 }] },
      { from: 'time zones', terms: [{ term: 'time zones', weight: 1 }, { term: '时区', weight: 0.6 }, { term: '时差', weight: 0.2 }] },
    ]);
  });

  it('the query\'s other English content words and its Chinese runs are concepts of their own; stop words are not', () => {
    const cs = conceptsOf('how to use Postgres as a message queue 替代 Kafka', [e('消息队列', 'message queue', 1)]);
    expect(cs.map((c) => c.from)).toEqual(['message queue', 'Postgres', 'Kafka', '替代']);
    expect(cs[1]!.terms).toEqual([{ term: 'Postgres', weight: 1 }]);
  });
});

describe('scoreConcepts', () => {
  const queue: Concept = { from: 'queue', terms: [{ term: 'queue', weight: 1 }, { term: '队列', weight: 0.5 }, { term: '排队', weight: 0.3 }] };
  const zone: Concept = { from: 'zone', terms: [{ term: 'zone', weight: 1 }, { term: '时区', weight: 0.8 }] };

  it('a passage covering two concepts outranks one holding every sense of one concept', () => {
    // Passage 1 holds all three terms of "queue", passage 2 one sense of each concept.
    expect(top([queue, zone], [[set(1), set(1, 2), set(1)], [set(), set(2)]])).toEqual([2, 1]);
  });

  it('a concept counts once, by the likelihood of the terms a passage holds (at most 1)', () => {
    const { score } = scoreConcepts([queue], [[set(1), set(1, 2), set(2, 3)]], 100, 100);
    // 1: the word itself (1) and 队列 — capped at 1; 2: 队列 + 排队 = 0.8; 3: 排队 alone.
    expect(score[2]! / score[1]!).toBeCloseTo(0.8, 6);
    expect(score[3]! / score[1]!).toBeCloseTo(0.3, 6);
  });

  it('a rare concept weighs more than a common one', () => {
    const rare: Concept = { from: 'rare', terms: [{ term: '罕见', weight: 1 }] };
    const common: Concept = { from: 'common', terms: [{ term: '常见', weight: 1 }] };
    const many = Int32Array.from({ length: 60 }, (_, i) => i + 10);
    expect(top([common, rare], [[many], [set(5)]]).slice(0, 2)).toEqual([5, 10]);
  });

  it('keeps the best n, ties by position, and skips what the test rejects', () => {
    const score = Float64Array.from([0, 3, 1, 3, 2, 5]);
    expect(topPositions(score, [1, 2, 3, 4, 5], 3)).toEqual([5, 1, 3]);
    expect(topPositions(score, [5, 4, 3, 2, 1], 10, (p) => p !== 5)).toEqual([1, 3, 4, 2]);
  });
});
