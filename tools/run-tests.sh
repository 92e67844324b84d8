#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Configures, builds (warnings are errors) and runs the whole test suite with CTest.
# BUILD_DIR (default build-tests) and JOBS (default 2) may be set from outside.
set -eu
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build-tests}
jobs=${JOBS:-2}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBROKER_WERROR=ON
cmake --build "$build_dir" -j"$jobs"
ctest --test-dir "$build_dir" --output-on-failure -j"$jobs"
