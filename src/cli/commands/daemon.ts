import { shownDb } from '../../core/db-url.ts';
import { InvalidArgumentError, type Command } from 'commander';
import { Daemon } from '../../daemon/daemon.ts';
import { healthReport } from '../../daemon/health.ts';
import { assertCron } from '../../daemon/schedule.ts';
import { onStopSignals } from '../../daemon/signals.ts';
import { createHttpServer, listen, TOKEN_ENV } from '../../server/http.ts';
import { checkBind } from '../../server/bind.ts';
import { EXIT } from '../../core/errors.ts';
import { createLogger } from '../../core/log.ts';
import { config, configOption, engineOf } from '../options.ts';
import { keepOldGenerationTight, keepYoungGenerationSmall } from '../heap.ts';

function port(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > 65535) throw new InvalidArgumentError(`--port must be 0..65535 (got "${v}")`);
  return n;
}

export function register(program: Command): void {
  program
    .command('daemon')
    .description('sync on cron schedules or per-source intervals until SIGTERM/SIGINT (logs JSON on stdout); --watch syncs folders as they change; --serve adds the HTTP API')
    .addOption(configOption())
    .option('--schedule <expr>', 'cron expression overriding daemon.schedule (6 fields: seconds first)')
    .option('--run-on-start', 'also run once right away')
    .option('--watch', 'watch every dir source\'s folder: sync it once changes settle (daemon.watchDebounceMs, default 1000)')
    .option('--dry-run', 'first run: plan only, write nothing')
    .option('--force', 'first run: re-chunk and re-embed everything')
    .option('--serve', `also serve the HTTP API (/search, /related, /status, /healthz; bearer token from $${TOKEN_ENV})`)
    .option('--host <addr>', `address for --serve (other than loopback: needs $${TOKEN_ENV})`, '127.0.0.1')
    .option('--insecure-no-token', 'allow a non-loopback --host without a token (anyone who reaches it reads the index)')
    .option('-p, --port <n>', 'port for --serve (0: any free port)', port, 8787)
    .action(async (o) => {
      keepOldGenerationTight(); // it indexes every hour: a run's batches must not pile up
      const base = config(o);
      if (o.schedule) assertCron(o.schedule, '--schedule');
      const log = createLogger({ fd: 1, configLevel: base.logLevel });
      // One engine: every run and the API share its embedder (its size asked once) and searcher.
      const engine = engineOf(base, { log, lifetime: 'long-lived' });
      const cfg = engine.config;
      const token = process.env[TOKEN_ENV] || null;
      if (o.serve) {
        const warning = await checkBind(o.host, { token, insecure: !!o.insecureNoToken, tokenEnv: TOKEN_ENV });
        if (warning) log.warn(warning);
      }
      // A daemon whose embedder cannot work (its API key is not set) stops here with exit 2
      // rather than failing every scheduled run.
      (await engine.embedder()).ready?.();
      const daemon = new Daemon({
        config: cfg,
        engine,
        log,
        schedule: o.schedule,
        runOnStart: o.runOnStart ? true : undefined,
        dryRun: !!o.dryRun,
        force: !!o.force,
        watch: !!o.watch,
      });
      // Handlers before anything is started, so a signal during startup is a graceful stop too.
      let signalled: (s: NodeJS.Signals) => void = () => {};
      const stopSignal = new Promise<NodeJS.Signals>((resolve) => (signalled = resolve));
      const off = onStopSignals((s) => signalled(s));
      let server: ReturnType<typeof createHttpServer> | null = null;
      if (o.serve) {
        // The API reads the index through a read-only connection: create and migrate it first
        // (before the first run there is none yet; an older one may lack this version's columns).
        await engine.openStore('sync').close();
        keepYoungGenerationSmall();
        const s = await engine.searcher();
        const chat = await engine.answerer((line) => log.warn(line));
        server = createHttpServer(s, {
          token,
          health: async () => healthReport(await daemon.health(s.store)),
          log: (line) => log.warn(line),
          allowedHosts: cfg.serve?.allowedHosts,
          ...(chat ? { chat } : {}),
        });
        log.info({ url: await listen(server, o.port, o.host) }, 'serving the HTTP API');
      }
      await daemon.start();
      log.info({ pid: process.pid, db: shownDb(cfg.db), intervalMs: daemon.intervalMs, watching: daemon.watched }, 'daemon started');
      const signal = await stopSignal;
      log.info({ signal }, 'stopping: finishing the batch in flight');
      const outcome = await daemon.stop();
      if (server) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
      // The model's connections (an answer cut off by the stop included) end with the answerer.
      await engine.close();
      off();
      if (outcome === 'timeout') {
        // The database is safe (WAL, per-batch commits); the next run marks this one aborted.
        log.error('stop timed out: exiting with the run unfinished');
        process.exit(EXIT.failed);
      }
      log.info({ runs: daemon.runs }, 'daemon stopped');
      process.exitCode = EXIT.ok;
    });
}
