import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Upstream } from '../helpers/upstream.ts';
import { tempDir } from '../helpers/tmp.ts';
import { runCli } from '../helpers/cli.ts';
import { FakeProvider } from '../helpers/fake-provider.ts';

/** Text as a Windows editor saves "Unicode": a byte-order mark, then UTF-16 in either byte order. */
function utf16(text: string, order: 'le' | 'be'): Buffer {
  const le = Buffer.from(text, 'utf16le');
  if (order === 'be') le.swap16();
  return Buffer.concat([Buffer.from(order === 'le' ? [0xff, 0xfe] : [0xfe, 0xff]), le]);
}

const LFS_POINTER =
  'version https://git-lfs.github.com/spec/v1\n' +
  'oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n' +
  'size 12345\n';
const LFS_REASON = 'Git LFS pointer (content not in the repository)';

/** The same five files in a git upstream and a plain folder. */
function files(): Record<string, Buffer> {
  return {
    'le.md': utf16('# 甲木 little\n\n正月甲木，初春尚有余寒，得丙火温暖。 littleendianword\n', 'le'),
    'be.md': utf16('# 乙木 big\n\n二月乙木，阳气渐升，先丙后癸。 bigendianword\n', 'be'),
    'bom8.md': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('# Marked\n\nA UTF-8 file with a mark: bomwordeight.\n')]),
    'model.md': Buffer.from(LFS_POINTER),
    'plain.md': Buffer.from('# Plain\n\nNothing special here: plainword.\n'),
  };
}

let t: ReturnType<typeof tempDir>;
let cfgFile: string;
let db: string;

beforeEach(() => {
  t = tempDir();
  const up = new Upstream(join(t.dir, 'up'));
  const dir = join(t.dir, 'folder');
  mkdirSync(dir);
  for (const [name, bytes] of Object.entries(files())) {
    up.write(name, bytes);
    writeFileSync(join(dir, name), bytes);
  }
  up.commit('encodings');
  cfgFile = join(t.dir, 'ragsync.json');
  db = join(t.dir, 'ragsync.db');
  writeFileSync(
    cfgFile,
    JSON.stringify({
      db,
      sources: [
        { name: 'repo', kind: 'git', url: up.bare, include: ['**/*.md'] },
        { name: 'folder', kind: 'dir', path: dir, include: ['**/*.md'] },
      ],
    }),
  );
});
afterEach(() => t.cleanup());

describe('files that are not plain UTF-8', () => {
  it('UTF-16 (LE, BE) and UTF-8 with a byte-order mark are indexed as text; an LFS pointer is skipped by name, in dry-run -v, the run JSON and status', async () => {
    const dry = await runCli(['index', '-c', cfgFile, '--dry-run', '-v']);
    expect(dry.code, dry.stderr).toBe(3);
    for (const s of ['repo', 'folder']) expect(dry.stdout).toMatch(new RegExp(`^${s}\\s+partial .*docs \\+4 .* !1`, 'm'));
    expect(dry.stdout.split('\n').filter((l) => l === `  ! model.md: ${LFS_REASON}, skipped`)).toHaveLength(2);
    expect(dry.stdout).not.toContain('binary');

    const run = await runCli(['index', '-c', cfgFile, '--json']);
    expect(run.code, run.stderr).toBe(3);
    const out = JSON.parse(run.stdout);
    for (const s of out.sources) {
      expect(s.documents).toMatchObject({ added: 4, skipped: 1 });
      expect(s.skippedFiles).toEqual([{ path: 'model.md', reason: `model.md: ${LFS_REASON}, skipped` }]);
    }

    // Stored as text, the mark dropped: no NUL, no U+FEFF, the words whole.
    const rows = new Database(db, { readonly: true }).prepare('SELECT d.path, c.text FROM chunks c JOIN documents d ON d.id = c.document_id').all() as {
      path: string;
      text: string;
    }[];
    expect(rows.filter((r) => r.path === 'model.md')).toEqual([]);
    expect(rows.some((r) => /[\0\uFEFF]/.test(r.text))).toBe(false);
    expect(rows.find((r) => r.path === 'le.md')?.text).toContain('正月甲木，初春尚有余寒，得丙火温暖。');
    expect(rows.find((r) => r.path === 'be.md')?.text).toContain('二月乙木，阳气渐升，先丙后癸。');

    for (const [word, path] of [['littleendianword', 'le.md'], ['bigendianword', 'be.md'], ['bomwordeight', 'bom8.md']]) {
      const s = await runCli(['search', word!, '-c', cfgFile, '--mode', 'keyword', '--json']);
      expect(s.code, s.stderr).toBe(0);
      // The two sources hold the same text: shown once, as near-duplicates.
      expect([...new Set(JSON.parse(s.stdout).map((h: { path: string }) => h.path))]).toEqual([path]);
    }

    const status = await runCli(['status', '-c', cfgFile]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout.split('\n').filter((l) => l.trim() === `! model.md: ${LFS_REASON}, skipped`)).toHaveLength(2);
    const json = JSON.parse((await runCli(['status', '-c', cfgFile, '--json'])).stdout);
    expect(json.runs[0].sources.map((s: { skippedFiles: unknown }) => s.skippedFiles)).toEqual([
      [{ path: 'model.md', reason: `model.md: ${LFS_REASON}, skipped` }],
      [{ path: 'model.md', reason: `model.md: ${LFS_REASON}, skipped` }],
    ]);
  });
});

describe('a provider answering with a web page', () => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await FakeProvider.start({ dims: 8 });
  });
  afterAll(async () => {
    await fake.close();
  });

  const page = '<!DOCTYPE html>\n<html><head><title>Sign in to the corporate gateway</title></head><body>' + 'x'.repeat(500) + '</body></html>';

  function providerConfig() {
    writeFileSync(
      cfgFile,
      JSON.stringify({
        db,
        embedder: { provider: 'openai-compatible', baseUrl: fake.baseUrl, model: 'fake-model', dimensions: 8, maxRetries: 1, timeoutMs: 2000 },
        sources: [{ name: 'folder', kind: 'dir', path: join(t.dir, 'folder'), include: ['plain.md'] }],
      }),
    );
  }

  it('a 200 HTML page fails the run at once, saying so with the status, content type and the start of the page', async () => {
    providerConfig();
    fake.fallback = { kind: 'html', status: 200, body: page };
    const before = fake.requests.length;
    const r = await runCli(['index', '-c', cfgFile, '--json']);
    expect(r.code).not.toBe(0);
    const error = JSON.parse(r.stdout).sources[0].error as string;
    expect(error).toContain('got an HTML page instead of JSON (HTTP 200, content-type text/html; charset=utf-8)');
    expect(error).toContain(JSON.stringify(page.replace(/\s+/g, ' ').slice(0, 80)));
    expect(error).not.toContain('x'.repeat(60));
    expect(error).not.toContain('malformed JSON');
    expect(fake.requests.length - before).toBe(1); // what that address serves: not retried
  });

  it('an HTML page without an HTML content type is still named by its first bytes; an HTML 502 is retried', async () => {
    providerConfig();
    fake.queue({ kind: 'html', status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' });
    fake.fallback = { kind: 'html', status: 200, body: '  <html><body>maintenance</body></html>', type: 'application/json' };
    const before = fake.requests.length;
    const r = await runCli(['index', '-c', cfgFile, '--json']);
    expect(r.code).not.toBe(0);
    const logged = r.stderr.split('\n').flatMap((l) => (l.startsWith('{') ? [JSON.parse(l).msg as string] : []));
    expect(logged).toContainEqual(expect.stringContaining('got an HTML page instead of JSON (HTTP 502, content-type text/html; charset=utf-8): "<html><body><h1>502 Bad Gateway</h1></body></html>"'));
    const error = JSON.parse(r.stdout).sources[0].error as string;
    expect(error).toContain('got an HTML page instead of JSON (HTTP 200, content-type application/json): "<html><body>maintenance</body></html>"');
    expect(fake.requests.length - before).toBe(2);
  });
});
