/**
 * Turns handed out in the order they were asked for, one per event-loop iteration.
 *
 * A search runs start to finish on the loop (SQLite and the vector scan are synchronous), and
 * node:http starts handlers in the order epoll lists the sockets, which is not the order their
 * requests came in: a socket that rejoins the kernel's ready list after the others is served last
 * in the next batch too, round after round, so one client of twenty waited twice as long as the
 * rest. Taking a turn before the work, one turn per iteration, lets the loop poll between searches
 * and queue each request as it arrives, so requests are served first come, first served. Work that
 * awaits real I/O (a remote embedder) still overlaps: a turn orders starts, it does not lock.
 */
export function turnTaker(): () => Promise<void> {
  const waiting: (() => void)[] = [];
  let scheduled = false;
  const grant = () => {
    waiting.shift()!();
    if (waiting.length) setImmediate(grant);
    else scheduled = false;
  };
  return () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (!scheduled) {
        scheduled = true;
        setImmediate(grant);
      }
    });
}
