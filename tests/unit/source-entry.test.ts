/** What `source add` infers from a location: the kind, a name, and the entry it writes. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inferKind, nameFor, sourceEntry, uniqueName } from '../../src/config/source-entry.ts';
import { tempDir } from '../helpers/tmp.ts';
import { builtinSourceKinds as kinds } from '../../src/sources/registry.ts';

const t = tempDir('ragsync-source-entry-');
mkdirSync(join(t.dir, 'kb', 'docs'), { recursive: true });
afterAll(() => t.cleanup());

describe('source add inference', () => {
  it('git for git addresses and owner/repo URLs of known hosts, web for other http(s), dir for a folder', () => {
    const cases: [string, string][] = [
      ['git@github.com:owner/repo.git', 'git'],
      ['ssh://git@example.com/team/docs', 'git'],
      ['https://example.com/team/docs.git', 'git'],
      ['https://github.com/owner/repo', 'git'],
      ['https://gitlab.com/group/project/', 'git'],
      ['https://github.com/owner/repo/blob/main/README.md', 'web'],
      ['https://docs.example.com/guide/', 'web'],
      ['http://127.0.0.1:8080/', 'web'],
      ['kb', 'dir'],
      ['./kb/docs', 'dir'],
    ];
    for (const [where, kind] of cases) expect(inferKind(kinds, where, t.dir).name, where).toBe(kind);
  });

  it('refuses a kind that does not fit the location, in words', () => {
    expect(() => inferKind(kinds, 'nowhere', t.dir)).toThrow(/no such folder: .*nowhere/);
    expect(() => inferKind(kinds, 'kb', t.dir, 'web')).toThrow(/--kind web: "kb" is not an http\(s\) URL/);
    expect(() => inferKind(kinds, 'kb', t.dir, 'git')).toThrow(/is not a git repository \(index it as a folder: --kind dir\)/);
    expect(() => inferKind(kinds, 'https://example.com/x', t.dir, 'dir')).toThrow(/is a URL, not a folder/);
  });

  it('names from the repository, folder or site, made unique', () => {
    expect(nameFor('git@github.com:owner/my-repo.git', kinds.get('git'))).toBe('my-repo');
    expect(nameFor('https://www.example.com/guide/intro', kinds.get('web'))).toBe('example.com-guide');
    expect(nameFor('/home/me/My Notes/', kinds.get('dir'))).toBe('My-Notes');
    expect(uniqueName('notes', new Set(['notes', 'notes-2']))).toBe('notes-3');
  });

  it('writes only what was given; a folder inside the config folder relative to it', () => {
    const ctx = { cwd: t.dir, configDir: t.dir, taken: new Set<string>() };
    expect(sourceEntry(kinds, { location: 'kb/docs', chunker: 'code', include: ['**/*.ts'] }, ctx)).toEqual({
      name: 'docs',
      kind: 'dir',
      path: './kb/docs',
      include: ['**/*.ts'],
      chunker: 'code',
    });
    expect(sourceEntry(kinds, { location: 'kb', name: 'k' }, { ...ctx, configDir: join(t.dir, 'kb', 'docs') })).toEqual({ name: 'k', kind: 'dir', path: join(t.dir, 'kb') });
    expect(sourceEntry(kinds, { location: 'https://example.com/sitemap.xml' }, ctx)).toEqual({ name: 'example.com', kind: 'web', sitemap: 'https://example.com/sitemap.xml' });
    expect(sourceEntry(kinds, { location: 'https://github.com/o/r' }, { ...ctx, defaultBranch: 'master' })).toEqual({ name: 'r', kind: 'git', url: 'https://github.com/o/r', branch: 'master' });
  });
});
