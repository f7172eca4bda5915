import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isHit } from '../../src/search/eval.ts';
import { makeFixture, type Fixture } from '../helpers/search-fixture.ts';
import { FROM_CLI } from '../helpers/cli.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [...FROM_CLI, ...args], { cwd: repo, encoding: 'utf8' });

let fx: Fixture;
let file: string;
beforeAll(async () => {
  fx = await makeFixture();
  file = join(fx.dir, 'eval.jsonl');
  const lines = [
    { id: 'c1', query: '甲木寅月用神', kind: 'term', source: 'classics', gold: [{ path: 'qiongtong/jiamu.md', evidence: ['寅月用神'] }] },
    { id: 'c2', query: '天乙贵人', kind: 'term', source: 'classics', gold: [{ path: 'sanming/juan1.md', evidence: [] }] },
    // Evidence no chunk holds: never a hit.
    { id: 'c3', query: '伤官配印', kind: 'question', source: 'classics', gold: [{ path: 'ziping/shishen.md', evidence: ['不存在的句子'] }] },
    { id: 'b1', query: 'backoff jitter', kind: 'question', gold: [{ path: '202401/2024-01-18-retries.md', evidence: ['thundering herds'] }] },
  ];
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
});
afterAll(() => fx.cleanup());

describe('eval', () => {
  it('isHit needs the gold path and, when given, an evidence string (whitespace ignored)', () => {
    const c = { id: 'x', query: 'q', gold: [{ path: 'a.md', evidence: ['伤官 配印'] }] };
    expect(isHit({ path: 'a.md', content: '……伤官配印，贵不可言' }, c)).toBe(true);
    expect(isHit({ path: 'b.md', content: '伤官配印' }, c)).toBe(false);
    expect(isHit({ path: 'a.md', content: '印绶' }, c)).toBe(false);
    expect(isHit({ path: 'a.md', content: 'anything' }, { ...c, gold: [{ path: 'a.md', evidence: [] }] })).toBe(true);
  });

  it('prints hit@k and MRR overall and per kind, and writes ranked results', () => {
    const out = join(fx.dir, 'results.jsonl');
    const r = cli('eval', file, '-c', fx.configFile, '--source', 'bookmarks', '--results', out, '--json');
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.overall.queries).toBe(4);
    expect(report.overall.hit10).toBeCloseTo(0.75);
    expect(report.byKind.term).toMatchObject({ queries: 2, hit1: 1, mrr10: 1 });
    expect(report.byKind.question.hit10).toBeCloseTo(0.5);
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id)).toEqual(['c1', 'c2', 'c3', 'b1']);
    expect(lines[0].results[0]).toEqual({ path: 'qiongtong/jiamu.md', text: expect.stringContaining('寅月用神') });
    const text = cli('eval', file, '-c', fx.configFile, '--mode', 'keyword');
    expect(text.stdout).toMatch(/^kind .*hit@1 .*MRR@10\noverall /);
  });

  it('a bad line is a one-line usage error naming file:line and field', () => {
    const bad = join(fx.dir, 'bad.jsonl');
    writeFileSync(bad, '{"id":"a","query":"x","gold":[{"path":"p"}]}\n{"id":"b","query":"y","gold":[]}\n');
    const r = cli('eval', bad, '-c', fx.configFile);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toMatch(/bad\.jsonl:2: gold: /);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
