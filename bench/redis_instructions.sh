#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# What one request costs on the Redis store, in instructions (callgrind; they do not move with the
# machine's load), in brokerd and in Redis, on one redis-server and on a cluster of 3 primaries
# (no replicas, so that every node's work is counted): single publish, consume (of what was
# published before), batch publish of 100. Every process runs under callgrind; the counters are
# zeroed before and dumped after the measured requests (one keep-alive client,
# bench/request_loop.py). On the cluster the Redis figure is the sum over the three nodes
# (their cluster bus included). concurrent_publish: the same publishes from PARALLEL (default 16)
# clients at once, where the store sends a queue's publishes that wait for a call on their way
# together (group commit).
#   COUNT (default 1000)  WARMUP (default 100)  BUILD_DIR (default build)
#   SETUPS (default "one_server cluster"): which setups run
#   PROFILE_DIR: where the measured requests' callgrind profiles are kept, for callgrind_annotate
#   (callgrind.<setup>.<scenario>.<brokerd|redis>.<pid>)
set -eu
cd "$(dirname "$0")/.."
. bench/brokerd.sh
root=$(pwd)
build_dir=${BUILD_DIR:-build}
count=${COUNT:-1000}
warmup=${WARMUP:-100}
client="python3 $root/bench/request_loop.py"
parallel=${PARALLEL:-16}
count=$((count / parallel * parallel)) # concurrent_publish splits COUNT evenly over its clients
for tool in valgrind callgrind_control python3 curl redis-server redis-cli; do
    command -v "$tool" >/dev/null 2>&1 || { echo "redis_instructions.sh needs $tool"; exit 1; }
done
ensure_built brokerd

work=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    for p in $pids; do wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

under_callgrind() { # LOG PROGRAM ARGS...: starts it in the background, sets `started`
    log=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out.%p" --dump-line=no "$@" >"$log" 2>&1 &
    started=$!
    pids="$pids $started"
}
start_redis() { # PORT ARGS...: sets `redis_pid`
    port=$1
    shift
    dir="$work/redis-$port"
    mkdir -p "$dir"
    under_callgrind "$dir/log" redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
        --daemonize no "$@"
    redis_pid=$started
    until redis-cli -p "$port" ping >/dev/null 2>&1; do kill -0 "$redis_pid" || exit 1; sleep 0.1; done
}
dumped_ir() { cat "$work"/callgrind.out."$1".* 2>/dev/null | awk '/^totals:/ { ir += $2 } END { print ir + 0 }'; }

key="bench-admin-key-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
printf 'users:\n  bench: {role: admin, api_key: %s}\n' "$key" > "$work/users.yaml"
results="$work/results.txt"
: > "$results"

# Runs SCENARIO as PARALLEL clients at once, COUNT requests in all: concurrent_publish (publish).
# run_clients PORT SCENARIO COUNT
run_clients() {
    case "$2" in
    concurrent_publish)
        client_pids=""
        for _ in $(seq "$parallel"); do
            $client "$1" publish $(($3 / parallel)) "$key" &
            client_pids="$client_pids $!"
        done
        for p in $client_pids; do wait "$p" || exit 1; done
        ;;
    *) $client "$1" "$2" "$3" "$key" ;;
    esac
}

# measure SETUP BROKER_PID REDIS_PIDS PORT SCENARIO PER_LOOP
measure() {
    setup=$1 bpid=$2 rpids=$3 bport=$4 scenario=$5 per=$6
    run_clients "$bport" "$scenario" "$warmup"
    for p in $bpid $rpids; do rm -f "$work"/callgrind.out."$p".*; callgrind_control -z "$p" >/dev/null; done
    run_clients "$bport" "$scenario" "$count"
    for p in $bpid $rpids; do callgrind_control -d "$p" >/dev/null; done
    if [ -n "${PROFILE_DIR:-}" ]; then
        mkdir -p "$PROFILE_DIR"
        for f in "$work"/callgrind.out."$bpid".*; do cp "$f" "$PROFILE_DIR/callgrind.$setup.$scenario.brokerd.$bpid"; done
        for p in $rpids; do
            for f in "$work"/callgrind.out."$p".*; do cp "$f" "$PROFILE_DIR/callgrind.$setup.$scenario.redis.$p"; done
        done
    fi
    redis_ir=0
    for p in $rpids; do redis_ir=$((redis_ir + $(dumped_ir "$p"))); done
    echo "$setup $scenario $(dumped_ir "$bpid") $redis_ir $((count * per))" >> "$results"
}

run_setup() { # SETUP STORAGE_YAML REDIS_PIDS
    printf 'storage: {backend: redis, redis: %s}\nmessage_broker: {max_queue_size: 100000000}\n' "$2" > "$work/broker.yaml"
    bport=$(free_port)
    under_callgrind "$work/brokerd-$1.log" "$build_dir/app/brokerd" --config "$work/broker.yaml" --users "$work/users.yaml" \
        --port "$bport"
    bpid=$started
    tries=0
    # Ready, not only live: the store's connections are up (under callgrind that takes a while).
    until curl -sf -o /dev/null "http://127.0.0.1:$bport/health/ready"; do
        kill -0 "$bpid" 2>/dev/null || { cat "$work/brokerd-$1.log"; exit 1; }
        tries=$((tries + 1)); [ "$tries" -lt 600 ] || { echo "brokerd never answered"; exit 1; }
        sleep 0.1
    done
    curl -sf -X POST -H "X-API-Key: $key" -H 'Content-Type: application/json' -d '{"name":"bench"}' \
        "http://127.0.0.1:$bport/queues" >/dev/null
    measure "$1" "$bpid" "$3" "$bport" publish 1
    measure "$1" "$bpid" "$3" "$bport" concurrent_publish 1
    $client "$bport" fill $((count + warmup)) "$key"
    measure "$1" "$bpid" "$3" "$bport" consume 1
    measure "$1" "$bpid" "$3" "$bport" batch 100
    kill "$bpid"; wait "$bpid" 2>/dev/null || true
}

setups=${SETUPS:-one_server cluster}
case " $setups " in *" one_server "*)
    single_port=$(free_port)
    start_redis "$single_port"
    run_setup one_server "{port: $single_port, pool_size: 1, spool: false}" "$redis_pid"
    ;;
esac

case " $setups " in *" cluster "*)
    nodes="" node_pids=""
    for i in 1 2 3; do
        port=$(free_port)
        start_redis "$port" --cluster-enabled yes --cluster-config-file nodes.conf --cluster-port "$(free_port)" \
            --cluster-node-timeout 15000
        nodes="$nodes 127.0.0.1:$port"
        node_pids="$node_pids $redis_pid"
    done
    # shellcheck disable=SC2086 # one argument per node
    redis-cli --cluster create $nodes --cluster-yes >"$work/create.log" 2>&1
    first=$(echo "$nodes" | awk '{ print $1 }' | cut -d: -f2)
    until redis-cli -p "$first" cluster info | grep -q cluster_state:ok; do sleep 0.2; done
    sleep 2
    node_list=$(echo "$nodes" | awk '{ for (i = 1; i <= NF; i++) printf "%s\"%s\"", (i > 1 ? ", " : ""), $i }')
    run_setup cluster "{nodes: [$node_list], pool_size: 1, spool: false}" "$node_pids"
    ;;
esac

printf '\nInstructions per message on the Redis store (%s), %s requests per scenario after %s of warm-up\n\n' \
    "$(redis-server --version | awk '{ print $3 }')" "$count" "$warmup"
printf '%-11s %-9s %12s %12s %12s\n' setup scenario brokerd redis total
awk '{ b = $3 / $5; r = $4 / $5; printf "%-11s %-9s %12.0f %12.0f %12.0f\n", $1, $2, b, r, b + r }' "$results"
