import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/builtin.ts';
import { openEngine } from '../../src/engine/engine.ts';
import { runCli } from '../helpers/cli.ts';
import { FakeProvider } from '../helpers/fake-provider.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * An embedder whose size nobody knows (another model on a local server): the engine asks the server
 * once, and the embedder that asked is the one that embeds (one HTTP client: one connection).
 */
let t: ReturnType<typeof tempDir>;
let fake: FakeProvider;
afterEach(async () => {
  await fake?.close();
  t?.cleanup();
});

async function setup(): Promise<string> {
  t = tempDir('ragsync-engine-one-');
  fake = await FakeProvider.start({ dims: 48, wire: 'ollama' });
  const docs = join(t.dir, 'docs');
  mkdirSync(docs);
  writeFileSync(join(docs, 'a.md'), '# One\n\nThe first note, about rivers.\n');
  writeFileSync(join(docs, 'b.md'), '# Two\n\nThe second note, about mountains.\n');
  const file = join(t.dir, 'ragsync.json');
  writeFileSync(
    file,
    JSON.stringify({
      db: join(t.dir, 'index.db'),
      embedder: { provider: 'ollama', model: 'nomic-embed-text', baseUrl: fake.baseUrl },
      sources: [{ name: 'docs', kind: 'dir', path: docs }],
    }),
  );
  return file;
}

const probes = () => fake.requests.filter((r) => r.inputs.length === 1 && r.inputs[0] === 'dimensions').length;

describe('one embedder per engine', () => {
  it('an index run asks the size once and embeds with the same client', async () => {
    const file = await setup();
    const r = await runCli(['index', '-c', file, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ok', fingerprint: 'ollama:nomic-embed-text:48' });
    expect(probes()).toBe(1);
    expect(fake.requests.length).toBe(2); // the size, then one batch
    expect(fake.connections).toBe(1);
  });

  it('a long-lived engine asks once for every run and query', async () => {
    const file = await setup();
    const engine = openEngine(loadConfig(file), { lifetime: 'long-lived' });
    try {
      expect((await engine.index()).status).toBe('ok');
      writeFileSync(join(t.dir, 'docs', 'c.md'), '# Three\n\nA third note, about the sea.\n');
      expect((await engine.index()).sources[0]!.written.documents.added).toBe(1);
      const results = await (await engine.searcher()).search('rivers', { k: 1 });
      expect(results[0]!.path).toBe('a.md');
      expect(probes()).toBe(1);
      expect(fake.connections).toBe(1);
    } finally {
      await engine.close();
    }
  });
});
