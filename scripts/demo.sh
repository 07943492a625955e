#!/usr/bin/env bash
# `make demo`: evalfmt on the bundled fixtures (a small skill library and an EVAL.yaml).
# Everything it writes goes to demo-out/ (recreated each run).
set -euo pipefail
cd "$(dirname "$0")/.."
EVALFMT=".venv/bin/evalfmt"
OUT="demo-out"
rm -rf "$OUT"
mkdir -p "$OUT"
step() { printf '\n\033[1m$ evalfmt %s\033[0m\n' "$*"; }
run() { step "$@"; "$EVALFMT" "$@"; }
# a command whose non-zero exit is part of the show
show() { step "$@"; set +e; "$EVALFMT" "$@"; rc=$?; set -e; echo "(exit $rc)"; }
has() { "$EVALFMT" --help | grep -q "^  $1 "; }

run --version
run inspect fixtures/library/release-notes
run validate fixtures
echo "(exit 0: no structural errors)"

# A skill whose case has three mistakes (examples/broken-skill), to show what findings look like.
show validate examples/broken-skill

run convert fixtures/library/release-notes/evals/cases/no-tag-push.yaml --to terum
if has transpile; then
  run transpile fixtures/agentv/EVAL.yaml --out "$OUT/skills"
  for f in "$OUT"/skills/*/evals.json; do echo "--- $f"; cat "$f"; done
fi
if "$EVALFMT" convert --help >/dev/null 2>&1 && "$EVALFMT" inspect fixtures/agentv/EVAL.yaml >/dev/null 2>&1; then
  run convert fixtures/library/release-notes --to agentv -o "$OUT/release-notes.EVAL.yaml"
  run convert fixtures/agentv/EVAL.yaml --to terum -o "$OUT/from-agentv"
fi
if has lint; then
  run lint fixtures/library
fi
# Score recorded sessions of the sample skill (both arms, every case and the suite), compare the
# arms, and draw the report. The replay runner stages each sandbox as a live run would, then lays
# the recorded session and sandbox over it, so file and command checks see what the agent left.
SESSIONS="fixtures/sessions/release-notes"
if has run && has report && [ -d "$SESSIONS/candidate" ]; then
  show run fixtures/library/release-notes --runner replay --replay-from "$SESSIONS" --out "$OUT/run" --force
  run report "$OUT/run/receipt.json" --format markdown -o "$OUT/report.md"
  run report "$OUT/run/receipt.json" --format html -o "$OUT/report.html"
fi
echo
echo "demo outputs are in $OUT/"
if [ -f "$OUT/report.html" ]; then
  echo "HTML report: $(pwd)/$OUT/report.html"
fi
