-- 003: what the daemon needs beyond 001: embedder retries per run, and the index lock.
-- Independent of 002: it only adds a column to runs and a new table.

ALTER TABLE runs ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;  -- embedder calls retried in this run

-- At most one row: the process allowed to write the index. A row left by a killed process is
-- taken over once its holder is known dead (same host: pid gone or reused; other host: heartbeat old).
CREATE TABLE index_lock (
  id            INTEGER PRIMARY KEY CHECK (id = 1),
  token         TEXT NOT NULL,     -- random, identifies one acquisition
  pid           INTEGER NOT NULL,
  host          TEXT NOT NULL,
  proc_start    TEXT,              -- boot id + process start tick (Linux): detects pid reuse
  acquired_at   TEXT NOT NULL,
  heartbeat_at  TEXT NOT NULL
);
