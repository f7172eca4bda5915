import { describe, expect, it } from 'vitest';
import { formatLine } from '../../src/core/pretty-log.ts';

describe('formatLine', () => {
  it('turns a pino JSON line into time, level, message and fields', () => {
    const line = JSON.stringify({ level: 30, time: Date.parse('2026-01-01T12:34:56Z'), msg: 'run ok', runId: 3, sources: ['a'] });
    expect(formatLine(line)).toBe('12:34:56 INFO  run ok  runId=3 sources=["a"]\n');
  });
  it('passes through what is not JSON', () => {
    expect(formatLine('plain')).toBe('plain');
  });
});

describe('formatLine: a run summary', () => {
  it('prints each source on a line of its own, commits short, zero counts left out', () => {
    const sha = 'acf8e42aded132d441f2ca820dfd760f179e2f7b';
    const line = JSON.stringify({
      level: 30,
      time: Date.parse('2026-01-01T12:34:56Z'),
      msg: 'run ok',
      runId: 3,
      textsEmbedded: 10,
      sources: [
        { name: 'classics', status: 'ok', commitBefore: null, commit: sha, written: { added: 3, changed: 0, deleted: 0, chunks: 10, texts: 10 } },
        { name: 'notes', status: 'failed', commitBefore: null, commit: null, written: { added: 0 }, error: 'embedding failed (x): down' },
      ],
    });
    expect(formatLine(line)).toBe(
      '12:34:56 INFO  run ok  runId=3 textsEmbedded=10\n' +
        '    classics  status=ok commit=acf8e42 written(added=3 chunks=10 texts=10)\n' +
        '    notes  status=failed error=embedding failed (x): down\n',
    );
  });
});

describe('a progress bar on a terminal', () => {
  it('ends its last frame with a newline, and a log line written mid-bar starts on a line of its own', async () => {
    const { openSync, readFileSync, closeSync, writeSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tempDir } = await import('../helpers/tmp.ts');
    const { progressBar } = await import('../../src/cli/progress.ts');
    const { prettyDestination } = await import('../../src/core/pretty-log.ts');
    const t = tempDir();
    const file = join(t.dir, 'tty');
    const fd = openSync(file, 'w');
    try {
      // A file standing in for the terminal: the bar writes there as it would to stderr.
      const stream = { isTTY: true, fd, write: (s: string) => writeSync(fd, s) } as unknown as NodeJS.WriteStream;
      const bar = progressBar(stream);
      const log = prettyDestination(fd);
      bar({ type: 'embedded', source: 'a', done: 1, total: 4 });
      log.write(JSON.stringify({ level: 40, time: 0, msg: 'retrying' }) + '\n');
      bar({ type: 'embedded', source: 'a', done: 4, total: 4 });
      log.write(JSON.stringify({ level: 30, time: 0, msg: 'run ok' }) + '\n');
      bar.end();
      const lines = readFileSync(file, 'utf8').split('\n');
      expect(lines[0]).toMatch(/^\ra \[#{8}\.{22}\] 1\/4 embedded$/);
      expect(lines[1]).toMatch(/WARN  retrying$/);
      expect(lines[2]).toMatch(/^\ra \[#{30}\] 4\/4 embedded$/);
      expect(lines[3]).toMatch(/INFO  run ok$/);
      expect(lines.slice(4)).toEqual(['']);
    } finally {
      closeSync(fd);
      t.cleanup();
    }
  });
});
