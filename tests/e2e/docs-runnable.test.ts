/**
 * Every `sh` and `sql` block the docs mark runnable (a fence info string "sh runnable" or "sql
 * runnable") runs as written against a real index, so what a new user copies works:
 * - the sh blocks of one file run in order in one temp folder holding a copy of config/ and
 *   examples/, with `ragsync` (and `npx ragsync`) running this checkout's sources; each must exit 0,
 *   and a `text` block right after one holds lines its output must contain, in order (a line
 *   ending in " …" only its start);
 * - a block marked "runnable serve" (the curl examples) runs against a real `ragsync serve` of that
 *   folder's sample index, its 127.0.0.1:8787 replaced by the server's address; every request must
 *   answer 2xx;
 * - the sql blocks run on the sample index (config/example.json): every statement must succeed and
 *   return a row, unless its comment says "(may be empty)".
 * The README's install block ("sh install") runs in a fresh project against a tarball `npm pack`
 * makes of this checkout (packages from npm's cache when it has them, else the registry).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { packedTarball } from '../helpers/packed.ts';
import { startServe } from '../helpers/serve.ts';
import { REPO_ROOT, tempDir } from '../helpers/tmp.ts';

interface Block {
  lang: 'sh' | 'sql';
  /** Runs against a server of the sample index ("runnable serve"). */
  serve?: boolean;
  body: string;
  /** The `text` block right after it (only blank lines between), if any: lines its output must contain. */
  expected?: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** The runnable blocks of a Markdown text, in order. */
function runnableBlocks(md: string): Block[] {
  const lines = md.split('\n');
  const blocks: Block[] = [];
  let lastEnd = -1; // line index of the closing fence of the last runnable block
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S+)(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    const body = lines.slice(i + 1, end).join('\n');
    if (/\brunnable\b/.test(open[2]!) && (open[1] === 'sh' || open[1] === 'sql')) {
      blocks.push({ lang: open[1], body, line: i + 1, serve: /\bserve\b/.test(open[2]!) });
      lastEnd = end;
    } else if (open[1] === 'text' && lastEnd >= 0 && lines.slice(lastEnd + 1, i).every((l) => !l.trim())) {
      blocks.at(-1)!.expected = body;
    }
    i = end;
  }
  return blocks;
}

function markdownFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
    );
  return ['README.md', ...walk('docs')];
}

/** A folder like a user's checkout: config/ and examples/ copied, `ragsync` on PATH running the sources. */
function workspace(): { dir: string; env: NodeJS.ProcessEnv; cleanup: () => void } {
  const t = tempDir('ragsync-docs-');
  cpSync(join(REPO_ROOT, 'config'), join(t.dir, 'config'), { recursive: true });
  cpSync(join(REPO_ROOT, 'examples'), join(t.dir, 'examples'), { recursive: true });
  const bin = join(t.dir, '.bin');
  mkdirSync(bin);
  const tsx = createRequire(join(REPO_ROOT, 'package.json')).resolve('tsx');
  const shim = join(bin, 'ragsync');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" --import "${tsx}" "${join(REPO_ROOT, 'src', 'cli', 'run.ts')}" "$@"\n`);
  chmodSync(shim, 0o755);
  // `node bin/ragsync.js` as a checkout runs it: here, the sources.
  mkdirSync(join(t.dir, 'bin'));
  writeFileSync(
    join(t.dir, 'bin', 'ragsync.js'),
    `const r = require('node:child_process').spawnSync(${JSON.stringify(shim)}, process.argv.slice(2), { stdio: 'inherit' });\nprocess.exit(r.status ?? 1);\n`,
  );
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env.PATH}`, NO_COLOR: '1' };
  for (const k of ['RAGSYNC_CONFIG', 'RAGSYNC_LOG_LEVEL', 'RAGSYNC_ENV_FILE', 'CI']) delete env[k];
  return { dir: t.dir, env, cleanup: t.cleanup };
}

/** `npx ragsync …` in a block runs the shim (never the registry). */
const PRELUDE = 'npx() { if [ "$1" = ragsync ]; then shift; ragsync "$@"; else command npx "$@"; fi; }\n';
/** curl in a "runnable serve" block: fails on an HTTP error, prints only the body. */
const CURL = 'curl() { command curl -fsS "$@"; echo; }\n';

function runSh(body: string, cwd: string, env: NodeJS.ProcessEnv, prelude = PRELUDE) {
  const r = spawnSync('bash', ['-eo', 'pipefail', '-c', prelude + body], { cwd, env, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Each non-empty line of `expected` occurs in `out`, in order. */
function expectLinesInOrder(out: string, expected: string, where: string): void {
  let from = 0;
  // A line ending in " …" is shortened in the docs: its start must match.
  for (const line of expected.split('\n').map((l) => l.trimEnd().replace(/ …$/, '')).filter(Boolean)) {
    const at = out.indexOf(line, from);
    expect(at, `${where}: expected output line not found (in order): ${line}\n--- output:\n${out}`).toBeGreaterThanOrEqual(0);
    from = at + line.length;
  }
}

/** Statements of a SQL block, each with the comment lines above it. */
function statements(body: string): { sql: string; comment: string }[] {
  const out: { sql: string; comment: string }[] = [];
  let comment = '';
  let sql = '';
  for (const line of body.split('\n')) {
    if (!sql && line.trim().startsWith('--')) comment += `${line}\n`;
    else if (line.trim()) sql += `${line}\n`;
    if (sql.trimEnd().endsWith(';')) {
      out.push({ sql, comment });
      sql = comment = '';
    }
  }
  return out;
}

const files = markdownFiles()
  .map((f) => ({ file: f, blocks: runnableBlocks(readFileSync(join(REPO_ROOT, f), 'utf8')) }))
  .filter((f) => f.blocks.length);
const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((c) => c()));

describe('runnable blocks in the docs', () => {
  it('exist where a newcomer starts: the README (sh) and the database schema (sql)', () => {
    const readme = files.find((f) => f.file === 'README.md')?.blocks ?? [];
    expect(readme.filter((b) => b.lang === 'sh').length).toBeGreaterThanOrEqual(2);
    expect(readme.some((b) => b.expected)).toBe(true);
    expect(files.find((f) => f.file === join('docs', 'database.md'))?.blocks.some((b) => b.lang === 'sql')).toBe(true);
  });

  it('the README stays a front door (under 15 KB), and every relative link in the docs leads to a file', () => {
    expect(readFileSync(join(REPO_ROOT, 'README.md')).length).toBeLessThan(15_000);
    const broken: string[] = [];
    for (const f of markdownFiles()) {
      const text = readFileSync(join(REPO_ROOT, f), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const m of text.matchAll(/\]\(([^)\s#]+)(#[^)]*)?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue;
        if (!existsSync(join(REPO_ROOT, dirname(f), target))) broken.push(`${f}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  for (const { file, blocks } of files) {
    it(`${file}: every runnable block runs as written`, { timeout: 300_000 }, async () => {
      const ws = workspace();
      cleanups.push(ws.cleanup);
      for (const b of blocks) {
        const where = `${file}:${b.line}`;
        if (b.lang === 'sh' && b.serve) {
          const served = await startServe(join(ws.dir, 'config', 'example.json'));
          try {
            const body = b.body.replaceAll('http://127.0.0.1:8787', served.url.replace(/\/$/, ''));
            const r = runSh(body, ws.dir, ws.env, PRELUDE + CURL);
            expect(r.code, `${where} exited ${r.code}\n${r.err}\n${r.out}`).toBe(0);
            if (b.expected) expectLinesInOrder(r.out, b.expected, where);
          } finally {
            await served.stop();
          }
          continue;
        }
        if (b.lang === 'sh') {
          const r = runSh(b.body, ws.dir, ws.env);
          expect(r.code, `${where} exited ${r.code}\n${r.err}`).toBe(0);
          if (b.expected) expectLinesInOrder(r.out, b.expected, where);
          continue;
        }
        const db = join(ws.dir, 'data', 'example.db');
        if (!existsSync(db)) expect(runSh('ragsync index -c config/example.json --json > /dev/null', ws.dir, ws.env).code).toBe(0);
        const conn = new BetterSqlite3(db, { readonly: true });
        try {
          for (const s of statements(b.body)) {
            const rows = conn.prepare(s.sql).all();
            if (!/\(may be empty\)/.test(s.comment)) expect(rows.length, `${where}: no rows from\n${s.sql}`).toBeGreaterThan(0);
          }
        } finally {
          conn.close();
        }
      }
    });
  }
});

describe('the install line', () => {
  /** The README's install block: the commands a user types in their project. */
  const installBlock = (() => {
    const m = /^```sh install\n([\s\S]*?)\n```/m.exec(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
    return m?.[1];
  })();

  it('is not the name of a package nobody published', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme).not.toMatch(/npm install ragsync\b/);
    expect(installBlock).toMatch(/npm install \S+\.tgz/);
  });

  it('installs a packed tarball of this checkout into a fresh project, whose npx ragsync indexes the sample', { timeout: 600_000 }, async () => {
    const t = tempDir('ragsync-install-');
    cleanups.push(t.cleanup);
    // npm pack as a user runs it on a built checkout (the run's one pack: tests/helpers/packed.ts).
    const tgz = await packedTarball();
    expect(existsSync(tgz)).toBe(true);
    const project = join(t.dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{ "name": "my-project", "private": true }\n');
    // Install scripts off: better-sqlite3 would compile its native module again (minutes on two
    // cores, no prebuilt binaries offline); the one this checkout built is copied in instead.
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_ignore_scripts: 'true' };
    for (const k of ['RAGSYNC_CONFIG', 'RAGSYNC_LOG_LEVEL', 'RAGSYNC_ENV_FILE', 'CI']) delete env[k];
    const native = 'node_modules/better-sqlite3/build/Release';
    const script = `${installBlock!.replaceAll('/path/to/ragsync-0.1.0.tgz', tgz)}
mkdir -p ${native} && cp ${JSON.stringify(join(REPO_ROOT, native, 'better_sqlite3.node'))} ${native}/
npx ragsync --version
npx ragsync init --example sample
cd sample && npx ragsync index --json > /dev/null && npx ragsync search "job queue" --tag database -k 1`;
    // Asynchronous: a minutes-long install must not block the test worker.
    const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('bash', ['-eo', 'pipefail', '-c', script], { cwd: project, env, timeout: 540_000 });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
    expect(r.status, `${r.stderr}\n${r.stdout}`).toBe(0);
    expect(r.stdout).toContain('0.1.0');
    expect(r.stdout).toContain('bookmarks:202402/2024-02-03-postgres-job-queue.md');
  });
});
