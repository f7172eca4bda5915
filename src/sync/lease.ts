import type { Logger } from 'pino';
import { errorMessage } from '../core/errors.ts';
import type { SourceLease, SourceLeases } from '../storage/roles.ts';

/** How long a worker's silence on a source lasts before another worker takes the source over (config daemon.leaseSeconds). */
export const DEFAULT_LEASE_SECONDS = 120;

const held = new Map<string, { since: number; tick: string }>();

/** The sources this process holds now, with since when (ms): none means the worker is idle. */
export function sourcesHeldHere(): { source: string; since: number; tick: string }[] {
  return [...held].map(([source, h]) => ({ source, ...h }));
}

/**
 * Keeps a held lease fresh: renewed three times per lease period, so one late renewal does not
 * lose it. A renewal that finds the lease taken over only logs: the source's next write checks
 * the lease itself and fails (storage fence), which is what stops the work.
 */
export function leaseRenewal(leases: SourceLeases, lease: SourceLease, leaseSeconds: number, log: Logger): { stop(): void } {
  let lost = false;
  held.set(lease.source, { since: Date.now(), tick: lease.tick });
  const timer = setInterval(() => {
    leases.renewLease(lease).then(
      (held) => {
        if (!held && !lost) {
          lost = true;
          log.warn({ source: lease.source }, 'lost the source\'s lease to another worker: its next write is refused');
        }
      },
      (err: unknown) => log.warn({ source: lease.source, err: errorMessage(err) }, 'lease renewal failed'),
    );
  }, (leaseSeconds * 1000) / 3);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      held.delete(lease.source);
    },
  };
}
