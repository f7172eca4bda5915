// What ragsync prints never carries a credential from the config or an error, and text from the
// indexed documents never reaches a terminal as control sequences that would drive it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp.ts';
import { runCli, runNode } from '../helpers/cli.ts';
import { ModelServer, chatJson, chatStream } from '../helpers/model-server.ts';

const SECRETS = ['Hunter2Secret', 'KeyPass9', 'UrlPass7', 'QTok55', 'tok-SECRET-1', 'CookieSecret2', 'CustomSecret3', 'GitPass8', 'p@ssAt'];
const leaked = (text: string) => SECRETS.filter((s) => text.includes(s));
/** A raw control character a terminal would act on (newline and tab excepted). */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

let t: ReturnType<typeof tempDir>;
let m: ModelServer;
let secretConfig: string;
let textConfig: string;

beforeAll(async () => {
  t = tempDir('ragsync-hygiene-');
  m = await ModelServer.start();
  secretConfig = join(t.dir, 'secret.json');
  writeFileSync(
    secretConfig,
    JSON.stringify({
      // A closed port: every command that opens the index fails, and its error must not say the password.
      db: 'postgres://ragsync:Hunter2Secret@127.0.0.1:1/rag?sslpassword=KeyPass9&application_name=rs',
      embedder: { provider: 'hash', dims: 64 },
      sources: [
        {
          name: 'site',
          kind: 'web',
          url: 'http://user:UrlPass7@127.0.0.1:1/docs/?token=QTok55',
          headers: { Authorization: 'Bearer tok-SECRET-1', Cookie: 'session=CookieSecret2; theme=dark', 'X-Custom': 'CustomSecret3' },
        },
        { name: 'code', kind: 'git', url: 'http://gituser:GitPass8@127.0.0.1:1/r.git' },
        { name: 'other', kind: 'git', url: 'https://u:p@ssAt@example.com/x.git' },
      ],
    }),
  );
  const notes = join(t.dir, 'notes');
  mkdirSync(notes);
  // A title change (OSC), a screen clear (CSI), an 8-bit CSI (C1), backspaces, a bell, a carriage return.
  writeFileSync(join(notes, 'evil.md'), '# Kestrel \x1b]0;pwned\x07notes\n\nThe kestrel hovers \x1b]0;owned\x1b\\ over \x1b[2J\x1b[H the field \u009b31m red \b\b and \x07 bell \r over; access \u202e\u2066// admin\u2069\u2066 granted.\n');
  writeFileSync(join(notes, 'odd\x1b[2Jname.md'), '# Other\n\nkestrel second.\n');
  textConfig = join(t.dir, 'text.json');
  writeFileSync(
    textConfig,
    JSON.stringify({
      db: join(t.dir, 'index.db'),
      embedder: { provider: 'hash', dims: 64 },
      sources: [{ name: 'notes', kind: 'dir', path: notes }],
      chat: { provider: 'openai-compatible', baseUrl: m.url, model: 'fake', maxRetries: 0 },
    }),
  );
  const r = await runCli(['index', '-c', textConfig, '--json']);
  expect(r.code, r.stderr).toBe(0);
}, 60_000);
afterAll(async () => {
  await m?.close();
  t?.cleanup();
});

describe('credentials', () => {
  it('config check (text and --json) masks the db password, URL userinfo, tokens in URLs and every header value', async () => {
    const text = await runCli(['config', 'check', '-c', secretConfig]);
    expect(text.code, text.stderr).toBe(0);
    expect(leaked(text.stdout + text.stderr)).toEqual([]);
    expect(text.stdout).toContain('postgres://ragsync:***@127.0.0.1:1/rag?sslpassword=***&application_name=rs');
    const json = await runCli(['config', 'check', '--json', '-c', secretConfig]);
    expect(json.code, json.stderr).toBe(0);
    expect(leaked(json.stdout + json.stderr)).toEqual([]);
    const c = JSON.parse(json.stdout).config;
    expect(c.sources[0].headers).toEqual({ Authorization: '***', Cookie: '***', 'X-Custom': '***' });
    expect(c.sources[0].url).toBe('http://***@127.0.0.1:1/docs/?token=***');
    expect(c.sources[1].url).toBe('http://***@127.0.0.1:1/r.git');
    expect(c.sources[2].url).toBe('https://***@example.com/x.git');
  });

  it('source list and source add show locations with userinfo and secret parameters masked', async () => {
    const list = await runCli(['source', 'list', '-c', secretConfig]);
    expect(list.code, list.stderr).toBe(0);
    expect(leaked(list.stdout + list.stderr)).toEqual([]);
    expect(list.stdout).toContain('http://***@127.0.0.1:1/docs/?token=***');
    const json = await runCli(['source', 'list', '--json', '-c', secretConfig]);
    expect(leaked(json.stdout + json.stderr)).toEqual([]);
    const add = await runCli(['source', 'add', 'https://u:UrlPass7@example.com/site/?api_key=QTok55', '--kind', 'web', '--dry-run', '--json', '-c', secretConfig]);
    expect(add.code, add.stderr).toBe(0);
    expect(leaked(add.stdout + add.stderr)).toEqual([]);
    expect(JSON.parse(add.stdout).source.url).toBe('https://***@example.com/site/?api_key=***');
  });

  it('errors and logs of commands that fail on the unreachable database or upstreams name them without the password', async () => {
    for (const args of [['status'], ['search', 'x'], ['index'], ['related', 'a.md'], ['gc']]) {
      const r = await runCli([...args, '-c', secretConfig], { RAGSYNC_LOG_LEVEL: 'debug' });
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(leaked(r.stdout + r.stderr), `${args.join(' ')}: ${r.stderr}`).toEqual([]);
      expect(r.stderr).toMatch(/127\.0\.0\.1:1/);
    }
  });

  it('a log line masks credentials in its message, its values and an error it carries', async () => {
    const script = join(t.dir, 'log.ts');
    writeFileSync(
      script,
      `import { createLogger } from ${JSON.stringify(join(process.cwd(), 'src/core/log.ts'))};
const log = createLogger({ fd: 1, level: 'info' });
log.warn({ err: new Error('connect postgres://ragsync:Hunter2Secret@db:5432/x failed'), url: 'https://u:UrlPass7@h/p?api_key=QTok55', headers: { cookie: 'CookieSecret2' } }, 'fetch http://a:GitPass8@h/ with Authorization: Bearer tok-SECRET-1');
`,
    );
    const r = await runNode(['--import', 'tsx'], [script], { RAGSYNC_LOG_FORMAT: 'json' });
    expect(r.code, r.stderr).toBe(0);
    expect(leaked(r.stdout)).toEqual([]);
    const line = JSON.parse(r.stdout.trim());
    expect(line.msg).toBe('fetch http://***@h/ with Authorization: Bearer ***');
    expect(line.url).toBe('https://***@h/p?api_key=***');
    expect(line.err).toContain('postgres://ragsync:***@db:5432/x');
  });
});

describe('control characters from indexed text', () => {
  const check = (out: string) => {
    expect(out).not.toMatch(RAW_CONTROL);
    expect(out).toContain('\\x1b]0;owned');
    expect(out).toContain('\\x1b[2J');
    expect(out).toContain('\\u009b31m');
    expect(out).toContain('access \\u202e\\u2066// admin\\u2069\\u2066 granted');
  };

  it('search and related show them escaped, in the text, the heading and the path; --json keeps them exact', async () => {
    const r = await runCli(['search', 'kestrel', '-c', textConfig]);
    expect(r.code, r.stderr).toBe(0);
    check(r.stdout);
    expect(r.stdout).toContain('odd\\x1b[2Jname.md');
    expect(r.stdout).toContain('Kestrel \\x1b]0;pwned\\x07notes');
    const j = await runCli(['search', 'kestrel', '--json', '-c', textConfig]);
    expect(j.stdout).not.toMatch(RAW_CONTROL);
    const results = JSON.parse(j.stdout) as { path: string; content: string }[];
    expect(results.map((x) => x.path).sort()).toEqual(['evil.md', 'odd\x1b[2Jname.md']);
    expect(results.find((x) => x.path === 'evil.md')!.content).toContain('\x1b[2J\x1b[H the field \u009b31m');
    const rel = await runCli(['related', 'odd\x1b[2Jname.md', '-c', textConfig]);
    expect(rel.code, rel.stderr).toBe(0);
    check(rel.stdout);
  });

  it('log lines for a terminal (readable or JSON) show a logged value\'s escapes escaped', async () => {
    const { prettyDestination, terminalJsonDestination } = await import('../../src/core/pretty-log.ts');
    const file = join(t.dir, 'tty.log');
    const fd = openSync(file, 'w');
    const line = JSON.stringify({ level: 40, time: 0, path: 'odd\x1b]0;t\x07.md', msg: 'skipped \x1b[2J \u009b1m' });
    prettyDestination(fd).write(`${line}\n`);
    terminalJsonDestination(fd).write(`${line}\n`);
    closeSync(fd);
    const out = readFileSync(file, 'utf8');
    expect(out).not.toMatch(RAW_CONTROL);
    expect(out).toContain('skipped \\x1b[2J \\u009b1m  path=odd\\x1b]0;t\\x07.md');
    expect(JSON.parse(out.trim().split('\n')[1]!).msg).toBe('skipped \x1b[2J \u009b1m');
  });

  it('status shows a file path with escapes escaped', async () => {
    writeFileSync(join(t.dir, 'notes', 'big\x1b]0;t\x07.md'), `# Big\n\n${'x'.repeat(2_100_000)}\n`);
    await runCli(['index', '-c', textConfig]);
    const r = await runCli(['status', '-c', textConfig]);
    expect(r.stdout).not.toMatch(RAW_CONTROL);
    expect(r.stdout).toContain('big\\u001b]0;t\\u0007.md');
  });

  it('ask streams the answer and its sources escaped', async () => {
    m.behave = (c, res) =>
      c.body?.stream ? chatStream(res, ['The kestrel \x1b]0;', 'hijack\x07 hovers', ' \x1b[2J\u009b1m.']) : chatJson(res, JSON.stringify({ isRelevant: true, query: 'kestrel' }));
    const r = await runCli(['ask', 'what does the kestrel do?', '-c', textConfig]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(RAW_CONTROL);
    expect(r.stdout).toContain('The kestrel \\x1b]0;hijack\\x07 hovers \\x1b[2J\\u009b1m.');
  });
});
