/**
 * `ragsync --help` prints from a static list (src/cli/help.ts) without loading commander or any
 * command: it must stay what commander would print, and every command of the documented table
 * (docs/commands.md) must still answer `--help`; the exit codes documented there are the code's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_LIST, topLevelHelp } from '../../src/cli/help.ts';
import { buildProgram } from '../../src/cli/main.ts';
import { runCli } from '../helpers/cli.ts';
import { REPO_ROOT } from '../helpers/tmp.ts';
import { EXIT } from '../../src/core/errors.ts';

const doc = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');

/** Command names of a fenced block under "## Commands" (docs/commands.md's table, the README's summary). */
function documentedCommands(file = 'docs/commands.md'): string[] {
  const text = doc(file);
  const block = text.slice(text.indexOf('## Commands')).split('```')[1]!;
  return [...new Set(block.split('\n').flatMap((l) => [...l.matchAll(/(?:^|\| )ragsync ([a-z]+)|\| ([a-z]+)(?= )/g)].map((m) => m[1] ?? m[2]!)))];
}

describe('the top-level help', () => {
  it('is exactly what commander prints with every command registered', async () => {
    const program = await buildProgram([]);
    expect(topLevelHelp()).toBe(program.helpInformation());
  });

  it('lists every command of the documented table and of the README, and only those', () => {
    const names = COMMAND_LIST.map((c) => c.usage.split(' ')[0]).sort();
    expect(names).toEqual(documentedCommands().sort());
    expect(names).toEqual(documentedCommands('README.md').sort());
  });

  it('documents the exit codes the code uses, with nothing else', () => {
    const text = doc('docs/commands.md');
    const table = text.slice(text.indexOf('## Exit codes')).split('\n\n')[2]!;
    const codes = [...table.matchAll(/^\| `(\d+)` \|/gm)].map((m) => Number(m[1]));
    expect(codes).toEqual(Object.values(EXIT).sort((a, b) => a - b));
  });

  it('every command answers --help with its own usage line', async () => {
    const program = await buildProgram([]);
    for (const name of documentedCommands()) {
      const cmd = program.commands.find((c) => c.name() === name);
      expect(cmd, name).toBeDefined();
      expect(cmd!.helpInformation()).toMatch(new RegExp(`^Usage: ragsync ${name} `));
    }
  });

  it('--help, help and --version answer from the entry point', async () => {
    for (const args of [['--help'], ['help'], ['-h']]) {
      const r = await runCli(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(topLevelHelp());
    }
    const v = await runCli(['--version']);
    expect(v.stdout.trim()).toBe(JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).version);
    const s = await runCli(['search', '--help']);
    expect(s.code).toBe(0);
    expect(s.stdout).toMatch(/^Usage: ragsync search \[options\] <query>/);
  });
});
