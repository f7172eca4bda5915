import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { loadConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { Searcher } from '../../src/search/search.ts';
import { createQueryClassicsTool, createSearchTool, queryClassicsInput, type ClassicsHit } from '../../src/ai/index.ts';
import { makeFixture, type Fixture } from '../helpers/search-fixture.ts';
import { openSearcher } from '../../src/engine/library.ts';

let fx: Fixture;
let searcher: Searcher;
beforeAll(async () => {
  fx = await makeFixture();
  searcher = openSearcher(loadConfig(fx.configFile));
});
afterAll(async () => {
  await searcher.close();
  fx.cleanup();
});

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** A model that calls `toolName` with `input` once, then answers with text. */
function scriptedModel(toolName: string, input: unknown) {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      step++;
      if (step === 1) {
        return {
          content: [{ type: 'tool-call', toolCallId: 'call-1', toolName, input: JSON.stringify(input) }],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        };
      }
      return { content: [{ type: 'text', text: '据典籍所载。' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
    },
  });
}

describe('queryClassics tool (AI SDK)', () => {
  it('has the seed schema: query string, source enum defaulting to all', () => {
    expect(queryClassicsInput.parse({ query: '伤官' })).toEqual({ query: '伤官', source: 'all' });
    expect(() => queryClassicsInput.parse({ query: '伤官', source: 'nope' })).toThrow();
    expect(queryClassicsInput.shape.source.unwrap().unwrap().options).toEqual(['all', 'ziping', 'ditian', 'qiongtong', 'yuanhai', 'sanming']);
  });

  it('generateText drives a real tool call against a real index', async () => {
    const model = scriptedModel('queryClassics', { query: '甲木寅月用神', source: 'qiongtong' });
    const result = await generateText({
      model,
      tools: { queryClassics: createQueryClassicsTool(searcher, { sourceName: 'classics' }) },
      prompt: '甲木生于寅月，用神为何？',
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('据典籍所载。');
    const toolResults = result.steps.flatMap((s) => s.toolResults);
    expect(toolResults).toHaveLength(1);
    const hits = toolResults[0]!.output as ClassicsHit[];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(3);
    expect(hits[0]).toMatchObject({ source: '穷通宝鉴', chapter: '论甲木·正月' });
    expect(hits[0]!.content).toContain('寅月用神');
    expect(Object.keys(hits[0]!).sort()).toEqual(['chapter', 'content', 'score', 'source']);
    // The model's second call saw the tool result.
    expect(JSON.stringify(model.doGenerateCalls[1]!.prompt)).toContain('穷通宝鉴');
  });

  it('source defaults to all books; results are top 3', async () => {
    const t = createQueryClassicsTool(searcher);
    const out = (await t.execute!({ query: '甲木', source: 'all' }, { toolCallId: 'x', messages: [] })) as ClassicsHit[];
    expect(out.length).toBe(3);
    expect(new Set(out.map((h) => h.source)).size).toBeGreaterThan(1);
  });

  it('the generic search tool takes perDoc from the contract', async () => {
    const t = createSearchTool(searcher);
    const out = (await t.execute!({ query: '甲木', source: 'classics', k: 3, mode: 'hybrid', perDoc: 1 } as never, { toolCallId: 'x', messages: [] })) as { path: string }[];
    expect(new Set(out.map((r) => r.path)).size).toBe(3);
  });

  it('the generic search tool works over any source', async () => {
    const model = scriptedModel('search', { query: 'jitter backoff', source: 'bookmarks', k: 2 });
    const result = await generateText({
      model,
      tools: { search: createSearchTool(loadConfig(fx.configFile), { sources: ['classics', 'bookmarks'] }) },
      prompt: 'how do I retry?',
      stopWhen: stepCountIs(3),
    });
    const out = result.steps.flatMap((s) => s.toolResults)[0]!.output as { path: string; url: string }[];
    expect(out[0]).toMatchObject({ path: '202401/2024-01-18-retries.md', url: 'https://example.com/retries' });
  });

  it('a tag or month no chunk has is a tool error naming the known values', async () => {
    const model = scriptedModel('search', { query: 'SQLite', source: 'bookmarks', tag: ['nosuchtag'] });
    const result = await generateText({
      model,
      tools: { search: createSearchTool(loadConfig(fx.configFile), { sources: ['classics', 'bookmarks'] }) },
      prompt: 'sqlite?',
      stopWhen: stepCountIs(3),
    });
    const errors = result.steps.flatMap((s) => s.content).filter((c) => c.type === 'tool-error');
    expect(errors.map((e) => String((e as { error: unknown }).error))).toEqual([
      expect.stringContaining('tag "nosuchtag" is not a known value and no indexed chunk has it (known: database|distributed|search|sqlite)'),
    ]);
    const t = createSearchTool(loadConfig(fx.configFile));
    const input = { query: 'SQLite', k: 5, mode: 'hybrid' as const, month: '1999-01' };
    await expect(t.execute!(input, { toolCallId: 'x', messages: [] })).rejects.toThrow(
      'month "1999-01" is not a known value and no indexed chunk has it (known: 2024-01|2024-03)',
    );
  });
});
