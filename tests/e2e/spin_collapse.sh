#!/usr/bin/env bash
# Spin-wait collapse (trace/spin.h, docs/model.md "Warp-specialised kernels"): the
# synthetic warp-specialised kernel (gen warpspec) traced with its wait loops going round
# 1, 10 and 100 times must predict the same cycles (within 1 %) and the same executed
# instructions; with the collapse off (--no-spin-collapse) they must differ, so this test
# fails when the collapse stops working. `info` must count the dropped iterations. Its TMA
# copies are in no LSU counter.
set -u
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
for r in 1 10 100; do
    "$BIN" gen warpspec --spin "$r" --grid 16 -n 12 -q -o "$T/ws$r" || { echo "FAIL: gen --spin $r"; exit 1; }
    "$BIN" predict "$T/ws$r" --gpu h100 --cold -q --format csv -o "$T/p$r.csv" 2>"$T/err$r" ||
        { echo "FAIL: predict --spin $r"; cat "$T/err$r"; exit 1; }
    "$BIN" predict "$T/ws$r" --gpu h100 --cold -q --format csv --no-spin-collapse \
        -o "$T/n$r.csv" 2>/dev/null || { echo "FAIL: predict --no-spin-collapse --spin $r"; exit 1; }
    "$BIN" info "$T/ws$r" --format json -o "$T/i$r.json" || { echo "FAIL: info --spin $r"; exit 1; }
done
python3 - "$T" <<'PY' || fail=1
import csv, json, sys
t = sys.argv[1]
def row(path):
    return next(r for r in csv.DictReader(open(path)) if r["kernel_id"] != "total")
bad = 0
on = {r: row(f"{t}/p{r}.csv") for r in (1, 10, 100)}
off = {r: row(f"{t}/n{r}.csv") for r in (1, 10, 100)}
cyc = {r: float(on[r]["gpc__cycles_elapsed.max"]) for r in on}
ins = {r: int(float(on[r]["smsp__inst_executed.sum"])) for r in on}
print("collapsed: cycles %s, warp instructions %s" % (cyc, ins))
for r in (10, 100):
    if abs(cyc[r] / cyc[1] - 1) > 0.01:
        print("FAIL: cycles with --spin %d differ from --spin 1 by more than 1 %%" % r); bad = 1
    if ins[r] != ins[1]:
        print("FAIL: executed instructions with --spin %d differ from --spin 1" % r); bad = 1
# its TMA copies (its only global loads) reach L2 but no LSU counter, as Nsight counts them
# (memory/hierarchy.h GF_HIER_NOT_LSU)
if float(on[1]["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]) != 0 or \
        float(on[1]["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]) != 0 or \
        float(on[1]["lts__t_sectors_srcunit_tex_op_read.sum"]) < 1000:
    print("FAIL: TMA copies: LSU global loads %s requests, %s sectors; L2 reads %s"
          % (on[1]["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"],
             on[1]["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"],
             on[1]["lts__t_sectors_srcunit_tex_op_read.sum"])); bad = 1
ocyc = {r: float(off[r]["gpc__cycles_elapsed.max"]) for r in off}
print("as traced: cycles %s" % ocyc)
if ocyc[100] / ocyc[1] < 1.5:
    print("FAIL: without the collapse the 100-round trace should be far slower"); bad = 1
for r in (1, 10, 100):
    k = json.load(open(f"{t}/i{r}.json"))["kernels"][0]
    # every wait of a consumer (8 warps x 12 tiles) and of the producer (12 - 4 stages)
    # went round r times, 5 instructions a round, in each of 16 blocks
    want = 16 * (8 * 12 + (12 - 4)) * r * 5
    if k["spin_insts"] != want or k["warp_insts"] - k["spin_insts"] != ins[1]:
        print("FAIL: info --spin %d: spin_insts %d (want %d), kept %d (predict %d)"
              % (r, k["spin_insts"], want, k["warp_insts"] - k["spin_insts"], ins[1])); bad = 1
sys.exit(bad)
PY
exit $fail
