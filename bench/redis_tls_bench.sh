#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Publish over the Redis store in clear text and over TLS, in one run, against one redis-server
# that serves both (--port and --tls-port, certificates made here with openssl; appendonly yes,
# appendfsync everysec). brokerd over HTTP, wrk on the same machine: single publish and batch
# publish of 100, 200-byte messages. Prints both and TLS / clear text.
# With valgrind installed, also the instructions brokerd spends per publish (callgrind, one
# keep-alive client, bench/request_loop.py), in clear text and over TLS. BEFORE_BUILD_DIR adds
# the clear-text figures of another build (e.g. one of the commit before a change) to both.
#   DURATION (s, default 10)  CONNECTIONS (default 32)  BUILD_DIR (default build)  COUNT (default 2000)
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
. bench/brokerd.sh
build_dir=${BUILD_DIR:-build}
duration=${DURATION:-10}
connections=${CONNECTIONS:-32}
count=${COUNT:-2000}
before_dir=${BEFORE_BUILD_DIR:-}

ensure_wrk
ensure_built brokerd

work=$(mktemp -d)
pid=
redis_pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    [ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT INT TERM


# A CA and a server certificate for 127.0.0.1 (EC P-256, as tests/support/tlscertificates.h).
(
    cd "$work"
    printf 'basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n' > server.ext
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.crt -days 1 \
        -subj /CN=bench-ca -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign >/dev/null 2>&1
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key -out server.csr \
        -subj /CN=redis >/dev/null 2>&1
    openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 -extfile server.ext \
        -out server.crt >/dev/null 2>&1
)

redis_port=$(free_port)
tls_port=$(free_port)
redis-server --port "$redis_port" --tls-port "$tls_port" --bind 127.0.0.1 --save '' --appendonly yes \
    --appendfsync everysec --tls-cert-file "$work/server.crt" --tls-key-file "$work/server.key" \
    --tls-ca-cert-file "$work/ca.crt" --tls-auth-clients no --dir "$work" --daemonize no >"$work/redis.log" 2>&1 &
redis_pid=$!
until redis-cli -p "$redis_port" ping >/dev/null 2>&1; do sleep 0.05; done

key="bench-admin-key-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
printf 'users:\n  bench: {role: admin, api_key: %s}\n' "$key" > "$work/users.yaml"
export BENCH_KEY="$key"

write_config() { # MODE (plain|tls)
    if [ "$1" = tls ]; then
        redis="{port: $tls_port, tls: true, tls_ca_file: $work/ca.crt, pool_size: 4, spool: false}"
    else
        redis="{port: $redis_port, pool_size: 4, spool: false}"
    fi
    cat > "$work/broker.yaml" <<CONFIG
storage: {backend: redis, redis: $redis}
api: {limits: {max_connections: 4096}}
message_broker: {max_queue_size: 100000000}
CONFIG
}

wrk_run() { # SCRIPT -> "req/s p99_ms"
    wrk -t1 -c"$connections" -d"${duration}s" --latency -s "bench/wrk/$1" "$url/" > "$work/wrk.txt"
    errors=$(awk '/Non-2xx/ { print $5 }' "$work/wrk.txt")
    [ -z "$errors" ] || { echo "non-2xx answers: $errors" >&2; exit 1; }
    awk 'function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
         /Requests\/sec/ { r = $2 } $1 == "99%" { p = ms($2) } END { printf "%.0f %.2f\n", r, p }' "$work/wrk.txt"
}

create_queues() {
    for queue in bench batch; do
        curl -sf -X POST -H "X-API-Key: $key" -H 'Content-Type: application/json' -d "{\"name\":\"$queue\"}" \
            "$url/queues" >/dev/null
    done
}

printf '\nbrokerd on Redis (%s) in clear text and over TLS, %s s per run, %s connections, loopback\n\n' \
    "$(redis-server --version | awk '{ print $3 }')" "$duration" "$connections"
: > "$work/results.txt"
modes="plain tls"
[ -n "$before_dir" ] && modes="before $modes"
this_build=$build_dir
for mode in $modes; do
    if [ "$mode" = before ]; then build_dir=$before_dir; write_config plain; else build_dir=$this_build; write_config "$mode"; fi
    redis-cli -p "$redis_port" flushall >/dev/null
    start_brokerd
    create_queues
    set -- $(wrk_run publish.lua)
    echo "$mode publish $1 $1 $2" >> "$work/results.txt"
    set -- $(BENCH_QUEUE=batch wrk_run batch.lua)
    echo "$mode batch_publish_100 $1 $(( $1 * 100 )) $2" >> "$work/results.txt"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    pid=
done
build_dir=$this_build
printf '%-6s %-18s %12s %12s %10s\n' mode scenario req/s msg/s p99_ms
awk '{ printf "%-6s %-18s %12s %12s %10s\n", $1, $2, $3, $4, $5 }' "$work/results.txt"
printf '\nTLS / clear text (msg/s):'
awk '$1 == "plain" { p[$2] = $4 } $1 == "tls" { t[$2] = $4 }
     END { for (s in p) printf "  %s %.2f", s, t[s] / p[s]; printf "   (goal >= 0.70)\n" }' "$work/results.txt"
if [ -n "$before_dir" ]; then
    printf 'clear text, this build / before (msg/s):'
    awk '$1 == "plain" { p[$2] = $4 } $1 == "before" { b[$2] = $4 }
         END { for (s in p) printf "  %s %.2f", s, p[s] / b[s]; printf "\n" }' "$work/results.txt"
fi

command -v valgrind >/dev/null 2>&1 && command -v callgrind_control >/dev/null 2>&1 || exit 0
# Instructions per publish in brokerd (all threads), after 200 publishes of warm-up.
instructions() { # BROKERD MODE -> instructions per publish
    write_config "$2"
    redis-cli -p "$redis_port" flushall >/dev/null
    bport=$(free_port)
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out.%p" --dump-line=no \
        "$1" --config "$work/broker.yaml" --users "$work/users.yaml" --port "$bport" >/dev/null 2>"$work/cg.log" &
    pid=$!
    tries=0
    # Ready, not only live: the store's connections are up (under callgrind that takes a while).
    until curl -sf -o /dev/null "http://127.0.0.1:$bport/health/ready"; do
        tries=$((tries + 1)); [ "$tries" -lt 600 ] || { cat "$work/cg.log"; exit 1; }
        sleep 0.1
    done
    curl -sf -X POST -H "X-API-Key: $key" -H 'Content-Type: application/json' -d '{"name":"bench"}' \
        "http://127.0.0.1:$bport/queues" >/dev/null
    python3 "$root/bench/request_loop.py" "$bport" publish 200 "$key"
    rm -f "$work"/callgrind.out."$pid".*
    callgrind_control -z "$pid" >/dev/null
    python3 "$root/bench/request_loop.py" "$bport" publish "$count" "$key"
    callgrind_control -d "$pid" >/dev/null
    ir=$(cat "$work"/callgrind.out."$pid".* | awk '/^totals:/ { ir += $2 } END { print ir + 0 }')
    kill "$pid"; wait "$pid" 2>/dev/null || true
    pid=
    awk -v ir="$ir" -v n="$count" 'BEGIN { printf "%.0f", ir / n }'
}
printf '\nInstructions per publish in brokerd (callgrind, %s publishes, one keep-alive client)\n' "$count"
if [ -n "$before_dir" ]; then
    printf '  %-34s %10s\n' "clear text, $before_dir" "$(instructions "$before_dir/app/brokerd" plain)"
fi
printf '  %-34s %10s\n' "clear text, $build_dir" "$(instructions "$build_dir/app/brokerd" plain)"
printf '  %-34s %10s\n' "TLS, $build_dir" "$(instructions "$build_dir/app/brokerd" tls)"
