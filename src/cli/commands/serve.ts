import { InvalidArgumentError, type Command } from 'commander';
import { createHttpServer, listen, TOKEN_ENV } from '../../server/http.ts';
import { checkBind } from '../../server/bind.ts';
import { config, configOption, engineOf } from '../options.ts';
import { say } from '../say.ts';
import { healthReport, storeHealth } from '../../daemon/health.ts';
import { healthOptions } from '../../daemon/schedule.ts';
import { keepYoungGenerationSmall } from '../heap.ts';

export function register(program: Command): void {
  program
    .command('serve')
    .description(`serve /search (GET or POST), /related, /status, /healthz as JSON, and POST /api/chat with a chat block (bearer token from $${TOKEN_ENV} if set)`)
    .addOption(configOption())
    .option('-p, --port <n>', 'port (0 = any free port)', (v: string) => {
      const n = Number(v);
      if (!/^\d+$/.test(v) || n > 65535) throw new InvalidArgumentError(`--port must be 0..65535 (got "${v}")`);
      return n;
    }, 8787)
    .option('--host <addr>', `address to bind (other than loopback: needs $${TOKEN_ENV})`, '127.0.0.1')
    .option('--insecure-no-token', 'allow a non-loopback --host without a token (anyone who reaches it reads the index)')
    .action(async (o) => {
      const cfg = config(o);
      const token = process.env[TOKEN_ENV] || null;
      const warning = await checkBind(o.host, { token, insecure: !!o.insecureNoToken, tokenEnv: TOKEN_ENV });
      if (warning) say(`warning: ${warning}`, 'ragsync serve');
      keepYoungGenerationSmall();
      const engine = engineOf(cfg, { lifetime: 'long-lived' });
      const searcher = await engine.searcher();
      // /healthz judges the run history against the configured schedule, as the daemon's does.
      const judged = healthOptions(cfg);
      const log = (l: string) => say(l, 'ragsync serve');
      const chat = await engine.answerer(log);
      const server = createHttpServer(searcher, {
        token,
        health: async () => healthReport(await storeHealth(searcher.store, judged)),
        log,
        allowedHosts: cfg.serve?.allowedHosts,
        ...(chat ? { chat } : {}),
      });
      const url = await listen(server, o.port, o.host);
      process.stderr.write(`ragsync serve: listening on ${url}${token ? ' (bearer token required)' : ''}${chat ? ` with POST /api/chat (${chat.call.label})` : ''}\n`);
      await new Promise<void>((resolve) => {
        const stop = () => server.close(() => resolve());
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await engine.close();
    });
}
