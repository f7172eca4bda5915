import type { Command } from 'commander';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { RagsyncError, EXIT } from '../../core/errors.ts';
import { packageRoot } from '../../core/package-root.ts';
import { LOCAL_CONFIG_NAMES } from '../../config/load.ts';
import { looksLikeGit, sourceNameOf, starterConfig, type StarterSource } from '../../config/starter.ts';
import { SCHEMA_FILE } from '../../config/schema-file.ts';
import { builtinProfiles } from '../../builtin.ts';
import { out } from '../options.ts';

const CONFIG_NAME = 'ragsync.jsonc';

/** The schema's path as the config file names it: relative, with forward slashes. */
function schemaPathFrom(configDir: string): string {
  const rel = relative(configDir, join(packageRoot(import.meta.url), SCHEMA_FILE)).split(sep).join('/');
  return rel.startsWith('.') || rel.startsWith('/') ? rel : `./${rel}`;
}

/** Refuses when `dir` already holds a config `init` would shadow or overwrite. */
function refuseExisting(dir: string): void {
  for (const name of LOCAL_CONFIG_NAMES) {
    const file = join(dir, name);
    if (existsSync(file)) throw new RagsyncError(`${file} already exists: not overwritten (edit it, or init another folder)`, EXIT.usage);
  }
}

/** One question on a terminal: what to index. Nothing is asked elsewhere (scripts, CI, agents). */
async function ask(): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const a = await rl.question('What should ragsync index? A git URL, or a folder [.]: ');
    return a.trim() || '.';
  } finally {
    rl.close();
  }
}

/** Copies the sample corpus and a config for it into `dir` (for an installed package, whose own example must stay read-only). */
function writeExample(dir: string): string {
  const root = packageRoot(import.meta.url);
  const target = join(dir, 'examples');
  if (existsSync(target)) throw new RagsyncError(`${target} already exists: not overwritten`, EXIT.usage);
  cpSync(join(root, 'examples'), target, { recursive: true });
  const example = JSON.parse(readFileSync(join(root, 'config', 'example.json'), 'utf8')) as { sources: { path: string }[] };
  const config = {
    ...example,
    $schema: schemaPathFrom(dir),
    db: '.ragsync/example.db',
    sources: example.sources.map((s) => ({ ...s, path: s.path.replace(/^\.\.\/examples/, './examples') })),
  };
  const file = join(dir, CONFIG_NAME);
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

export function register(program: Command): void {
  program
    .command('init')
    .description('write a starter config (ragsync.jsonc) for a git repository or a folder; --example copies the sample')
    .argument('[dir]', 'where to write ragsync.jsonc (default: the working directory)', '.')
    .option('--git <url>', 'index this git repository (cloned and pulled by ragsync)')
    .option('--branch <name>', 'the git branch', 'main')
    .option('--dir <path>', 'index this folder in place (relative paths: from DIR)')
    .option('--name <name>', 'the source name (default: from the URL or folder)')
    .option('--chunker <name>', 'markdown, classics, bookmarks or code', 'markdown')
    .option('--example', 'copy the sample corpus and its config (classics and bookmarks) instead')
    .addHelpText(
      'after',
      `
Asks what to index only on a terminal, and only when neither --git nor --dir is given; elsewhere
the default is the folder DIR itself. Never overwrites: an existing ragsync.jsonc or ragsync.json
is an error. Then: ragsync config check; ragsync index; ragsync search "…" (run in DIR).`,
    )
    .action(async (dirArg: string, o) => {
      const dir = resolve(dirArg);
      refuseExisting(dir);
      mkdirSync(dir, { recursive: true });
      if (o.example) {
        const file = writeExample(dir);
        out(`wrote ${file} and ${join(dir, 'examples')}/ (the sample: classics and bookmarks)`);
        out(nextSteps(dir));
        return;
      }
      if (o.git && o.dir) throw new RagsyncError('--git and --dir: give one of them', EXIT.usage);
      let where: string | undefined = o.git ?? o.dir;
      if (where === undefined) where = process.stdin.isTTY && process.stderr.isTTY ? await ask() : '.';
      const git = o.git !== undefined || (o.dir === undefined && looksLikeGit(where));
      // The files the chunker is made for: its profile's globs (code: every language it knows), else Markdown.
      const owner = builtinProfiles.ownerOf(o.chunker);
      if (!owner) throw new RagsyncError(`--chunker: unknown chunker "${o.chunker}" (known: ${builtinProfiles.chunkerNames().join(', ')})`, EXIT.usage);
      const include = owner.sourceDefaults?.include ?? ['**/*.md'];
      const common = { chunker: o.chunker, include };
      const source: StarterSource = git
        ? { name: o.name ?? sourceNameOf(where), kind: 'git', url: where, branch: o.branch, ...common }
        : { name: o.name ?? sourceNameOf(resolve(dir, where)), kind: 'dir', path: where, ...common };
      const file = join(dir, CONFIG_NAME);
      writeFileSync(file, starterConfig(source, schemaPathFrom(dirname(file))));
      out(`wrote ${file}: source "${source.name}", ${git ? `git ${where} (${o.branch})` : `the folder ${resolve(dir, where)}`}, offline hash embedder`);
      out(nextSteps(dir));
    });
}

function nextSteps(dir: string): string {
  const cd = resolve(dir) === process.cwd() ? '' : `cd ${relative(process.cwd(), dir) || '.'} && `;
  return `next: ${cd}ragsync config check && ragsync index && ragsync search "your question"`;
}
