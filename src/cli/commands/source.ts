import { Option, type Command } from 'commander';
import { createInterface } from 'node:readline/promises';
import { builtinProfiles, builtinSourceKinds } from '../../builtin.ts';
import { resolveConfigPath } from '../../config/load.ts';
import { RagsyncError, EXIT } from '../../core/errors.ts';
import { createLogger } from '../../core/log.ts';
import { addSource, knownSourceNames, listSources, removeSource, type SourceListing } from '../../sync/manage-sources.ts';
import { indexes } from '../../engine/engine.ts';
import { columns } from '../columns.ts';
import { collect, config, configOption, out } from '../options.ts';

const when = (iso: string | null) => (iso ? iso.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, 'Z') : '');

/** What the index holds of a source, in a few words: commit or crawl time, or never. */
function indexedText(s: SourceListing): string {
  if (!s.indexed) return 'never indexed';
  if (s.commit) return `@${s.commit.slice(0, 7)} ${when(s.indexedAt)}`;
  // A kind with no files of its own (a web crawl) fetched them; the others read theirs.
  return `${builtinSourceKinds.has(s.kind) && builtinSourceKinds.get(s.kind).root === 'none' ? 'crawled' : 'read'} ${when(s.indexedAt)}`;
}

function listText(rows: SourceListing[]): string {
  if (!rows.length) return 'no sources';
  const table = [
    ['NAME', 'KIND', 'DOCS', 'CHUNKS', 'INDEXED', 'LAST RUN', 'LOCATION'],
    ...rows.map((s) => [
      s.name + (s.inConfig ? '' : ' (not in config)'),
      s.kind,
      s.indexed ? String(s.documents) : '-',
      s.indexed ? String(s.chunks) : '-',
      indexedText(s),
      s.lastRun ? `${s.lastRun.status} ${when(s.lastRun.at)}` : '-',
      s.location ?? '',
    ]),
  ];
  return columns(table);
}

/** Asks on a terminal; elsewhere (scripts, agents) --yes is required. */
async function confirmed(question: string): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) throw new RagsyncError('not a terminal: pass --yes to remove without asking', EXIT.usage);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

export function register(program: Command): void {
  const source = program.command('source').description('add, list or remove sources: the config file edited in place, comments kept');
  source
    .command('add')
    .description('add a source to the config file (validated; comments and layout kept); does not index unless --index')
    .argument('<location>', 'a folder, a git URL (https://…/x.git, git@host:…, a GitHub/GitLab owner/repo URL) or a website URL')
    .addOption(configOption())
    .option('--name <name>', 'the source name (default: from the URL or folder, made unique)')
    .addOption(new Option('--kind <kind>', `${builtinSourceKinds.names.join(', ')} (default: inferred from the location)`).choices([...builtinSourceKinds.names]))
    .option('--include <glob>', 'files (web: URL patterns) to index (repeatable; default: the chunker profile\'s)', collect)
    .option('--exclude <glob>', 'files (web: URL patterns) to leave out (repeatable)', collect)
    .option('--chunker <name>', 'markdown, code, classics, bookmarks … (default: markdown)')
    .option('--profile <name>', 'the profile whose analysis and filters apply (default: the chunker\'s)')
    .option('--branch <name>', 'git: the branch (default: the repository\'s HEAD branch)')
    .option('--schedule <cron>', 'daemon: sync this source on its own cron schedule')
    .option('--index', 'then run one index of this source')
    .option('--dry-run', 'print the entry that would be written; write nothing')
    .option('--json', 'print one JSON object on stdout')
    .addHelpText(
      'after',
      `
A local folder is a dir source (a repository too, unless --kind git); git@host:…, ssh://, *.git and
owner/repo URLs of GitHub, GitLab, Bitbucket, Codeberg … are git; other http(s) URLs are web.
Bad input is one line naming the field and value (exit 2), and the file is left byte for byte.`,
    )
    .action(async (location: string, o) => {
      const file = resolveConfigPath(o.config);
      const r = await addSource(
        builtinProfiles,
        file,
        {
          location,
          name: o.name,
          kind: o.kind,
          include: o.include,
          exclude: o.exclude,
          chunker: o.chunker,
          profile: o.profile,
          branch: o.branch,
          schedule: o.schedule,
        },
        { dryRun: !!o.dryRun, indexes },
      );
      const name = r.entry.name as string;
      if (o.json && !o.index) out(JSON.stringify({ file: r.file, written: r.written, source: r.shown }));
      else if (!o.json) {
        out(`${r.written ? 'added' : 'would add'} source "${name}" (${r.source.kind}) to ${r.file}:`);
        out(JSON.stringify(r.shown, null, 2));
        if (!o.index && r.written) out(`next: ragsync index --source ${name}${o.config ? ` -c ${o.config}` : ''}`);
      }
      if (o.index && r.written) {
        const { indexAndReport } = await import('./index.ts');
        await indexAndReport(r.config, { source: [name], json: o.json });
      }
    });
  source
    .command('list')
    .description('each source: kind, location, indexed commit or crawl time, documents, chunks, last run')
    .addOption(configOption())
    .option('--json', 'print one JSON object on stdout')
    .action(async (o) => {
      const rows = await listSources(config(o), indexes);
      out(o.json ? JSON.stringify({ sources: rows }) : listText(rows));
    });
  source
    .command('remove')
    .description("remove a source: its documents, chunks and unused vectors from the index, its config entry, ragsync's own checkout of it")
    .argument('<name>', 'the source name')
    .addOption(configOption())
    .option('-y, --yes', 'do not ask (needed when not on a terminal)')
    .option('--json', 'print one JSON object on stdout')
    .addHelpText('after', "\nNever deletes your files: only ragsync's own checkout of a git source, and not when it holds work found nowhere else.")
    .action(async (name: string, o) => {
      const cfg = config(o);
      const known = await knownSourceNames(cfg, indexes);
      if (!known.includes(name)) throw new RagsyncError(`unknown source "${name}" (known: ${known.join(', ') || 'none'})`, EXIT.usage);
      if (!o.yes && !(await confirmed(`Remove source "${name}" from the index and from ${cfg.file}?`))) {
        out('nothing removed');
        return;
      }
      const r = await removeSource(builtinProfiles, cfg.file!, name, { log: createLogger({ configLevel: cfg.logLevel }), indexes });
      if (o.json) {
        out(JSON.stringify(r));
        return;
      }
      const n = (k: number, what: string) => `${k} ${what}${k === 1 ? '' : 's'}`;
      out(`removed source "${name}": ${n(r.documents, 'document')}, ${n(r.chunks, 'chunk')}, ${n(r.vectors, 'unused vector')} deleted`);
      out(r.configEdited ? `its entry left ${cfg.file}` : `it was not in ${cfg.file} (only in the index)`);
      if (r.checkout) out(r.checkout.removed ? `deleted ragsync's checkout ${r.checkout.path}` : `kept ${r.checkout.path}: ${r.checkout.reason}`);
    });
}
