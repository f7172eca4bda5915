#!/usr/bin/env bash
# Smoke test of the daemon under a real pm2 (from npm): start it with a per-second schedule,
# see a run recorded, stop it, check it stopped cleanly. Not part of CI (needs the npm registry).
#   scripts/pm2-smoke.sh            # uses pm2@7.0.4 through npm exec
set -euo pipefail
PM2_VERSION="${PM2_VERSION:-7.0.4}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
T="$(mktemp -d)"
export PM2_HOME="$T/pm2"            # a private pm2: never touches the user's processes
pm2() { npm exec --yes "pm2@$PM2_VERSION" -- "$@"; }
cleanup() { pm2 kill >/dev/null 2>&1 || true; rm -rf "$T"; }
trap cleanup EXIT

cd "$ROOT"
npm run build >/dev/null           # pm2 runs bin/ragsync.js, i.e. the compiled dist/

# A small upstream: one git repo with two Markdown files.
mkdir -p "$T/up"
git -C "$T/up" init -q -b main
printf '# One\n\nFirst file.\n' > "$T/up/one.md"
printf '# Two\n\nSecond file.\n' > "$T/up/two.md"
git -C "$T/up" add -A && git -C "$T/up" -c user.name=s -c user.email=s@example.com commit -qm init
cat > "$T/ragsync.json" <<JSON
{ "db": "$T/data/index.db", "embedder": { "provider": "hash", "dims": 64 },
  "daemon": { "schedule": "* * * * * *", "stopTimeoutMs": 5000 },
  "sources": [{ "name": "up", "url": "$T/up", "branch": "main" }] }
JSON

RAGSYNC_CONFIG="$T/ragsync.json" RAGSYNC_LOG_DIR="$T/logs" RAGSYNC_KILL_TIMEOUT_MS=8000 \
  pm2 start ecosystem.config.cjs >/dev/null
echo "pm2 $PM2_VERSION started ragsync; waiting for a run…"
for _ in $(seq 1 60); do
  if node --import tsx src/cli/run.ts status -c "$T/ragsync.json" --json 2>/dev/null \
      | node -e 'const s=JSON.parse(require("fs").readFileSync(0,"utf8"));process.exit(s.runs.some(r=>r.trigger==="cron"&&r.status==="ok")?0:1)'; then
    found=1; break
  fi
  sleep 1
done
pm2 describe ragsync | grep -E 'status|restarts' | head -3
pm2 stop ragsync >/dev/null
grep -q '"msg":"daemon stopped"' "$T/logs/ragsync.out.log" || { echo "FAIL: no clean stop in the log"; tail -5 "$T/logs/ragsync.out.log"; exit 1; }
[ "${found:-0}" = 1 ] || { echo "FAIL: no cron run recorded"; tail -20 "$T/logs/ragsync.out.log"; exit 1; }
node --import tsx src/cli/run.ts status -c "$T/ragsync.json" | tail -3
echo "OK: a cron run was recorded and the daemon stopped cleanly under pm2"
