#!/usr/bin/env bash
# Regenerates package-lock.json from package.json in an empty folder. A lock written next to an
# existing node_modules can miss other platforms' optional packages, and then `npm ci` on a clean
# machine refuses it. (rollup is pinned in "overrides" to a version whose platform packages all
# exist on the registry this project installs from.)
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp package.json "$tmp/"
(cd "$tmp" && npm install --package-lock-only --ignore-scripts --no-audit --no-fund >/dev/null)
cp "$tmp/package-lock.json" package-lock.json
echo "package-lock.json regenerated"
