/**
 * Calls `onStop` once on the first SIGTERM or SIGINT (pm2 stop sends SIGINT, systemd and docker
 * SIGTERM). A second signal means "now": `onForce` runs (default: exit 130 without cleanup;
 * the database is safe in WAL mode, the run is marked aborted by the next one).
 * Returns a function that removes the handlers.
 */
export function onStopSignals(
  onStop: (signal: NodeJS.Signals) => void,
  onForce: (signal: NodeJS.Signals) => void = () => process.exit(130),
): () => void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return onForce(signal);
    stopping = true;
    onStop(signal);
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
  return () => {
    process.off('SIGTERM', handler);
    process.off('SIGINT', handler);
  };
}
