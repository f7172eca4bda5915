// The delete guard over real upstream history: it judges lost passages, not files. The classics
// upstream's tip splits large files (37 of 60 files disappear, their text moves into 60 new
// ones): an hourly run that jumps from the first commit straight to the tip must go through with
// no flag, embedding exactly the new distinct texts. The bookmarks' rename commit goes through.
// An upstream reset to an empty tree, and an include narrowed to a few files, still stop, with the
// loss in words, in --dry-run too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseConfig } from '../../src/builtin.ts';
import type { ConfigInput } from '../../src/config/schema.ts';
import { sha256 } from '../../src/core/hash.ts';
import { needCorpora } from '../helpers/corpora.ts';
import { index, snapshotDb } from '../helpers/index-fixture.ts';
import { CORPORA, tempDir } from '../helpers/tmp.ts';
import { BundleUpstream } from '../helpers/upstream.ts';

const corpora = needCorpora('classics.bundle', 'bookmarks.bundle');
const FIRST = '2bd81f3';
const TIP = 'acf8e42';
const RENAMES = '2fc2113';

describe.skipIf(!corpora.ok)(corpora.title('the delete guard over real upstream history'), () => {
  const t = tempDir();
  let classics: BundleUpstream;
  let bookmarks: BundleUpstream;
  const config = (name: string, url: string, extra: Partial<ConfigInput['sources'][number]> = {}) =>
    parseConfig({
      db: join(t.dir, `${name}.db`),
      checkouts: join(t.dir, `checkouts-${name}`),
      sources: [{ name: 'src', kind: 'git', url, include: ['content/命/**/*.md'], ...extra }],
    });

  beforeAll(() => {
    classics = new BundleUpstream(join(t.dir, 'classics.git'), join(CORPORA, 'classics.bundle'));
    bookmarks = new BundleUpstream(join(t.dir, 'bookmarks.git'), join(CORPORA, 'bookmarks.bundle'));
  });
  afterAll(() => t.cleanup());

  for (const chunker of ['markdown', 'classics']) {
    it(`classics from its first commit straight to the tip (${chunker} chunker): no flag, exactly the new distinct texts embedded`, async () => {
      const cfg = config(`jump-${chunker}`, classics.bare, { chunker });
      classics.moveTo(FIRST);
      expect((await index(cfg)).status).toBe('ok');
      const before = snapshotDb(cfg.db);

      classics.moveTo(TIP);
      const dry = await index(cfg, { dryRun: true });
      expect(dry.sources[0]!.error).toBeNull();
      expect(dry.status).toBe('ok');
      // Most files went away: counted by files, this was a 61.7 % deletion.
      expect(dry.sources[0]!.planned.documents).toMatchObject({ deleted: 37, added: 60 });

      const r = await index(cfg);
      expect(r.status, r.sources[0]!.error ?? '').toBe('ok');
      expect(r.sources[0]!.commit).toMatch(new RegExp(`^${TIP}`));
      const after = snapshotDb(cfg.db);
      const fresh = [...after.distinct].filter((h) => !before.vectorHashes.has(h));
      expect(r.textsEmbedded).toBe(fresh.length);
      expect(r.textsEmbedded).toBe(dry.sources[0]!.planned.texts);
      expect(new Set(r.sent.map((s) => sha256(s)))).toEqual(new Set(fresh));
      expect(r.sent.length).toBe(fresh.length); // each once
    });
  }

  it("the bookmarks' rename commit passes with no flag and embeds nothing", async () => {
    const cfg = config('renames', bookmarks.bare, { include: ['[0-9][0-9][0-9][0-9][0-9][0-9]/*.md'], exclude: ['**/monthly-index.md'], chunker: 'bookmarks' });
    bookmarks.moveTo(`${RENAMES}^`);
    expect((await index(cfg)).status).toBe('ok');
    bookmarks.moveTo(RENAMES);
    const r = await index(cfg);
    expect(r.status, r.sources[0]!.error ?? '').toBe('ok');
    expect(r.sources[0]!.written.documents).toMatchObject({ renamed: 15, deleted: 0 });
    expect(r.textsEmbedded).toBe(0);
  });

  // One index of the tip for both refusals. The emptied branch goes last: the refused run still
  // moves ragsync's checkout to the empty commit, and moving the upstream back would rewrite it.
  const tip = () => config('tip', classics.bare, { chunker: 'classics' });
  let tipIndexed = false;
  async function indexTip() {
    classics.moveTo(TIP);
    if (!tipIndexed) expect((await index(tip())).status).toBe('ok');
    tipIndexed = true;
    return tip();
  }

  it('an include narrowed to one book is a mass deletion: refused with the passages in words; --allow-delete confirms', async () => {
    const cfg = await indexTip();
    const before = snapshotDb(cfg.db);
    const narrowed = config('tip', classics.bare, { chunker: 'classics', include: ['content/命/千里命稿/**/*.md'] });
    for (const dryRun of [true, false]) {
      const r = await index(narrowed, { dryRun });
      expect(r.status).toBe('failed');
      const m = /would drop ([\d,]+) of ([\d,]+) passages \((\d+(?:\.\d)?) %\) from (\d+) removed or rewritten documents, over maxDeleteShare 50 %/.exec(r.sources[0]!.error ?? '');
      expect(m, r.sources[0]!.error ?? '').not.toBeNull();
      const [dropping, held] = [Number(m![1]!.replace(/,/g, '')), Number(m![2]!.replace(/,/g, ''))];
      expect(held).toBe(before.distinct.size);
      expect(dropping / held).toBeGreaterThan(0.8);
      expect(r.sources[0]!.error).toContain('--allow-delete');
    }
    expect(snapshotDb(cfg.db).chunks).toEqual(before.chunks);
    const ok = await index(narrowed, { allowDelete: true });
    expect(ok.status).toBe('ok');
    expect(new Set(snapshotDb(cfg.db).chunks.map((c) => c.path.split('/')[2]))).toEqual(new Set(['千里命稿']));
  });
  it('a branch reset to an empty tree stops, in --dry-run too, naming the passages it would drop; the index keeps every document', async () => {
    const cfg = await indexTip();
    const before = snapshotDb(cfg.db);
    const emptyTree = execFileSync('git', ['-C', classics.bare, 'hash-object', '-t', 'tree', '-w', '--stdin'], { input: '', encoding: 'utf8' }).trim();
    const empty = execFileSync('git', ['-C', classics.bare, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit-tree', emptyTree, '-p', TIP, '-m', 'empty'], {
      encoding: 'utf8',
    }).trim();
    classics.moveTo(empty);
    const held = before.distinct.size.toLocaleString('en-US');
    const documents = new Set(before.chunks.map((c) => c.path)).size;
    const words = new RegExp(`lists no files now but ${documents} documents are indexed from it: refusing to empty it, which would drop ${held} of ${held} passages \\(100 %\\)`);
    for (const dryRun of [true, false]) {
      const r = await index(cfg, { dryRun });
      expect(r.status).toBe('failed');
      expect(r.sources[0]!.error).toMatch(words);
      expect(r.sources[0]!.error).toContain('--allow-empty');
    }
    expect(snapshotDb(cfg.db).chunks).toEqual(before.chunks);
  });

});
