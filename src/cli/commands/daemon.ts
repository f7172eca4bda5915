import type { Command } from 'commander';
import { Daemon } from '../../daemon/daemon.ts';
import { startHealthServer } from '../../daemon/healthz.ts';
import { assertCron } from '../../daemon/schedule.ts';
import { onStopSignals } from '../../daemon/signals.ts';
import { EXIT } from '../../util/errors.ts';
import { createLogger } from '../../util/log.ts';
import { config, configOption, positiveInt } from '../options.ts';

export function register(program: Command): void {
  program
    .command('daemon')
    .description('sync on a cron schedule until SIGTERM/SIGINT (logs JSON on stdout)')
    .addOption(configOption())
    .option('--schedule <expr>', 'cron expression overriding daemon.schedule (6 fields: seconds first)')
    .option('--run-on-start', 'also run once right away')
    .option('--dry-run', 'first run: plan only, write nothing')
    .option('--force', 'first run: re-chunk and re-embed everything')
    .option('--serve', 'also answer GET /healthz over HTTP')
    .option('--host <host>', 'address for --serve', '127.0.0.1')
    .option('--port <n>', 'port for --serve (0: any free port)', (v) => (v === '0' ? 0 : positiveInt('--port', 65535)(v)), 8765)
    .action(async (o) => {
      const cfg = config(o);
      if (o.schedule) assertCron(o.schedule, '--schedule');
      const log = createLogger({ fd: 1, configLevel: cfg.logLevel });
      // Handlers first, so a signal during startup is a graceful stop too.
      let signalled: (s: NodeJS.Signals) => void = () => {};
      const stopSignal = new Promise<NodeJS.Signals>((resolve) => (signalled = resolve));
      const off = onStopSignals((s) => signalled(s));
      const daemon = new Daemon({
        config: cfg,
        log,
        schedule: o.schedule,
        runOnStart: o.runOnStart ? true : undefined,
        dryRun: !!o.dryRun,
        force: !!o.force,
      });
      const server = o.serve ? await startHealthServer(() => daemon.health(), { host: o.host, port: o.port }) : null;
      if (server) log.info({ url: `${server.url}/healthz` }, 'serving health');
      daemon.start();
      log.info({ pid: process.pid, db: cfg.db, intervalMs: daemon.intervalMs }, 'daemon started');
      const signal = await stopSignal;
      log.info({ signal }, 'stopping: finishing the batch in flight');
      const outcome = await daemon.stop();
      await server?.close();
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
