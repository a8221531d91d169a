#!/usr/bin/env bash
# Builds Jaeger v2 (collector, in-memory storage and query API in one binary) from the Go
# module proxy and caches it outside the clone, keyed by version, so later runs reuse it.
# The tracing integration test (traces/jaeger_test.go) runs against it.
#
# `go install github.com/jaegertracing/jaeger/cmd/jaeger@VERSION` refuses because Jaeger's
# go.mod carries a replace directive, so the binary is built from a small wrapper module
# created in a temporary directory: it requires Jaeger, repeats Jaeger's replace directives
# and starts from Jaeger's go.sum, so the build list is Jaeger's own.
#
# Usage: scripts/jaeger.sh               build if needed (in the foreground), print the path
#        scripts/jaeger.sh --background  start the build in the background and return
#                                        (nothing to do when the binary is cached)
#        scripts/jaeger.sh --wait        wait for a background build, print the path (builds
#                                        in the foreground if none ran or it failed)
#        scripts/jaeger.sh --path        print the cached path without building
# Environment: JAEGER_VERSION (default v1.76.0), XDG_CACHE_HOME (default ~/.cache).
# A cold build takes about 13 minutes on 2 cores (module downloads and compilation).
set -euo pipefail

version=${JAEGER_VERSION:-v1.76.0}
module=github.com/jaegertracing/jaeger
cache=${XDG_CACHE_HOME:-$HOME/.cache}/seastar-sim/jaeger-$version
bin=$cache/jaeger

case "${1:-}" in
--path)
  echo "$bin"; exit 0 ;;
--background)
  [ -x "$bin" ] && exit 0
  mkdir -p "$cache"
  nohup "$0" >"$cache/build.out" 2>"$cache/build.log" </dev/null &
  echo $! >"$cache/build.pid"
  exit 0 ;;
--wait)
  if [ -f "$cache/build.pid" ]; then
    pid=$(cat "$cache/build.pid")
    while kill -0 "$pid" 2>/dev/null; do sleep 2; done
    rm -f "$cache/build.pid"
  fi
  if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
  if [ -s "$cache/build.log" ]; then
    echo "jaeger.sh: the background build failed; building again:" >&2
    tail -20 "$cache/build.log" >&2
  fi
  exec "$0" ;;
"") ;;
*)
  echo "usage: scripts/jaeger.sh [--background|--wait|--path]" >&2; exit 2 ;;
esac

if [ -x "$bin" ]; then
  echo "$bin"; exit 0
fi
mkdir -p "$cache"
work=$(mktemp -d "${TMPDIR:-/tmp}/seastar-jaeger-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

# Jaeger's module (go.mod, go.sum) from the proxy, checked against the checksum database.
dir=$(GOFLAGS=-mod=mod go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [ -z "$dir" ] || [ ! -f "$dir/go.mod" ]; then
  echo "jaeger.sh: cannot download $module@$version from the module proxy" >&2
  exit 1
fi
{
  echo "module seastar-sim/jaeger-build"
  echo
  grep -m1 '^go ' "$dir/go.mod"
  echo
  echo "require $module $version"
  echo
  # Jaeger's replace directives, single-line and block forms.
  awk '
    /^replace[[:space:]]*\(/ { inblock = 1; print; next }
    inblock { print; if ($0 ~ /^\)/) inblock = 0; next }
    /^replace[[:space:]]/ { print }
  ' "$dir/go.mod"
} >go.mod
cp "$dir/go.sum" go.sum
chmod u+w go.sum

# -mod=mod fills in the wrapper's indirect requirements (Jaeger's own build list). No
# debug information (-dwarf=false, -s -w): a cold build takes about 20 % less CPU.
GOFLAGS="-mod=mod -trimpath -buildvcs=false" go build -ldflags="-s -w" -gcflags=all=-dwarf=false \
  -o "$work/jaeger" "$module/cmd/jaeger" >&2
mv "$work/jaeger" "$bin.tmp.$$"
mv "$bin.tmp.$$" "$bin" # atomic: a concurrent build or reader sees all or nothing
echo "$bin"
