# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the HTTP benchmarks.
# ensure_wrk installs wrk when it is missing. ensure_built TARGET... configures and builds
# $build_dir (RelWithDebInfo) when one of the named programs is not there yet.
ensure_wrk() {
    command -v wrk >/dev/null 2>&1 && return
    if [ "$(id -u)" -eq 0 ]; then apt-get install -y -qq wrk; else sudo apt-get install -y -qq wrk; fi
}
ensure_built() {
    for target in "$@"; do
        if [ ! -x "$build_dir/app/$target" ] && [ ! -x "$build_dir/bench/$target" ]; then
            cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo
            cmake --build "$build_dir" -j2 --target "$@"
            return
        fi
    done
}
# free_port prints a port free on 127.0.0.1 now.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# start_brokerd [DIR] starts $build_dir/app/brokerd on a free loopback port with DIR/broker.yaml
# (DIR defaults to $work) and $work/users.yaml, logging to DIR/brokerd.log, and sets `pid` and
# `url` once it listens (exits with its log when it dies first). BROKERD_ENV: VAR=value words
# for its environment.
start_brokerd() {
    dir=${1:-$work}
    : > "$dir/brokerd.log"
    env ${BROKERD_ENV:-} "$build_dir/app/brokerd" --config "$dir/broker.yaml" --users "$work/users.yaml" --port 0 \
        2>"$dir/brokerd.log" >/dev/null &
    pid=$!
    port=
    while [ -z "$port" ]; do
        port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$dir/brokerd.log")
        kill -0 "$pid" 2>/dev/null || { cat "$dir/brokerd.log"; exit 1; }
    done
    url="http://127.0.0.1:$port"
}
