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
    # README's step 2 must show a what-if that matters: half the DRAM bandwidth slows the
    # DRAM-bound vector add by over 50 %, half the L2 raises its DRAM reads by over 20 %
    if [ "$(basename "$ex")" = 02-what-if.sh ] && ! python3 - /tmp/gf-example.$$ <<'PY'
import sys
rows = {l.split()[0]: l.split()[1:] for l in open(sys.argv[1]) if l.strip()}
cyc = [float(v) for v in rows["gpc__cycles_elapsed.max"]]
dram = [float(v) for v in rows["dram__sectors_read.sum"]]
assert cyc[1] > 1.5 * cyc[0] and dram[2] > 1.2 * dram[0], (cyc, dram)
PY
    then
        echo "FAIL: $ex: the what-ifs do not move the prediction"; cat /tmp/gf-example.$$; fail=1
    fi
done
rm -f /tmp/gf-example.$$
exit $fail
