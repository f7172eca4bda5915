/**
 * Shell completion scripts for bash, zsh and fish, written from the commands as registered: their
 * names, options and fixed argument values (so a new option completes without editing this file).
 */
export interface CompletionOption {
  short?: string;
  long?: string;
  takesValue: boolean;
  description: string;
  /** The values it takes, when fixed. */
  choices?: readonly string[];
}

export interface CompletionCommand {
  name: string;
  description: string;
  options: CompletionOption[];
  /** Fixed values of its first argument (`completion bash|zsh|fish`). */
  argChoices?: readonly string[];
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** Text safe inside single quotes and a zsh `[description]`. */
const plain = (s: string) => s.replace(/[[\]'`:\\$]/g, '').replace(/\s+/g, ' ').slice(0, 80);

function bash(cmds: CompletionCommand[]): string {
  const cases = cmds.map((c) => {
    const flags = c.options.flatMap((o) => [o.long, o.short].filter((f): f is string => !!f)).join(' ');
    const values = c.options
      .filter((o) => o.choices?.length && o.long)
      .map((o) => `      ${o.long}) COMPREPLY=($(compgen -W "${o.choices!.join(' ')}" -- "$cur")); return;;`)
      .join('\n');
    const args = c.argChoices?.length ? `\n      [[ $COMP_CWORD -eq 2 && $cur != -* ]] && { COMPREPLY=($(compgen -W "${c.argChoices.join(' ')}" -- "$cur")); return; }` : '';
    return `    ${c.name})\n      case "$prev" in\n${values || '      *) ;;'}\n      esac${args}\n      [[ $cur == -* ]] && COMPREPLY=($(compgen -W "${flags} --help" -- "$cur"));;`;
  });
  return `# ragsync completion for bash. Load it with: source <(ragsync completion bash)   (e.g. in ~/.bashrc)
_ragsync() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} cmd=\${COMP_WORDS[1]}
  COMPREPLY=()
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "${cmds.map((c) => c.name).join(' ')} help --help --version" -- "$cur"))
    return
  fi
  case "$cmd" in
${cases.join('\n')}
  esac
}
complete -o default -F _ragsync ragsync
`;
}

function zsh(cmds: CompletionCommand[]): string {
  const spec = (o: CompletionOption) => {
    const names = [o.short, o.long].filter((f): f is string => !!f);
    const value = o.takesValue ? (o.choices?.length ? `:value:(${o.choices.join(' ')})` : o.long === '--config' ? ':file:_files' : ':value: ') : '';
    const excl = names.length > 1 ? `(${names.join(' ')})` : '';
    const head = names.length > 1 ? `{${names.join(',')}}` : names[0]!;
    return names.length > 1 ? `'${excl}'${head}'[${plain(o.description)}]${value}'` : `'${head}[${plain(o.description)}]${value}'`;
  };
  const cases = cmds.map((c) => {
    const rest = c.argChoices?.length ? `'1:${c.name === 'completion' ? 'shell' : 'action'}:(${c.argChoices.join(' ')})'` : `'*:file:_files'`;
    return `    ${c.name})\n      _arguments ${[...c.options.map(spec), `'--help[show help]'`, rest].join(' \\\n        ')} ;;`;
  });
  return `#compdef ragsync
# ragsync completion for zsh. Load it with: source <(ragsync completion zsh)   (e.g. in ~/.zshrc, after compinit)
_ragsync() {
  local -a commands
  commands=(
${cmds.map((c) => `    '${c.name}:${plain(c.description)}'`).join('\n')}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  local cmd=$words[2]
  shift words
  (( CURRENT-- ))
  case $cmd in
${cases.join('\n')}
  esac
}
compdef _ragsync ragsync
`;
}

function fish(cmds: CompletionCommand[]): string {
  const lines = [
    '# ragsync completion for fish. Load it with: ragsync completion fish | source   (or save it as ~/.config/fish/completions/ragsync.fish)',
    'complete -c ragsync -f',
    ...cmds.map((c) => `complete -c ragsync -n __fish_use_subcommand -a ${c.name} -d '${plain(c.description)}'`),
  ];
  for (const c of cmds) {
    const when = `-n '__fish_seen_subcommand_from ${c.name}'`;
    if (c.argChoices?.length) lines.push(`complete -c ragsync ${when} -a '${c.argChoices.join(' ')}'`);
    for (const o of c.options) {
      const names = [o.short ? `-s ${o.short.slice(1)}` : '', o.long ? `-l ${o.long.slice(2)}` : ''].filter(Boolean).join(' ');
      const value = o.takesValue ? (o.choices?.length ? ` -x -a '${o.choices.join(' ')}'` : o.long === '--config' ? ' -r -F' : ' -x') : '';
      lines.push(`complete -c ragsync ${when} ${names}${value} -d '${plain(o.description)}'`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export function completionScript(shell: Shell, cmds: CompletionCommand[]): string {
  return shell === 'bash' ? bash(cmds) : shell === 'zsh' ? zsh(cmds) : fish(cmds);
}
