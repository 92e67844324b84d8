#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# HTTP benchmark of brokerd on the memory store, on loopback. Builds if needed, installs wrk if
# missing, starts brokerd on a free port, and measures in one run: the /health/live baseline,
# single publish (200-byte JSON body), consume (acknowledge=true), publish -> lease -> ack round
# trips, batch publish of 100 messages, server memory, time to ready, and GET /queues with
# 10,000 queues. When webdis and redis-server are installed (Debian: webdis), the same wrk runs
# webdis (one thread, its own redis-server) in the same script: LPUSH and RPOP of a 200-byte
# value, the peers of publish and consume. Publish and batch run once more on a brokerd with glibc's
# heap on transparent huge pages (brokerd(8)). Prints a table, the ratios within this run, and
# writes JSON (bench/results/http.json by default).
# The round trip is driven by bench/roundtrip_client (wrk's Lua cannot keep state per connection);
# its req/s column counts round trips (three requests each).
#   DURATION (s, default 10)  CONNECTIONS (default 32)  THREADS (wrk threads, default 1)
#   BUILD_DIR (default build)  OUT (JSON file)
set -eu
cd "$(dirname "$0")/.."
. bench/brokerd.sh
root=$(pwd)
build_dir=${BUILD_DIR:-build}
duration=${DURATION:-10}
connections=${CONNECTIONS:-32}
threads=${THREADS:-1}
out=${OUT:-$root/bench/results/http.json}

tools/install-build-deps.sh
ensure_wrk
ensure_built brokerd roundtrip_client

work=$(mktemp -d)
pid=
peer_pids=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    for p in $peer_pids; do kill "$p" 2>/dev/null || true; done
    for p in $peer_pids; do wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

key="bench-admin-key-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
cat > "$work/users.yaml" <<USERS
users:
  bench: {role: admin, api_key: $key}
USERS
cat > "$work/broker.yaml" <<CONFIG
api:
  limits: {max_connections: 4096}
message_broker: {max_queue_size: 100000000}
CONFIG

rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
now_ns() { date +%s%N; }

start=$(now_ns)
start_brokerd
until curl -sf "$url/health/live" >/dev/null; do :; done
ready_ms=$(( ($(now_ns) - start) / 1000000 ))
sleep 0.5
idle_rss=$(rss_kb "$pid")

api() { curl -sf -X "$1" -H "X-API-Key: $key" -H 'Content-Type: application/json' ${3:+-d "$3"} "$url$2" >/dev/null; }
api POST /queues '{"name":"bench"}'
api POST /queues '{"name":"roundtrip"}'
api POST /queues '{"name":"batch"}'

export BENCH_KEY="$key"
results="$work/results.txt"
: > "$results"
# run NAME SCRIPT MESSAGES_PER_REQUEST [PATH [BASE_URL]]
run() {
    name=$1 script=$2 per=$3 path=${4:-/} base=${5:-$url}
    if [ -n "$script" ]; then
        wrk -t"$threads" -c"$connections" -d"${duration}s" --latency -s "bench/wrk/$script" "$base$path" > "$work/$name.txt"
    else
        wrk -t"$threads" -c"$connections" -d"${duration}s" --latency "$base$path" > "$work/$name.txt"
    fi
    awk -v name="$name" -v per="$per" '
        function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
        /Requests\/sec/ { rps = $2 }
        $1 == "50%" { p50 = ms($2) }
        $1 == "99%" { p99 = ms($2) }
        /Non-2xx/ { errors = $5 }
        END { printf "%s %.0f %.0f %.3f %.3f %d\n", name, rps, rps * per, p50, p99, errors }' "$work/$name.txt" >> "$results"
}

run health_live "" 1 /health/live
run publish publish.lua 1
run consume consume.lua 1
# The round trip needs state per connection, which wrk's Lua does not have: our own client.
"$build_dir/bench/roundtrip_client" "$port" "$key" roundtrip "$connections" "$duration" \
    | awk '{ printf "%s %s %s %s %s %s\n", $1, $2, $2, $3, $4, $5 }' >> "$results"
run batch_publish batch.lua 100
busy_rss=$(rss_kb "$pid")

# The peer: webdis (a C HTTP front of Redis), measured by the same wrk in this run.
if command -v webdis >/dev/null 2>&1 && command -v redis-server >/dev/null 2>&1; then
    rport=$(free_port)
    redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >/dev/null &
    peer_pids="$peer_pids $!"
    tries=0
    until redis-cli -p "$rport" ping >/dev/null 2>&1; do
        tries=$((tries + 1)); [ "$tries" -lt 100 ] || { echo "redis-server did not start"; exit 1; }; sleep 0.1
    done
    wport=$(free_port)
    printf '{"redis_host":"127.0.0.1","redis_port":%s,"http_host":"127.0.0.1","http_port":%s,"threads":1,"pool_size":1,"daemonize":false,"verbosity":0,"logfile":"%s/webdis.log"}\n' \
        "$rport" "$wport" "$work" > "$work/webdis.json"
    webdis "$work/webdis.json" >/dev/null 2>&1 &
    peer_pids="$peer_pids $!"
    tries=0
    until curl -sf "http://127.0.0.1:$wport/PING" >/dev/null; do
        tries=$((tries + 1)); [ "$tries" -lt 100 ] || { echo "webdis did not start"; exit 1; }; sleep 0.1
    done
    value=$(printf 'x%.0s' $(seq 200))
    run webdis_lpush "" 1 "/LPUSH/bench/$value" "http://127.0.0.1:$wport"
    run webdis_rpop "" 1 /RPOP/bench "http://127.0.0.1:$wport"
fi

# glibc's heap on transparent huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1; it matters where
# the kernel's THP mode is `madvise`), not brokerd's default: publish and batch again, on a second
# brokerd, in this run (docs/rest.md, "Huge pages for the heap").
thp_mode=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || true)
main_pid=$pid main_url=$url main_port=$port
mkdir -p "$work/hugetlb"
cp "$work/broker.yaml" "$work/hugetlb/"
BROKERD_ENV=GLIBC_TUNABLES=glibc.malloc.hugetlb=1 start_brokerd "$work/hugetlb"
peer_pids="$peer_pids $pid"
until curl -sf "$url/health/live" >/dev/null; do :; done
api POST /queues '{"name":"bench"}'
run publish_hugetlb publish.lua 1 / "$url"
run batch_hugetlb batch.lua 100 / "$url"
kill "$pid"; wait "$pid" 2>/dev/null || true
pid=$main_pid url=$main_url port=$main_port

# A 500 MiB upload, with Content-Length and chunked: refused, without the server growing by
# more than a fraction of the body limit.
before_upload=$(rss_kb "$pid")
upload() {
    head -c 524288000 /dev/zero | curl -s -o /dev/null -w '%{http_code}' -X POST -H "X-API-Key: $key" \
        -H 'Content-Type: application/json' "$@" --data-binary @- "$url/messages/bench" || true
}
upload_status="$(upload -H 'Content-Length: 524288000')/$(upload -H 'Transfer-Encoding: chunked')"
upload_growth_kb=$(( $(rss_kb "$pid") - before_upload ))

# 10,000 queues, then GET /queues.
python3 - "$port" "$key" <<'PY'
import http.client, sys
port, key = int(sys.argv[1]), sys.argv[2]
conn = http.client.HTTPConnection("127.0.0.1", port)
for i in range(9997):
    conn.request("POST", "/queues", body='{"name":"q%05d"}' % i,
                 headers={"X-API-Key": key, "Content-Type": "application/json"})
    response = conn.getresponse(); response.read()
    if response.status != 200:
        sys.exit("create queue: %d" % response.status)
PY
list_ms=$(for i in 1 2 3 4 5; do
    curl -s -o /dev/null -w '%{time_total}\n' -H "X-API-Key: $key" "$url/queues"
done | sort -n | awk 'NR == 3 { printf "%.1f", $1 * 1000 }')
queues_rss=$(rss_kb "$pid")

printf '\nbrokerd HTTP benchmark: %s s per run, %s connections, %s wrk thread(s), loopback\n\n' "$duration" "$connections" "$threads"
printf '%-16s %12s %12s %10s %10s %8s\n' scenario req/s msg/s p50_ms p99_ms non2xx
awk '{ printf "%-16s %12s %12s %10s %10s %8s\n", $1, $2, $3, $4, $5, $6 }' "$results"
ratio() { awk -v a="$(awk -v n="$1" '$1 == n { print $2 }' "$results")" -v b="$(awk -v n="$2" '$1 == n { print $2 }' "$results")" \
    'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2f", a / b }'; }
printf '\npublish / health_live baseline: %s\n' "$(ratio publish health_live)"
printf 'publish / webdis LPUSH:         %s\n' "$(ratio publish webdis_lpush)"
printf 'consume / webdis RPOP:          %s\n' "$(ratio consume webdis_rpop)"
printf 'batch of 100:                   %s messages/s\n' "$(awk '$1 == "batch_publish" { print $3 }' "$results")"
printf 'with glibc.malloc.hugetlb=1 (THP mode %s): publish %s req/s, batch %s messages/s\n' "${thp_mode:-unknown}" \
    "$(awk '$1 == "publish_hugetlb" { print $2 }' "$results")" "$(awk '$1 == "batch_hugetlb" { print $3 }' "$results")"
printf 'ready to serve after start:     %s ms\n' "$ready_ms"
printf 'RSS idle / after runs / 10k queues: %s / %s / %s MB\n' \
    "$(awk -v k="$idle_rss" 'BEGIN { printf "%.1f", k / 1024 }')" \
    "$(awk -v k="$busy_rss" 'BEGIN { printf "%.1f", k / 1024 }')" \
    "$(awk -v k="$queues_rss" 'BEGIN { printf "%.1f", k / 1024 }')"
printf 'GET /queues with 10,000 queues: %s ms (median of 5)\n' "$list_ms"
printf '500 MiB upload (length/chunked): HTTP %s, server RSS growth %s KiB\n' "$upload_status" "$upload_growth_kb"

mkdir -p "$(dirname "$out")"
{
    printf '{"duration_s":%s,"connections":%s,"threads":%s,"ready_ms":%s,' "$duration" "$connections" "$threads" "$ready_ms"
    printf '"rss_idle_kb":%s,"rss_after_runs_kb":%s,"rss_10k_queues_kb":%s,"list_10k_queues_ms":%s,' \
        "$idle_rss" "$busy_rss" "$queues_rss" "$list_ms"
    printf '"upload_500mib_status":"%s","upload_500mib_rss_growth_kb":%s,"scenarios":[' "$upload_status" "$upload_growth_kb"
    awk 'NR > 1 { printf "," } { printf "{\"name\":\"%s\",\"requests_per_second\":%s,\"messages_per_second\":%s,\"p50_ms\":%s,\"p99_ms\":%s,\"non_2xx\":%s}", $1, $2, $3, $4, $5, $6 }' "$results"
    printf ']}\n'
} > "$out"
printf '\nJSON: %s\n' "$out"
