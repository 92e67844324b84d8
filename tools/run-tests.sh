#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds with warnings as errors and runs the whole test suite with CTest, twice: a release build,
# then a debug build under AddressSanitizer and UndefinedBehaviorSanitizer (skip it with
# SANITIZE=0). Between the two, a headless build (BROKER_BUILD_UI=OFF) builds and tests brokerd
# and brokerctl. BUILD_DIR (default build-tests) and JOBS (default 2) may be set from outside.
set -eu
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build-tests}
jobs=${JOBS:-2}

cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBROKER_WERROR=ON
cmake --build "$build_dir" -j"$jobs"
ctest --test-dir "$build_dir" --output-on-failure -j"$jobs"

# The headless build: without the desktop app nothing asks for Qt Widgets. brokerd, brokerctl and
# the tests that run them.
cmake -S . -B "$build_dir-headless" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBROKER_WERROR=ON -DBROKER_BUILD_UI=OFF \
    -DBROKER_BUILD_BENCHMARKS=OFF
cmake --build "$build_dir-headless" -j"$jobs" --target brokerd brokerctl tst_brokerd tst_brokerctl tst_layering
ctest --test-dir "$build_dir-headless" --output-on-failure -j"$jobs" \
    -R '^(tst_brokerd|tst_brokerctl|tst_layering|layering_enforced|headless_programs)$'

if [ "${SANITIZE:-1}" != 0 ]; then
    cmake -S . -B "$build_dir-asan" -DCMAKE_BUILD_TYPE=Debug -DBROKER_WERROR=ON -DBROKER_SANITIZE=ON \
        -DBROKER_BUILD_BENCHMARKS=OFF
    cmake --build "$build_dir-asan" -j"$jobs"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        LSAN_OPTIONS="suppressions=$(pwd)/tools/lsan-suppressions.txt:print_suppressions=0" \
        ctest --test-dir "$build_dir-asan" --output-on-failure -j"$jobs"
fi
