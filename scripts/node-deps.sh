#!/usr/bin/env bash
# Install the pinned npm packages the differential and type-check tests compare against, into
# .cache/node/<name>/ (one prefix per package so versions never clash). Idempotent; a no-op
# (with a message) when node or npm is absent: the tests that need them then skip with that reason.
set -euo pipefail
cd "$(dirname "$0")/.."
PACKAGES_FILE=scripts/node-packages.txt
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "node-deps: node/npm not found; tests that compare with the real JavaScript tools will skip" >&2
  exit 0
fi
[ -f "$PACKAGES_FILE" ] || exit 0
while read -r dir specs; do
  case "$dir" in ""|\#*) continue ;; esac
  prefix=".cache/node/$dir"
  stamp="$prefix/.installed"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$specs" ]; then continue; fi
  mkdir -p "$prefix"
  echo "node-deps: installing $specs into $prefix" >&2
  # shellcheck disable=SC2086
  npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error $specs >&2
  echo "$specs" > "$stamp"
done < "$PACKAGES_FILE"
