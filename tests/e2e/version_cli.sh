#!/usr/bin/env bash
# `gpuforecast --version` prints "gpuforecast MAJOR.MINOR.PATCH", the version in
# CMakeLists.txt's project() (issue #22: the unit test compared gf_version() with itself).
set -u
bin=$1
src=$2
want=$(sed -n 's/^project(gpuforecast VERSION \([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' \
    "$src/CMakeLists.txt")
[ -n "$want" ] || { echo "FAIL: no project(gpuforecast VERSION x.y.z) in $src/CMakeLists.txt"; exit 1; }
out=$("$bin" --version) || { echo "FAIL: --version exited $?"; exit 1; }
if [ "$out" != "gpuforecast $want" ]; then
    echo "FAIL: --version printed '$out', want 'gpuforecast $want'"
    exit 1
fi
echo "ok: $out"
