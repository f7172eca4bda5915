/**
 * Every `sh` and `sql` block the docs mark runnable (a fence info string "sh runnable" or "sql
 * runnable") runs as written against a real index, so what a new user copies works:
 * - the sh blocks of one file run in order in one temp folder holding a copy of config/ and
 *   examples/, with `ragsync` (and `npx ragsync`) running this checkout's sources; each must exit 0,
 *   and a `text` block right after one holds lines its output must contain, in order (a line
 *   ending in " …" only its start);
 * - the sql blocks run on the sample index (config/example.json): every statement must succeed and
 *   return a row, unless its comment says "(may be empty)".
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../helpers/tmp.ts';

interface Block {
  lang: 'sh' | 'sql';
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
      blocks.push({ lang: open[1], body, line: i + 1 });
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
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env.PATH}`, NO_COLOR: '1' };
  for (const k of ['RAGSYNC_CONFIG', 'RAGSYNC_LOG_LEVEL', 'RAGSYNC_ENV_FILE', 'CI']) delete env[k];
  return { dir: t.dir, env, cleanup: t.cleanup };
}

/** `npx ragsync …` in a block runs the shim (never the registry). */
const PRELUDE = 'npx() { if [ "$1" = ragsync ]; then shift; ragsync "$@"; else command npx "$@"; fi; }\n';

function runSh(body: string, cwd: string, env: NodeJS.ProcessEnv) {
  const r = spawnSync('bash', ['-eo', 'pipefail', '-c', PRELUDE + body], { cwd, env, encoding: 'utf8', timeout: 120_000 });
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
    it(`${file}: every runnable block runs as written`, { timeout: 300_000 }, () => {
      const ws = workspace();
      cleanups.push(ws.cleanup);
      for (const b of blocks) {
        const where = `${file}:${b.line}`;
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
