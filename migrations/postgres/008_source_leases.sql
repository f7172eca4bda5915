-- 008: several workers index one Postgres index, each source claimed by one at a time. A lease row
-- per source: who holds it (host, pid, start of that process, its server session), since when,
-- renewed when, and the tick it was claimed for (a source is indexed once per schedule tick).
-- `generation` grows with every claim: a write checks it in its own transaction, so a worker whose
-- lease was taken over (paused, cut off) writes nothing more to that source.
CREATE TABLE source_leases (
  source          TEXT PRIMARY KEY,
  generation      BIGINT NOT NULL DEFAULT 0,
  tick            TEXT,
  host            TEXT,
  pid             INTEGER,
  worker_started  TEXT,
  backend_pid     INTEGER,
  claimed_at      TIMESTAMPTZ,
  renewed_at      TIMESTAMPTZ,
  released_at     TIMESTAMPTZ
);

-- The worker of each run, and the server session holding its share of the run lock: a 'running'
-- run whose session no longer holds it was interrupted.
ALTER TABLE runs ADD COLUMN host TEXT, ADD COLUMN pid INTEGER, ADD COLUMN worker_started TEXT, ADD COLUMN backend_pid INTEGER;
-- The tick a source's run was claimed for, and the lease generation it ran under.
ALTER TABLE run_sources ADD COLUMN tick TEXT, ADD COLUMN lease_generation BIGINT;
