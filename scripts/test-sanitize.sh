#!/usr/bin/env bash
# ASan + UBSan build running the unit tests (and end-to-end tests): any report fails.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-sanitize}
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Sanitize -DCMAKE_C_COMPILER=gcc >/dev/null
cmake --build "$dir" -j "$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$dir" --output-on-failure -j "$(nproc)"
