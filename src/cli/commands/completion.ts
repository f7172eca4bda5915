import { Argument, type Command } from 'commander';
import { SHELLS, completionScript, type CompletionCommand, type Shell } from '../completion.ts';

/** Every registered command as the completion scripts see it. */
function commandsOf(program: Command): CompletionCommand[] {
  return program.commands
    .filter((c) => c.name() !== 'help')
    .map((c) => {
      // A command with subcommands (`source add|list|remove`): those complete first, then all their options.
      const subs = c.commands.filter((s) => s.name() !== 'help');
      const first = subs.length ? subs.map((s) => s.name()) : (c.registeredArguments[0] as { argChoices?: string[] } | undefined)?.argChoices;
      const options = [...new Map([c, ...subs].flatMap((s) => s.options).map((o) => [o.long ?? o.short, o])).values()];
      return {
        name: c.name(),
        description: c.description(),
        argChoices: first,
        options: options.map((o) => ({
          short: o.short,
          long: o.long,
          takesValue: o.required || o.optional,
          description: o.description,
          choices: o.argChoices,
        })),
      };
    });
}

export function register(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script: bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .addHelpText(
      'after',
      `
bash:  source <(ragsync completion bash)      (in ~/.bashrc)
zsh:   source <(ragsync completion zsh)       (in ~/.zshrc, after compinit)
fish:  ragsync completion fish > ~/.config/fish/completions/ragsync.fish`,
    )
    .action(function (this: Command, shell: Shell) {
      // The program registers every command for `completion` (src/cli/main.ts).
      process.stdout.write(completionScript(shell, commandsOf(this.parent!)));
    });
}
