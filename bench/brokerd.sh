# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the HTTP benchmarks. start_brokerd starts $build_dir/app/brokerd on a free loopback
# port with $work/broker.yaml and $work/users.yaml, logging to $work/brokerd.log, and sets
# `pid` and `url` once it listens (exits with its log when it dies first).
start_brokerd() {
    : > "$work/brokerd.log"
    "$build_dir/app/brokerd" --config "$work/broker.yaml" --users "$work/users.yaml" --port 0 \
        2>"$work/brokerd.log" >/dev/null &
    pid=$!
    port=
    while [ -z "$port" ]; do
        port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/brokerd.log")
        kill -0 "$pid" 2>/dev/null || { cat "$work/brokerd.log"; exit 1; }
    done
    url="http://127.0.0.1:$port"
}
