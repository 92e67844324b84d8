#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds with warnings as errors and runs the whole test suite with CTest in a release build, then
# everything but the desktop's widgets in a debug build under AddressSanitizer and
# UndefinedBehaviorSanitizer (skip it with SANITIZE=0). The release tree is first configured
# headless (BROKER_BUILD_UI=OFF) to build and test brokerd and brokerctl without Qt Widgets, then
# turned to the full build: nothing in the headless part depends on that option, so only the
# desktop's files are compiled the second time.
# Both builds carry line tables only (-g1; DEBUG_INFO=-g for full debug information): sanitizer
# reports and backtraces keep their file:line, and files compile about a third faster than with -g.
# BUILD_DIR (default build-tests), JOBS (default 2) and UNITY (default ON) may be set from outside. With npm present, the
# pinned Redocly CLI that lints the OpenAPI document (test openapi_lint) is installed first.
set -eu
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build-tests}
jobs=${JOBS:-2}
debug_info=${DEBUG_INFO:--g1}
# gold (binutils, so always there with g++) links the test programs in about half of ld.bfd's time:
# 0.5 s against 1.0 s a test in the release tree, 2.6 s against 3.8 s under AddressSanitizer.
link_flags=""
command -v ld.gold >/dev/null 2>&1 && link_flags="-fuse-ld=gold"

# Ninja schedules the whole tree as one graph and skips make's per-target dependency scans: the
# sanitized tree built from scratch in 837 s, against about 900 s with make, on a 2-core machine.
# A tree configured before keeps its generator.
generator_for() { # BUILD_DIR
    if [ ! -f "$1/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
        echo "-GNinja"
    fi
}

# The rooms compiled eight files to a unit (BROKER_UNITY_BUILD): their compile took 387 s of CPU
# instead of 836 s in the release tree, 346 s instead of 626 s in the sanitized one. UNITY=OFF
# compiles file by file, as day-to-day builds do.
unity=${UNITY:-ON}

# Headless: without the desktop app nothing asks for Qt Widgets.
cmake $(generator_for "$build_dir") -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBROKER_WERROR=ON -DBROKER_BUILD_UI=OFF \
    -DBROKER_UNITY_BUILD="$unity" -DCMAKE_EXE_LINKER_FLAGS="$link_flags" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 $debug_info -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 $debug_info -DNDEBUG"
cmake --build "$build_dir" -j"$jobs" --target brokerd brokerctl tst_brokerd tst_brokerctl tst_layering
ctest --test-dir "$build_dir" --output-on-failure -j"$jobs" \
    -R '^(tst_brokerd|tst_brokerctl|tst_layering|layering_enforced|headless_programs)$'

# The OpenAPI lint's pinned Redocly CLI (tools/openapi), installed once for both builds' test runs.
if command -v npm >/dev/null 2>&1; then
    OPENAPI_NODE_DIR="$(pwd)/$build_dir/openapi-lint"
    export OPENAPI_NODE_DIR
    mkdir -p "$OPENAPI_NODE_DIR"
    cp tools/openapi/package.json tools/openapi/package-lock.json "$OPENAPI_NODE_DIR/"
    (cd "$OPENAPI_NODE_DIR" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
fi

# Release: everything, the desktop app included. BROKER_REQUIRE_VALKEY=ON (CI) makes a missing
# valkey-server an error instead of leaving its tests out.
cmake -S . -B "$build_dir" -DBROKER_BUILD_UI=ON -DBROKER_REQUIRE_VALKEY="${BROKER_REQUIRE_VALKEY:-OFF}"
cmake --build "$build_dir" -j"$jobs"
ctest --test-dir "$build_dir" --output-on-failure -j"$jobs"

# Sanitized: the broker, its programs and their tests (REST, guard, storage, faults, daemon). The
# desktop's widgets are left out here: they are a fifth of the compile and run in the release tree.
if [ "${SANITIZE:-1}" != 0 ]; then
    cmake $(generator_for "$build_dir-asan") -S . -B "$build_dir-asan" -DCMAKE_BUILD_TYPE=Debug -DBROKER_WERROR=ON -DBROKER_SANITIZE=ON \
        -DBROKER_BUILD_UI=OFF -DBROKER_BUILD_BENCHMARKS=OFF -DCMAKE_CXX_FLAGS_DEBUG="$debug_info" -DCMAKE_C_FLAGS_DEBUG="$debug_info" \
        -DBROKER_UNITY_BUILD="$unity" -DCMAKE_EXE_LINKER_FLAGS="$link_flags"
    cmake --build "$build_dir-asan" -j"$jobs"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        LSAN_OPTIONS="suppressions=$(pwd)/tools/lsan-suppressions.txt:print_suppressions=0" \
        ctest --test-dir "$build_dir-asan" --output-on-failure -j"$jobs" -LE 'cluster|valkey'
    # Of the cluster suites (a 6-node cluster each), the router, the ones that move messages between
    # slots, the registry's two-step create and delete, and the wake-ups across brokers; the release
    # tree runs them all, and the Valkey runs (the same code).
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        LSAN_OPTIONS="suppressions=$(pwd)/tools/lsan-suppressions.txt:print_suppressions=0" \
        ctest --test-dir "$build_dir-asan" --output-on-failure -j"$jobs" \
        -R '^(tst_clusterrouter|tst_clusterregistry|tst_messagebroker_leases_cluster|tst_messagebroker_actions_cluster|tst_crossbrokerwakeups)$'
fi
