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
  install=""; nodeps=""
  for spec in $specs; do
    case "$spec" in
      nodeps:*) nodeps="$nodeps ${spec#nodeps:}" ;;
      *) install="$install $spec" ;;
    esac
  done
  # shellcheck disable=SC2086
  [ -z "$install" ] || npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error $install >&2
  # "nodeps:<package>@<version>": the package alone, unpacked without its dependencies (e.g. only for its
  # type declarations, when its dependency tree is large)
  for pkg in $nodeps; do
    name="${pkg%@*}"
    tarball=$(cd "$prefix" && npm pack --silent "$pkg" </dev/null)
    rm -rf "${prefix:?}/node_modules/$name" && mkdir -p "$prefix/node_modules/$name"
    tar xzf "$prefix/$tarball" -C "$prefix/node_modules/$name" --strip-components=1
    rm -f "${prefix:?}/$tarball"
  done
  echo "$specs" > "$stamp"
done < "$PACKAGES_FILE"
