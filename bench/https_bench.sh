#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# HTTPS against HTTP, in one run on loopback: two brokerd on the memory store, one with api.tls (a
# certificate made here with openssl), one without, measured by the same wrk one after the other.
# Prints keep-alive publish (req/s) on each and their ratio, new connections per second
# (Connection: close on /health/live: over HTTPS each one is a full handshake), and the memory one
# idle connection holds (RSS growth over N idle keep-alive connections, divided by N).
#   DURATION (s, default 10)  CONNECTIONS (default 32)  IDLE (idle connections, default 500)
#   BUILD_DIR (default build)
set -eu
cd "$(dirname "$0")/.."
. bench/brokerd.sh
build_dir=${BUILD_DIR:-build}
duration=${DURATION:-10}
connections=${CONNECTIONS:-32}
idle=${IDLE:-500}
for tool in openssl python3 curl; do
    command -v "$tool" >/dev/null 2>&1 || { echo "https_bench.sh needs $tool"; exit 1; }
done
ensure_wrk
ensure_built brokerd

work=$(mktemp -d)
pids=
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    for p in $pids; do wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$work/server.key" \
    -out "$work/server.crt" -days 2 -subj /CN=bench -addext subjectAltName=IP:127.0.0.1 2>/dev/null
key="bench-admin-key-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
printf 'users:\n  bench: {role: admin, api_key: %s}\n' "$key" > "$work/users.yaml"
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

# start NAME TLS(true|false): sets NAME_pid and NAME_url
start() {
    name=$1 port=$(free_port)
    cat > "$work/$name.yaml" <<CONFIG
api:
  limits: {max_connections: 4096, max_connections_per_loopback_address: 4096}
  tls: {enabled: $2, cert_file: $work/server.crt, key_file: $work/server.key}
message_broker: {max_queue_size: 100000000}
CONFIG
    "$build_dir/app/brokerd" --config "$work/$name.yaml" --users "$work/users.yaml" --port "$port" \
        >/dev/null 2>"$work/$name.log" &
    spid=$!
    pids="$pids $spid"
    scheme=http; [ "$2" = true ] && scheme=https
    surl="$scheme://127.0.0.1:$port"
    tries=0
    until curl -skf -o /dev/null "$surl/health/live"; do
        kill -0 "$spid" 2>/dev/null || { cat "$work/$name.log"; exit 1; }
        tries=$((tries + 1)); [ "$tries" -lt 300 ] || { echo "$name never answered"; exit 1; }
        sleep 0.1
    done
    curl -skf -X POST -H "X-API-Key: $key" -d '{"name":"bench"}' "$surl/queues" >/dev/null
    eval "${name}_pid=$spid ${name}_url=$surl"
}
start plain false
start tls true
export BENCH_KEY="$key"

# rate URL [wrk options...]: requests per second
rate() {
    target=$1; shift
    wrk -t1 -c"$connections" -d"${duration}s" "$@" "$target" | awk '/Requests\/sec/ { printf "%.0f", $2 }'
}
# idle_bytes PID PORT TLS: RSS growth per idle keep-alive connection (after one request each)
idle_bytes() {
    before=$(rss_kb "$1")
    python3 - "$2" "$3" "$idle" "$key" > "$work/idle.out" <<'PY' &
import socket, ssl, sys, time
port, tls, count, key = int(sys.argv[1]), sys.argv[2] == "true", int(sys.argv[3]), sys.argv[4]
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE
held = []
for _ in range(count):
    s = socket.create_connection(("127.0.0.1", port))
    if tls:
        s = context.wrap_socket(s)
    s.sendall(b"GET /health/live HTTP/1.1\r\nHost: b\r\n\r\n")
    s.recv(4096)
    held.append(s)
print("open", flush=True)
time.sleep(30)
PY
    holder=$!
    tries=0
    until grep -q open "$work/idle.out" 2>/dev/null; do
        tries=$((tries + 1)); [ "$tries" -lt 600 ] || { echo "idle connections never opened"; exit 1; }
        sleep 0.1
    done
    sleep 0.5
    after=$(rss_kb "$1")
    kill "$holder" 2>/dev/null || true; wait "$holder" 2>/dev/null || true
    echo $(( (after - before) * 1024 / idle ))
}

# Idle first: after the runs the heap holds freed memory that new connections would reuse.
plain_port=${plain_url##*:}
tls_port=${tls_url##*:}
plain_idle=$(idle_bytes "$plain_pid" "$plain_port" false)
tls_idle=$(idle_bytes "$tls_pid" "$tls_port" true)
plain_publish=$(rate "$plain_url" -s bench/wrk/publish.lua)
tls_publish=$(rate "$tls_url" -s bench/wrk/publish.lua)
plain_new=$(rate "$plain_url/health/live" -H "Connection: close")
tls_new=$(rate "$tls_url/health/live" -H "Connection: close")

echo
echo "brokerd HTTPS against HTTP: $duration s per run, $connections connections, loopback"
printf '%-38s %12s %12s %8s\n' "" http https ratio
printf '%-38s %12s %12s %8.2f\n' "publish, keep-alive (req/s)" "$plain_publish" "$tls_publish" \
    "$(awk -v a="$tls_publish" -v b="$plain_publish" 'BEGIN { print a / b }')"
printf '%-38s %12s %12s %8.2f\n' "new connections (Connection: close)/s" "$plain_new" "$tls_new" \
    "$(awk -v a="$tls_new" -v b="$plain_new" 'BEGIN { print a / b }')"
printf '%-38s %12s %12s\n' "RSS per idle connection (bytes)" "$plain_idle" "$tls_idle"
