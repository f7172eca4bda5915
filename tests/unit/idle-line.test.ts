import { describe, expect, it } from 'vitest';
import { idleLine } from '../../src/cli/format.ts';

describe('the line of an index run with no source free (Postgres workers)', () => {
  it('names each held source with its holder and lease age, then those already indexed', () => {
    const held = { source: 'classics', host: 'build-2', pid: 4242, workerStarted: null, tick: 't', claimedAt: null, claimedSecondsAgo: 95, renewedSecondsAgo: 3, held: true };
    expect(idleLine({ held: [held], done: ['bookmarks', 'code'] })).toBe(
      'nothing to do: no source is free for this worker: classics held by pid 4242 on build-2 (lease 95s old, renewed 3s ago); ' +
        'bookmarks, code already indexed by another worker (for this tick, or since this run began)',
    );
  });
});
