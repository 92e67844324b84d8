#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Single-publish throughput of brokerd over HTTP with each durability setting of the memory store,
# in one run: volatile, then the journal with fsync no, everysec and always. 200-byte messages,
# wrk on loopback. Prints a table with each setting's share of the volatile throughput.
#   DURATION (s, default 10)  CONNECTIONS (default 32)  BUILD_DIR (default build)
set -eu
cd "$(dirname "$0")/.."
. bench/brokerd.sh
build_dir=${BUILD_DIR:-build}
duration=${DURATION:-10}
connections=${CONNECTIONS:-32}

ensure_wrk
ensure_built brokerd

work=$(mktemp -d)
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT INT TERM
key="bench-admin-key-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
printf 'users:\n  bench: {role: admin, api_key: %s}\n' "$key" > "$work/users.yaml"
export BENCH_KEY="$key"

printf '\nbrokerd single publish, %s s per run, %s connections, loopback, journal in %s\n\n' "$duration" "$connections" "$work"
printf '%-22s %10s %10s %10s %12s\n' durability req/s p99_ms x_volatile journal_MB
volatile_rps=
for policy in none no everysec always; do
    rm -f "$work/journal"
    if [ "$policy" = none ]; then journal='{enabled: false}'; else journal="{enabled: true, fsync: $policy}"; fi
    cat > "$work/broker.yaml" <<CONFIG
storage: {memory: {journal: $journal}}
api: {limits: {max_connections: 4096}}
message_broker: {max_queue_size: 100000000}
CONFIG
    start_brokerd
    curl -sf -X POST -H "X-API-Key: $key" -H 'Content-Type: application/json' -d '{"name":"bench"}' "$url/queues" >/dev/null
    wrk -t1 -c"$connections" -d"${duration}s" --latency -s bench/wrk/publish.lua "$url/" > "$work/wrk.txt"
    rps=$(awk '/Requests\/sec/ { printf "%.0f", $2 }' "$work/wrk.txt")
    p99=$(awk 'function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
               $1 == "99%" { printf "%.2f", ms($2) }' "$work/wrk.txt")
    errors=$(awk '/Non-2xx/ { print $5 }' "$work/wrk.txt")
    [ -z "$errors" ] || { echo "non-2xx answers: $errors"; exit 1; }
    [ -n "$volatile_rps" ] || volatile_rps=$rps
    size=0
    [ -f "$work/journal" ] && size=$(stat -c %s "$work/journal")
    awk -v p="$policy" -v r="$rps" -v l="$p99" -v v="$volatile_rps" -v s="$size" \
        'BEGIN { printf "%-22s %10d %10.2f %10.2f %12.1f\n", p, r, l, r / v, s / 1048576 }'
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    pid=
done
