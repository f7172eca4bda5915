// pm2 process file for the ragsync daemon:  pm2 start ecosystem.config.cjs
// Values come from the environment pm2 is started with, so one file serves every deployment:
//   RAGSYNC_CONFIG (config file), RAGSYNC_LOG_LEVEL, RAGSYNC_LOG_DIR, and one variable per daemon
//   option, each passed whole (a cron expression keeps its spaces):
//   RAGSYNC_SCHEDULE ("*/30 * * * * *"; default: the config's daemon.schedule), RAGSYNC_SERVE=1,
//   RAGSYNC_HOST, RAGSYNC_PORT, RAGSYNC_WATCH=1, RAGSYNC_RUN_ON_START=1.
// Logs go to logs/ (git-ignored) and grow without bound unless rotated: pm2 install pm2-logrotate
// (docs/operations.md, "Running it hourly").
const path = require('node:path');

const logDir = process.env.RAGSYNC_LOG_DIR || path.join(__dirname, 'logs');

// A string of flags split on spaces would cut a cron expression apart: refused, with what to set instead.
if (process.env.RAGSYNC_DAEMON_ARGS) {
  throw new Error('RAGSYNC_DAEMON_ARGS is no longer read: set RAGSYNC_SCHEDULE, RAGSYNC_SERVE=1, RAGSYNC_HOST, RAGSYNC_PORT, RAGSYNC_WATCH=1 or RAGSYNC_RUN_ON_START=1');
}
const env = process.env;
const on = (name) => env[name] === '1' || env[name] === 'true';
const args = [
  'daemon',
  ...(env.RAGSYNC_SCHEDULE ? ['--schedule', env.RAGSYNC_SCHEDULE] : []),
  ...(on('RAGSYNC_SERVE') ? ['--serve'] : []),
  ...(env.RAGSYNC_HOST ? ['--host', env.RAGSYNC_HOST] : []),
  ...(env.RAGSYNC_PORT ? ['--port', env.RAGSYNC_PORT] : []),
  ...(on('RAGSYNC_WATCH') ? ['--watch'] : []),
  ...(on('RAGSYNC_RUN_ON_START') ? ['--run-on-start'] : []),
];

module.exports = {
  apps: [
    {
      name: 'ragsync',
      script: path.join(__dirname, 'bin', 'ragsync.js'),
      args,
      cwd: __dirname,
      interpreter: 'node',
      // One writer per index: never cluster mode, never more than one instance.
      exec_mode: 'fork',
      instances: 1,
      autorestart: true,
      // Exit 2 is a usage or config error (a bad schedule, an unknown flag, a missing key): restarting
      // cannot fix it, so pm2 leaves it stopped with the error in the log.
      stop_exit_codes: [2],
      // Restart after a crash with exponential backoff (100 ms, doubling, capped at 15 s by pm2).
      exp_backoff_restart_delay: 100,
      max_memory_restart: process.env.RAGSYNC_MAX_MEMORY || '1G',
      // pm2 stop sends SIGINT, waits kill_timeout, then SIGKILL. The daemon waits at most
      // daemon.stopTimeoutMs (default 20 s) for the batch in flight: keep this a few seconds above it.
      kill_timeout: Number(process.env.RAGSYNC_KILL_TIMEOUT_MS || 25_000),
      // The daemon logs JSON lines on stdout; errors before the logger exists go to stderr.
      out_file: path.join(logDir, 'ragsync.out.log'),
      error_file: path.join(logDir, 'ragsync.err.log'),
      merge_logs: true,
      time: false, // pino lines carry their own time
      env: {
        NODE_ENV: 'production',
        RAGSYNC_CONFIG: process.env.RAGSYNC_CONFIG || path.join(__dirname, 'config', 'ragsync.json'),
        RAGSYNC_LOG_LEVEL: process.env.RAGSYNC_LOG_LEVEL || 'info',
      },
    },
  ],
};
