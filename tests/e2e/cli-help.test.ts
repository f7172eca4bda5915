/**
 * `ragsync --help` prints from a static list (src/cli/help.ts) without loading commander or any
 * command: it must stay what commander would print, and every command of the README's table must
 * still answer `--help`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_LIST, topLevelHelp } from '../../src/cli/help.ts';
import { buildProgram } from '../../src/cli/main.ts';
import { runCli } from '../helpers/cli.ts';
import { REPO_ROOT } from '../helpers/tmp.ts';

/** Command names of the README's command table (the fenced block under "## Commands"). */
function readmeCommands(): string[] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const block = readme.slice(readme.indexOf('## Commands')).split('```')[1]!;
  return [...new Set(block.split('\n').flatMap((l) => /^ragsync ([a-z]+)/.exec(l)?.[1] ?? []))];
}

describe('the top-level help', () => {
  it('is exactly what commander prints with every command registered', async () => {
    const program = await buildProgram([]);
    expect(topLevelHelp()).toBe(program.helpInformation());
  });

  it('lists every command of the README table, and only those', () => {
    expect(COMMAND_LIST.map((c) => c.usage.split(' ')[0]).sort()).toEqual(readmeCommands().sort());
  });

  it('every command answers --help with its own usage line', async () => {
    const program = await buildProgram([]);
    for (const name of readmeCommands()) {
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
