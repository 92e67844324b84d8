#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# brokerd on one redis-server against brokerd on a 6-node Redis Cluster (3 primaries, 3
# replicas), in one run on the same machine: single publishes of 200-byte messages with wrk, by
#   1 brokerd on one redis-server,
#   1 brokerd on the cluster,
#   3 brokerd on the cluster at once (one wrk each, on a queue of its own, the connections split).
# Every server is started here on free loopback ports and stopped by its PID. Prints req/s per
# setup and the ratios. On a machine with few cores every process shares them: the figures show
# what the cluster costs per request, not how far it scales.
#   DURATION (s, default 10)  CONNECTIONS (default 30)  BUILD_DIR (default build)
set -eu
cd "$(dirname "$0")/.."
. bench/brokerd.sh
build_dir=${BUILD_DIR:-build}
duration=${DURATION:-10}
connections=${CONNECTIONS:-30}

ensure_wrk
ensure_built brokerd

work=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    for p in $pids; do wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

start_redis() { # DIR PORT [ARGS...]
    dir=$1 port=$2
    shift 2
    mkdir -p "$dir"
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --daemonize no "$@" \
        >"$dir/redis.log" 2>&1 &
    pids="$pids $!"
    until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.05; done
}

single_port=$(free_port)
start_redis "$work/single" "$single_port"
nodes=""
for i in 1 2 3 4 5 6; do
    port=$(free_port)
    start_redis "$work/node$i" "$port" --cluster-enabled yes --cluster-config-file nodes.conf \
        --cluster-port "$(free_port)" --cluster-node-timeout 2000
    nodes="$nodes 127.0.0.1:$port"
done
# shellcheck disable=SC2086 # one argument per node
redis-cli --cluster create $nodes --cluster-replicas 1 --cluster-yes >"$work/create.log" 2>&1
first=$(echo "$nodes" | awk '{ print $1 }' | cut -d: -f2)
until redis-cli -p "$first" cluster info | grep -q cluster_state:ok; do sleep 0.1; done
sleep 1 # the other nodes agree too
node_list=$(echo "$nodes" | awk '{ for (i = 1; i <= NF; i++) printf "%s\"%s\"", (i > 1 ? ", " : ""), $i }')

key="bench-admin-key-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
printf 'users:\n  bench: {role: admin, api_key: %s}\n' "$key" > "$work/users.yaml"
export BENCH_KEY="$key"

# start_broker NAME CONFIG: a brokerd with its own config and log; sets `broker_pid` and `url`.
start_broker() {
    mkdir -p "$work/$1"
    printf '%s\n' "$2" > "$work/$1/broker.yaml"
    start_brokerd "$work/$1"
    broker_pid=$pid
    pids="$pids $broker_pid"
}
stop_brokers() { # the brokerd started since the last call (servers stay)
    for p in $broker_pids; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    broker_pids=""
}
make_queue() { # URL NAME
    curl -sf -X POST -H "X-API-Key: $key" -H 'Content-Type: application/json' -d "{\"name\":\"$2\"}" "$1/queues" >/dev/null
}
wrk_publish() { # URL QUEUE CONNECTIONS OUT
    BENCH_QUEUE=$2 wrk -t1 -c"$3" -d"${duration}s" -s bench/wrk/publish.lua "$1/" > "$4"
}
rate() { awk '/Requests\/sec/ { printf "%.0f", $2 }' "$1"; }
errors() { awk '/Non-2xx/ { print $5 }' "$1"; }

single_config="storage: {backend: redis, redis: {port: $single_port, pool_size: 4, spool: false}}
api: {limits: {max_connections: 4096}}
message_broker: {max_queue_size: 100000000}"
cluster_config="storage: {backend: redis, redis: {nodes: [$node_list], pool_size: 2, spool: false}}
api: {limits: {max_connections: 4096}}
message_broker: {max_queue_size: 100000000}"

printf '\nbrokerd on one redis-server and on a 6-node cluster (%s), %s s per run, %s connections in all, loopback, %s cores\n\n' \
    "$(redis-server --version | awk '{ print $3 }')" "$duration" "$connections" "$(nproc)"
broker_pids=""

start_broker one "$single_config"
broker_pids="$broker_pid"
make_queue "$url" bench
wrk_publish "$url" bench "$connections" "$work/one.txt"
stop_brokers
[ -z "$(errors "$work/one.txt")" ] || { echo "non-2xx answers on one server" >&2; exit 1; }
one=$(rate "$work/one.txt")

start_broker cluster1 "$cluster_config"
broker_pids="$broker_pid"
make_queue "$url" bench1
wrk_publish "$url" bench1 "$connections" "$work/cluster1.txt"
stop_brokers
[ -z "$(errors "$work/cluster1.txt")" ] || { echo "non-2xx answers on the cluster" >&2; exit 1; }
cluster1=$(rate "$work/cluster1.txt")

urls=""
for i in 1 2 3; do
    start_broker "cluster3-$i" "$cluster_config"
    broker_pids="$broker_pids $broker_pid"
    make_queue "$url" "spread$i"
    urls="$urls $url"
done
share=$(( connections / 3 ))
i=0
wrk_pids=""
for u in $urls; do
    i=$((i + 1))
    wrk_publish "$u" "spread$i" "$share" "$work/cluster3-$i.txt" &
    wrk_pids="$wrk_pids $!"
done
for p in $wrk_pids; do wait "$p"; done
stop_brokers
cluster3=0
for i in 1 2 3; do
    [ -z "$(errors "$work/cluster3-$i.txt")" ] || { echo "non-2xx answers from broker $i" >&2; exit 1; }
    cluster3=$((cluster3 + $(rate "$work/cluster3-$i.txt")))
done

printf '%-34s %10s\n' setup req/s
printf '%-34s %10s\n' "1 brokerd, one redis-server" "$one"
printf '%-34s %10s\n' "1 brokerd, 6-node cluster" "$cluster1"
printf '%-34s %10s\n' "3 brokerd, 6-node cluster" "$cluster3"
awk -v a="$one" -v b="$cluster1" -v c="$cluster3" \
    'BEGIN { printf "\ncluster(1) / one server: %.2f   cluster(3) / one server: %.2f   cluster(3) / cluster(1): %.2f\n", b / a, c / a, c / b }'
