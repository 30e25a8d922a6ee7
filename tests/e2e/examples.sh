#!/usr/bin/env bash
# Runs every walkthrough script in examples/ so they never rot (04 skips without refdata).
set -u
export GPUFORECAST=$1
fail=0
for ex in "$2"/examples/0*.sh; do
    bash "$ex" >/tmp/gf-example.$$ 2>&1
    rc=$?
    if [ $rc != 0 ] && [ $rc != 77 ]; then
        echo "FAIL: $ex exited $rc"; cat /tmp/gf-example.$$; fail=1
    fi
done
rm -f /tmp/gf-example.$$
exit $fail
