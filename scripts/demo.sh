#!/usr/bin/env bash
# `make demo`: evalfmt on the bundled fixtures.
set -euo pipefail
cd "$(dirname "$0")/.."
EVALFMT=".venv/bin/evalfmt"
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
step evalfmt --version; $EVALFMT --version
