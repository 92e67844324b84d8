#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# What one request costs the server, in figures that do not move with the machine's load:
# instructions per request under callgrind (user space; the same to the last digit for the same
# binary and input) and system calls per request under strace. brokerd runs on the memory store;
# one keep-alive client (bench/request_loop.py) sends COUNT requests per scenario after a warm-up,
# and the counters are zeroed before and dumped after them. The same is done for peers when they
# are installed: the bare QHttpServer app (bench/hello_httpserver), nginx (`return 200`; Debian:
# nginx-light) and webdis (LPUSH/RPOP, with a redis-server of its own; Debian: webdis). Redis's
# own work is not counted for webdis, as brokerd's store work is.
#   COUNT (default 2000)  WARMUP (default 200)  BUILD_DIR (default build)  OUT (JSON file)
set -eu
cd "$(dirname "$0")/.."
. bench/brokerd.sh
root=$(pwd)
build_dir=${BUILD_DIR:-build}
count=${COUNT:-2000}
warmup=${WARMUP:-200}
out=${OUT:-$root/bench/results/instructions.json}
client="python3 $root/bench/request_loop.py"

for tool in valgrind callgrind_control strace python3 curl; do
    command -v "$tool" >/dev/null 2>&1 || { echo "instructions.sh needs $tool"; exit 1; }
done
ensure_built brokerd hello_httpserver

work=$(mktemp -d)
pids=
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    for p in $pids; do wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

wait_http() { # URL PID
    tries=0
    until curl -s -o /dev/null "$1"; do
        kill -0 "$2" 2>/dev/null || { echo "the server of $1 died"; exit 1; }
        tries=$((tries + 1)); [ "$tries" -lt 600 ] || { echo "$1 never answered"; exit 1; }
        sleep 0.1
    done
}

results="$work/results.txt"
: > "$results"
# The Ir total of callgrind's dump for PID (all threads: --separate-threads is off).
dumped_ir() {
    cat "$work"/callgrind.out."$1".* 2>/dev/null | awk '/^totals:/ { ir += $2 } END { print ir + 0 }'
}
# measure_ir NAME PID PORT SCENARIO REQUESTS_PER_LOOP [KEY]: instructions per request of the
# server PID running under callgrind.
measure_ir() {
    name=$1 cg_pid=$2 mport=$3 scenario=$4 per=$5 mkey=${6:-}
    $client "$mport" "$scenario" "$warmup" "$mkey"
    rm -f "$work"/callgrind.out."$cg_pid".*
    callgrind_control -z "$cg_pid" >/dev/null
    $client "$mport" "$scenario" "$count" "$mkey"
    callgrind_control -d "$cg_pid" >/dev/null
    ir=$(dumped_ir "$cg_pid")
    echo "$name ir $(awk -v ir="$ir" -v n="$count" -v per="$per" 'BEGIN { printf "%.0f", ir / (n * per) }')" >> "$results"
}
# measure_syscalls NAME PID PORT SCENARIO REQUESTS_PER_LOOP [KEY]: system calls per request of
# the server PID (all its threads), attached for the measured requests only.
measure_syscalls() {
    name=$1 s_pid=$2 mport=$3 scenario=$4 per=$5 mkey=${6:-}
    $client "$mport" "$scenario" "$warmup" "$mkey"
    strace -f -c -o "$work/strace.$name" -p "$s_pid" 2>/dev/null &
    strace_pid=$!
    sleep 1 # attached before the first measured request
    $client "$mport" "$scenario" "$count" "$mkey"
    kill -INT "$strace_pid"; wait "$strace_pid" 2>/dev/null || true
    # strace -c: % time, seconds, usecs/call, calls, [errors,] syscall; the last line is the total.
    calls=$(awk '$NF == "total" { print $4 }' "$work/strace.$name")
    top=$(awk 'NR > 2 && $1 !~ /^-/ && $NF != "total" { printf "%s%s:%s", sep, $NF, $4; sep = "," }' "$work/strace.$name" | head -c 300)
    echo "$name syscalls $(awk -v c="$calls" -v n="$count" -v per="$per" 'BEGIN { printf "%.2f", c / (n * per) }') $top" >> "$results"
}

key="bench-admin-key-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
printf 'users:\n  bench: {role: admin, api_key: %s}\n' "$key" > "$work/users.yaml"
printf 'message_broker: {max_queue_size: 100000000}\n' > "$work/broker.yaml"

# brokerd scenarios: consume and leaseack take what fill published before them.
# NAME:SCENARIO:REQUESTS_PER_LOOP; the batch's figure is also given per message below.
brokerd_scenarios="health:health:1 publish:publish:1 consume:consume:1 leaseack:leaseack:2 batch_100:batch:1"
run_brokerd() { # MODE (ir|syscalls)
    bport=$(free_port)
    if [ "$1" = ir ]; then
        valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out.%p" --dump-line=no \
            "$build_dir/app/brokerd" --config "$work/broker.yaml" --users "$work/users.yaml" --port "$bport" \
            >/dev/null 2>"$work/brokerd.$1.log" &
    else
        "$build_dir/app/brokerd" --config "$work/broker.yaml" --users "$work/users.yaml" --port "$bport" \
            >/dev/null 2>"$work/brokerd.$1.log" &
    fi
    bpid=$!; pids="$pids $bpid"
    wait_http "http://127.0.0.1:$bport/health/live" "$bpid"
    curl -sf -X POST -H "X-API-Key: $key" -H 'Content-Type: application/json' -d '{"name":"bench"}' \
        "http://127.0.0.1:$bport/queues" >/dev/null
    for s in $brokerd_scenarios; do
        name=${s%%:*}; rest=${s#*:}; scenario=${rest%%:*}; per=${rest#*:}
        case $scenario in consume|leaseack) $client "$bport" fill $((count + warmup)) "$key";; esac
        "measure_$1" "brokerd_$name" "$bpid" "$bport" "$scenario" "$per" "$key"
    done
    kill "$bpid"; wait "$bpid" 2>/dev/null || true
}
run_brokerd ir
run_brokerd syscalls

# The bare QHttpServer application.
run_hello() {
    hport=$(free_port)
    if [ "$1" = ir ]; then
        valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out.%p" --dump-line=no \
            "$build_dir/bench/hello_httpserver" "$hport" >/dev/null 2>"$work/hello.log" &
    else
        "$build_dir/bench/hello_httpserver" "$hport" >/dev/null 2>"$work/hello.log" &
    fi
    hpid=$!; pids="$pids $hpid"
    wait_http "http://127.0.0.1:$hport/hello" "$hpid"
    "measure_$1" qhttpserver_hello "$hpid" "$hport" hello 1
    kill "$hpid"; wait "$hpid" 2>/dev/null || true
}
run_hello ir
run_hello syscalls

if command -v nginx >/dev/null 2>&1; then
    run_nginx() {
        nport=$(free_port)
        mkdir -p "$work/nginx"
        cat > "$work/nginx/nginx.conf" <<NGINX
daemon off; master_process off; worker_processes 1; pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 64; }
http { access_log off; client_body_temp_path $work/nginx; proxy_temp_path $work/nginx;
       fastcgi_temp_path $work/nginx; uwsgi_temp_path $work/nginx; scgi_temp_path $work/nginx;
       server { listen 127.0.0.1:$nport; keepalive_requests 100000; location / { return 200; } } }
NGINX
        if [ "$1" = ir ]; then
            valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out.%p" --dump-line=no \
                nginx -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" >/dev/null 2>&1 &
        else
            nginx -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" >/dev/null 2>&1 &
        fi
        npid=$!; pids="$pids $npid"
        wait_http "http://127.0.0.1:$nport/" "$npid"
        "measure_$1" nginx_return_200 "$npid" "$nport" nginx 1
        kill "$npid"; wait "$npid" 2>/dev/null || true
    }
    run_nginx ir
    run_nginx syscalls
fi

if command -v webdis >/dev/null 2>&1 && command -v redis-server >/dev/null 2>&1; then
    rport=$(free_port)
    redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >/dev/null &
    rpid=$!; pids="$pids $rpid"
    until redis-cli -p "$rport" ping >/dev/null 2>&1; do kill -0 "$rpid" || exit 1; sleep 0.1; done
    run_webdis() {
        wport=$(free_port)
        printf '{"redis_host":"127.0.0.1","redis_port":%s,"http_host":"127.0.0.1","http_port":%s,"threads":1,"pool_size":1,"daemonize":false,"verbosity":0,"logfile":"%s/webdis.log"}\n' \
            "$rport" "$wport" "$work" > "$work/webdis.json"
        if [ "$1" = ir ]; then
            valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out.%p" --dump-line=no \
                webdis "$work/webdis.json" >/dev/null 2>&1 &
        else
            webdis "$work/webdis.json" >/dev/null 2>&1 &
        fi
        wpid=$!; pids="$pids $wpid"
        wait_http "http://127.0.0.1:$wport/PING" "$wpid"
        "measure_$1" webdis_lpush "$wpid" "$wport" webdis_lpush 1
        "measure_$1" webdis_rpop "$wpid" "$wport" webdis_rpop 1
        kill "$wpid"; wait "$wpid" 2>/dev/null || true
    }
    run_webdis ir
    run_webdis syscalls
fi

printf '\nCost per request on the server: %s requests per scenario after %s of warm-up, one keep-alive client\n\n' "$count" "$warmup"
printf '%-22s %14s %14s  %s\n' scenario instructions syscalls "syscalls by name (all measured requests)"
awk '$2 == "ir" { ir[$1] = $3; order[++n] = $1 } $2 == "syscalls" { sc[$1] = $3; top[$1] = $4 }
     END { for (i = 1; i <= n; i++) printf "%-22s %14s %14s  %s\n", order[i], ir[order[i]], sc[order[i]], top[order[i]] }' "$results"
awk '$1 == "brokerd_batch_100" && $2 == "ir" { printf "batch of 100: %.0f instructions per message\n", $3 / 100 }' "$results"
mkdir -p "$(dirname "$out")"
awk -v count="$count" 'BEGIN { printf "{\"requests_per_scenario\":%s,\"scenarios\":[", count }
     $2 == "ir" { ir[$1] = $3; order[++n] = $1 } $2 == "syscalls" { sc[$1] = $3 }
     END { for (i = 1; i <= n; i++) printf "%s{\"name\":\"%s\",\"instructions_per_request\":%s,\"syscalls_per_request\":%s}", (i > 1 ? "," : ""), order[i], ir[order[i]], (sc[order[i]] == "" ? "null" : sc[order[i]]); print "]}" }' "$results" > "$out"
printf '\nJSON: %s\n' "$out"
