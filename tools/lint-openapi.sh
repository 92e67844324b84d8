#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Lints the OpenAPI document brokerd serves with Redocly's recommended rules (pinned in
# tools/openapi/package-lock.json); any error or warning fails.
#
#   tools/lint-openapi.sh BROKERD [NODE_DIR]
#
# Starts BROKERD on a free loopback port (memory store, a throwaway users file), fetches
# GET /openapi.json into a temporary file, stops brokerd by its PID, and lints the file. The
# pinned CLI is installed with `npm ci` into NODE_DIR (default: build-tests/openapi-lint) unless
# it is there already. Exits 77 (skipped) only when npx is missing.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
brokerd=${1:?usage: tools/lint-openapi.sh BROKERD [NODE_DIR]}
node_dir=${OPENAPI_NODE_DIR:-${2:-$root/build-tests/openapi-lint}}

if ! command -v npx >/dev/null 2>&1; then
    echo "SKIP: npx is not installed (Debian: apt-get install nodejs npm)"
    exit 77
fi

# The pinned CLI, installed again only when the lock file changed.
mkdir -p "$node_dir"
if ! cmp -s "$root/tools/openapi/package-lock.json" "$node_dir/package-lock.json" \
    || [ ! -x "$node_dir/node_modules/.bin/redocly" ]; then
    cp "$root/tools/openapi/package.json" "$root/tools/openapi/package-lock.json" "$node_dir/"
    (cd "$node_dir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
fi

work=$(mktemp -d)
pid=""
cleanup() {
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

key=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
printf 'users:\n  lint:\n    role: admin\n    api_key: %s\n' "$key" >"$work/users.yaml"
chmod 600 "$work/users.yaml"
printf 'storage:\n  backend: memory\napi:\n  bind: 127.0.0.1\n  port: 0\nsecurity:\n  users_file: users.yaml\n' \
    >"$work/message_broker.yaml"

: >"$work/brokerd.log"
"$brokerd" --config "$work/message_broker.yaml" --port 0 >"$work/brokerd.log" 2>&1 &
pid=$!
url=""
tries=0
while [ -z "$url" ] && [ "$tries" -lt 100 ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "brokerd exited before it listened:" >&2
        cat "$work/brokerd.log" >&2
        exit 1
    fi
    url=$(sed -n 's|.*listening on \(http://[0-9.]*:[0-9]*\).*|\1|p' "$work/brokerd.log" | head -n 1)
    [ -n "$url" ] || sleep 0.1
    tries=$((tries + 1))
done
if [ -z "$url" ]; then
    echo "brokerd did not listen within 10 s:" >&2
    cat "$work/brokerd.log" >&2
    exit 1
fi
curl -fsS --max-time 10 "$url/openapi.json" -o "$work/openapi.json"
kill "$pid"
wait "$pid" 2>/dev/null || true
pid=""

start=$(date +%s%N)
status=0
(cd "$node_dir" && REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
    npx --no-install redocly lint --config "$root/tools/openapi/redocly.yaml" --max-problems 200 \
    "$work/openapi.json") >"$work/lint.txt" 2>&1 || status=$?
end=$(date +%s%N)
cat "$work/lint.txt"
echo "lint took $(( (end - start) / 1000000 )) ms"
# `redocly lint` fails on errors only; a warning fails here as well.
if [ "$status" -eq 0 ] && grep -Eqi '[0-9]+ warnings?' "$work/lint.txt"; then
    echo "the document has lint warnings" >&2
    status=1
fi
exit "$status"
