import type { Command } from 'commander';
import { EXIT } from '../../core/errors.ts';
import { collect, config, configOption, engineOf, out, positiveInt } from '../options.ts';
import { say } from '../say.ts';
import { visible } from '../../core/text/visible.ts';
import { summaryOf } from '../help.ts';

export function register(program: Command): void {
  program
    .command('ask')
    .description(summaryOf('ask'))
    .argument('<question>', 'the question, in any language')
    .addOption(configOption())
    .option('-s, --source <name>', 'only this source (repeatable)', collect)
    .option('-k, --k <n>', 'passages given to the model (default: chat.passages)', positiveInt('-k', 30))
    .option('--json', 'print {answer, sources, error} as JSON once done, instead of streaming')
    .action(async (question: string, o) => {
      const cfg = config(o);
      const [{ noChat }, { parseChatRequest }, { collectAnswer, sourceLines }] = await Promise.all([
        import('../../answer/answer.ts'),
        import('../../answer/request.ts'),
        import('../../answer/collect.ts'),
      ]);
      if (!cfg.chat) throw noChat('ask');
      const req = parseChatRequest({ messages: [{ role: 'user', parts: [{ type: 'text', text: question }] }], source: o.source, k: o.k }, cfg.chat);
      const engine = engineOf(cfg);
      try {
        const answerer = (await engine.answerer((l) => say(l, 'ragsync ask')))!;
        const stream = answerer.stream(req);
        const a = await collectAnswer(stream, o.json ? undefined : (d) => process.stdout.write(visible(d)));
        if (o.json) out(JSON.stringify({ answer: a.text, sources: a.sources, error: a.error }));
        else {
          process.stdout.write('\n');
          if (a.sources.length) out(`\n${sourceLines(a.sources).join('\n')}`);
        }
        if (a.error) {
          say(`the answer failed: ${a.error}`, 'ragsync ask');
          process.exitCode = EXIT.failed;
        }
      } finally {
        await engine.close();
      }
    });
}
