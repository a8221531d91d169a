#!/usr/bin/env bash
# Builds Jaeger v2 (the all-in-one collector + query binary) from the Go module proxy and
# caches it outside the clone, keyed by version, so later runs reuse it. Prints the binary's
# path on stdout. The tracing integration test (traces/jaeger_test.go) runs against it.
#
# `go install github.com/jaegertracing/jaeger/cmd/jaeger@VERSION` refuses because Jaeger's
# go.mod carries a replace directive, so the binary is built from a small wrapper module
# created in a temporary directory: it requires Jaeger, repeats Jaeger's replace directives
# and starts from Jaeger's go.sum, so the build list is Jaeger's own.
#
# Usage: scripts/jaeger.sh            build if needed, print the path
#        scripts/jaeger.sh --path     print the cached path without building
# Environment: JAEGER_VERSION (default v1.76.0), XDG_CACHE_HOME (default ~/.cache).
# Measured: about 13 minutes on 2 cores for a cold build (module downloads + compile).
set -euo pipefail

version=${JAEGER_VERSION:-v1.76.0}
module=github.com/jaegertracing/jaeger
cache=${XDG_CACHE_HOME:-$HOME/.cache}/seastar-sim/jaeger-$version
bin=$cache/jaeger

if [ "${1:-}" = "--path" ]; then
  echo "$bin"; exit 0
fi
if [ -x "$bin" ]; then
  echo "$bin"; exit 0
fi

mkdir -p "$cache"
# One build at a time: a second caller waits for the first and reuses its binary.
exec 9>"$cache/.lock"
flock 9
if [ -x "$bin" ]; then
  echo "$bin"; exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/seastar-jaeger-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

# Jaeger's module (go.mod, go.sum) from the proxy, checked against the checksum database.
dir=$(GOFLAGS=-mod=mod go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [ -z "$dir" ] || [ ! -f "$dir/go.mod" ]; then
  echo "jaeger.sh: cannot download $module@$version from the module proxy" >&2
  exit 1
fi
goline=$(grep -m1 '^go ' "$dir/go.mod")
{
  echo "module seastar-sim/jaeger-build"
  echo
  echo "$goline"
  echo
  echo "require $module $version"
  echo
  # Jaeger's replace directives, single-line and block forms.
  awk '
    /^replace[[:space:]]*\(/ { inblock = 1; print; next }
    inblock { print; if ($0 ~ /^\)/) inblock = 0; next }
    /^replace[[:space:]]/ { print }
  ' "$dir/go.mod"
} > go.mod
cp "$dir/go.sum" go.sum
chmod u+w go.sum

# -mod=mod fills in the wrapper's indirect requirements (Jaeger's own build list).
GOFLAGS="-mod=mod -trimpath -buildvcs=false" GOTOOLCHAIN=${GOTOOLCHAIN:-local} \
  go build -o "$work/jaeger" "$module/cmd/jaeger" >&2
mv "$work/jaeger" "$bin.tmp"
mv "$bin.tmp" "$bin"
echo "$bin"
