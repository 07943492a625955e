#!/usr/bin/env bash
# Install Debian's headless-capable Chromium for the report browser test (tests/report/test_browser.py).
# Idempotent: does nothing when a chromium is already on the machine. Never fails the CI: when apt is
# unavailable (no apt-get, not root, no network) it says so and exits 0, and the browser test then
# skips with the reason. Called by .ci/run; safe to run by hand.
set -u
if [ -x /usr/bin/chromium ]; then
  echo "ci-chromium: /usr/bin/chromium present ($(/usr/bin/chromium --version 2>/dev/null || echo 'version unknown'))"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ci-chromium: apt-get not found; the report browser test will skip" >&2
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
  else
    echo "ci-chromium: not root and no password-less sudo; the report browser test will skip" >&2
    exit 0
  fi
fi
export DEBIAN_FRONTEND=noninteractive
if $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q --no-install-recommends chromium >/dev/null; then
  echo "ci-chromium: installed $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"
else
  echo "ci-chromium: apt-get could not install chromium; the report browser test will skip" >&2
fi
exit 0
