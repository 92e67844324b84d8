#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# brokerd over HTTP on the memory store and on the Redis store, in one run and on the same
# machine: single publish, batch publish of 100 messages, and publish -> lease -> ack round trips
# (bench/roundtrip_client). Redis is a redis-server this script starts on a free loopback port
# (appendonly yes, appendfsync everysec: Redis's usual durable setting). 200-byte messages.
# Prints a table with Redis's share of the memory store's throughput. When webdis is installed
# (Debian: webdis, a C HTTP front of Redis), its LPUSH of a 200-byte value on the same
# redis-server is measured by the same wrk in the same run: the peer of a publish on Redis.
#   DURATION (s, default 10)  CONNECTIONS (default 32)  BUILD_DIR (default build)
set -eu
cd "$(dirname "$0")/.."
. bench/brokerd.sh
build_dir=${BUILD_DIR:-build}
duration=${DURATION:-10}
connections=${CONNECTIONS:-32}

ensure_wrk
ensure_built brokerd roundtrip_client

work=$(mktemp -d)
pid=
redis_pid=
webdis_pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    [ -n "$webdis_pid" ] && kill "$webdis_pid" 2>/dev/null && wait "$webdis_pid" 2>/dev/null
    [ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly yes --appendfsync everysec \
    --dir "$work" --daemonize no >"$work/redis.log" 2>&1 &
redis_pid=$!
until redis-cli -p "$redis_port" ping >/dev/null 2>&1; do sleep 0.05; done

key="bench-admin-key-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
printf 'users:\n  bench: {role: admin, api_key: %s}\n' "$key" > "$work/users.yaml"
export BENCH_KEY="$key"

wrk_run() { # SCRIPT [URL] -> "req/s p99_ms"; no SCRIPT (""): GET of the URL
    if [ -n "$1" ]; then
        wrk -t1 -c"$connections" -d"${duration}s" --latency -s "bench/wrk/$1" "${2:-$url/}" > "$work/wrk.txt"
    else
        wrk -t1 -c"$connections" -d"${duration}s" --latency "$2" > "$work/wrk.txt"
    fi
    errors=$(awk '/Non-2xx/ { print $5 }' "$work/wrk.txt")
    [ -z "$errors" ] || { echo "non-2xx answers: $errors" >&2; exit 1; }
    awk 'function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
         /Requests\/sec/ { r = $2 } $1 == "99%" { p = ms($2) } END { printf "%.0f %.2f\n", r, p }' "$work/wrk.txt"
}

printf '\nbrokerd on memory and on Redis (%s), %s s per run, %s connections, loopback\n\n' \
    "$(redis-server --version | awk '{ print $3 }')" "$duration" "$connections"
printf '%-8s %-16s %12s %12s %10s\n' backend scenario req/s msg/s p99_ms
: > "$work/results.txt"
for backend in memory redis; do
    cat > "$work/broker.yaml" <<CONFIG
storage: {backend: $backend, redis: {port: $redis_port, pool_size: 4, spool: false}}
api: {limits: {max_connections: 4096}}
message_broker: {max_queue_size: 100000000}
CONFIG
    redis-cli -p "$redis_port" flushall >/dev/null
    start_brokerd
    until curl -sf -o /dev/null "$url/health/ready"; do sleep 0.05; done
    for queue in bench batch roundtrip; do
        curl -sf -X POST -H "X-API-Key: $key" -H 'Content-Type: application/json' -d "{\"name\":\"$queue\"}" \
            "$url/queues" >/dev/null
    done
    set -- $(wrk_run publish.lua)
    echo "$backend publish $1 $1 $2" >> "$work/results.txt"
    set -- $(BENCH_QUEUE=batch wrk_run batch.lua)
    echo "$backend batch_publish_100 $1 $(( $1 * 100 )) $2" >> "$work/results.txt"
    "$build_dir/bench/roundtrip_client" "$port" "$key" roundtrip "$connections" "$duration" \
        | awk -v b="$backend" '{ printf "%s lease_ack_trip %s %s %s\n", b, $2, $2, $4 }' >> "$work/results.txt"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    pid=
done
webdis_pid=
if command -v webdis >/dev/null 2>&1; then
    wport=$(free_port)
    printf '{"redis_host":"127.0.0.1","redis_port":%s,"http_host":"127.0.0.1","http_port":%s,"threads":1,"pool_size":4,"daemonize":false,"verbosity":0,"logfile":"%s/webdis.log"}\n' \
        "$redis_port" "$wport" "$work" > "$work/webdis.json"
    webdis "$work/webdis.json" >/dev/null 2>&1 &
    webdis_pid=$!
    tries=0
    until curl -sf -o /dev/null "http://127.0.0.1:$wport/PING"; do
        tries=$((tries + 1)); [ "$tries" -lt 100 ] || { echo "webdis did not start"; exit 1; }; sleep 0.1
    done
    set -- $(wrk_run "" "http://127.0.0.1:$wport/LPUSH/webdis/$(printf 'x%.0s' $(seq 200))")
    echo "webdis lpush $1 $1 $2" >> "$work/results.txt"
    kill "$webdis_pid"
    wait "$webdis_pid" 2>/dev/null || true
    webdis_pid=
fi
awk '{ printf "%-8s %-16s %12s %12s %10s\n", $1, $2, $3, $4, $5 }' "$work/results.txt"
printf '\nRedis / memory (msg/s):'
awk '$1 == "memory" { m[$2] = $4 } $1 == "redis" { r[$2] = $4 }
     END { for (s in m) printf "  %s %.2f", s, r[s] / m[s]; printf "\n" }' "$work/results.txt"
if grep -q '^webdis ' "$work/results.txt"; then
    printf 'Redis publish / webdis LPUSH (req/s): %s\n' \
        "$(awk '$1 == "redis" && $2 == "publish" { p = $3 } $1 == "webdis" { w = $3 } END { printf "%.2f", p / w }' "$work/results.txt")"
fi
