#!/usr/bin/env bash
# End-to-end: calibration as code (scripts/calibrate_h100.py) on the H100 reference set.
# - --check models/h100.ini: every calibrated constant is reproduced from its cases;
# - a constant whose rule is broken (a mutated copy of the .ini) is named and fails --check;
# - --without: leaving out a rule's only case reverts it to its prior (slice_interleave
#   512 -> 128 without hist_global_atomics, the HMMA interval 6 -> 4 without wmma_gemm), a
#   rule over two cases uses the one left (l1.mshrs without stream_copy_sms2 is
#   stream_copy_sms4's Little's-law value alone), and a case no rule uses changes nothing;
#   without pchase_dram the L2 and DRAM latencies are a published pointer chase's;
# - the rules read the data: halving the strided reads' DRAM bytes (copies of their
#   ncu.csv) turns dram.fetch_bytes from 64 to 32;
# - the scanned l2.size is re-scanned with the model (profile + sweep): 28800 KiB with every
#   streaming case, 32200 KiB without vecadd (STREAM alone wants more; 34000 before the DRAM
#   burst server, which moved the DRAM-write error it scans);
# - bad input: an unknown case is an error naming it.
# - the scanned launch.block_cycles: stride4's warps-active match, and 337 without vecadd;
# Skips (77) when the reference set is absent. $1 = binary, $2 = source dir. Only the
# scans run the model (l2.size about 20 s, block_cycles about 40 s); the other calls take
# --no-scan.
set -u
bin=$1
src=$2
ref=$src/data/h100
[ -d "$ref" ] && ref=$(cd "$ref" && pwd)
[ -d "$ref" ] || { echo "skip: $ref not found"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cal() { python3 "$src/scripts/calibrate_h100.py" "$ref" --no-scan "$@"; }
scan() { python3 "$src/scripts/calibrate_h100.py" "$ref" --bin "$bin" "$@"; }
# value KEY FILE: the derived value of KEY in a --format json output
value() { python3 -c 'import json,sys; d=json.load(open(sys.argv[2])); print("%g %s" % (d[sys.argv[1]]["value"], d[sys.argv[1]]["from"]))' "$1" "$2"; }

scan --check "$src/models/h100.ini" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "--check on models/h100.ini"; }
grep -q '^check: all 29 calibrated constants' "$tmp/out" || fail "no check line: $(tail -1 "$tmp/out")"

# A wrong value in a copy of the model is caught and named.
mkdir -p "$tmp/models/isa"
cp "$src/models/isa/hopper.csv" "$tmp/models/isa/"
sed 's/^mshrs = 415/mshrs = 400/' "$src/models/h100.ini" >"$tmp/models/h100.ini"
cal --check "$tmp/models/h100.ini" >"$tmp/out" 2>&1 && fail "--check passed a wrong l1.mshrs"
grep -q '^DIFFERS: l1.mshrs: 400' "$tmp/out" || fail "l1.mshrs not named: $(cat "$tmp/out")"

cal --format json >"$tmp/full.json" || fail "--format json"
[ "$(value l2.slice_interleave "$tmp/full.json")" = "512 cases" ] || fail "slice_interleave"
cal --without hist_global_atomics --format json >"$tmp/hist.json" || fail "--without hist"
[ "$(value l2.slice_interleave "$tmp/hist.json")" = "128 prior" ] ||
    fail "slice_interleave without hist_global_atomics: $(value l2.slice_interleave "$tmp/hist.json")"
[ "$(value l2.atomic_sectors_per_cycle "$tmp/hist.json")" = "1 cases" ] || fail "atomic rate (a peak every ncu.csv has)"
cal --without wmma_gemm --format json >"$tmp/wmma.json" || fail "--without wmma"
[ "$(value isa.HMMA.interval "$tmp/full.json")" = "6 cases" ] || fail "HMMA interval"
[ "$(value isa.HMMA.interval "$tmp/wmma.json")" = "4 prior" ] || fail "HMMA prior"
# the compiler's stall count: Nsight's wait on the micro-benchmarks (median 2.3 per issue)
[ "$(value sm.issue_hold "$tmp/full.json")" = "2 cases" ] ||
    fail "sm.issue_hold: $(value sm.issue_hold "$tmp/full.json")"
# a read's one input slot per request: from the micro-benchmarks' slice input cycles, so it
# stays without transpose_naive, and is off without the eight copies and strided reads
cal --without transpose_naive --format json >"$tmp/tn.json" || fail "--without transpose_naive"
[ "$(value l2.read_bytes_per_cycle "$tmp/tn.json")" = "64 cases" ] ||
    fail "read_bytes_per_cycle without transpose_naive: $(value l2.read_bytes_per_cycle "$tmp/tn.json")"
[ "$(value l2.partial_write_cycles "$tmp/tn.json")" = "1 prior" ] || fail "partial_write_cycles prior"
cal --without stream_copy,stream_copy_sms132,stream_copy_sms2,stream_copy_sms4,vecadd,stride1,stride2,stride4 \
    --format json >"$tmp/slot.json" || fail "--without the read-slot cases"
[ "$(value l2.read_bytes_per_cycle "$tmp/slot.json")" = "0 prior" ] ||
    fail "read_bytes_per_cycle without its cases: $(value l2.read_bytes_per_cycle "$tmp/slot.json")"
[ "$(value noc.bytes_per_cycle "$tmp/slot.json")" = "5120 cases" ] || fail "noc (a peak every ncu.csv has)"
# without pchase_dram the latencies beyond L1 are the published Hopper pointer chase's
# (Luo et al. 2025, Table 3: scripts/calibrate_h100.py LUO25_*), not Accel-Sim's 99 / 98 ns
cal --without pchase_dram --format json >"$tmp/pd.json" || fail "--without pchase_dram"
[ "$(value l2.latency_ns "$tmp/full.json")" = "127.3 cases" ] || fail "l2.latency_ns"
[ "$(value l2.latency_ns "$tmp/pd.json")" = "131.9 prior" ] ||
    fail "l2.latency_ns without pchase_dram: $(value l2.latency_ns "$tmp/pd.json")"
[ "$(value dram.latency_ns "$tmp/pd.json")" = "223.1 prior" ] ||
    fail "dram.latency_ns without pchase_dram: $(value dram.latency_ns "$tmp/pd.json")"
cal --without stream_copy_sms2 --format json >"$tmp/sms2.json" || fail "--without sms2"
[ "$(value l1.mshrs "$tmp/full.json")" = "415 cases" ] || fail "l1.mshrs"
[ "$(value l1.mshrs "$tmp/sms2.json")" = "406 cases" ] ||
    fail "l1.mshrs from stream_copy_sms4 alone: $(value l1.mshrs "$tmp/sms2.json")"
cal --without torch_gelu --format set >"$tmp/gelu.set" || fail "--without torch_gelu"
cal --format set | cmp -s - "$tmp/gelu.set" || fail "torch_gelu changed a constant"

# The rules read the data: a reference folder whose strided reads fetch only the sector
# (DRAM bytes read halved in copies of their ncu.csv) gives dram.fetch_bytes 32, not 64.
mkdir "$tmp/ref"
for d in "$ref"/*; do ln -s "$d" "$tmp/ref/"; done
for c in stride16 stride32 pchase_dram; do
    rm "$tmp/ref/$c" && mkdir "$tmp/ref/$c"
    python3 - "$ref/$c/ncu.csv" "$tmp/ref/$c/ncu.csv" <<'PYEOF' || fail "rewriting $c/ncu.csv"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
j = rows[0].index("dram__bytes_read.sum")
for r in rows[2:]:
    r[j] = "%f" % (float(r[j].replace(",", "")) / 2)
csv.writer(open(sys.argv[2], "w", newline="")).writerows(rows)
PYEOF
done
python3 "$src/scripts/calibrate_h100.py" "$tmp/ref" --no-scan --format json >"$tmp/half.json" || fail "halved"
[ "$(value dram.fetch_bytes "$tmp/full.json")" = "64 cases" ] || fail "fetch_bytes"
[ "$(value dram.fetch_bytes "$tmp/half.json")" = "32 cases" ] ||
    fail "fetch_bytes on sector-only reads: $(value dram.fetch_bytes "$tmp/half.json")"

scan --without vecadd --format json >"$tmp/vecadd.json" || fail "--without vecadd"
[ "$(value l2.size "$tmp/vecadd.json")" = "32200 cases" ] ||
    fail "l2.size re-scanned without vecadd: $(value l2.size "$tmp/vecadd.json")"

# The scanned launch.block_cycles: per case the model's sm__warps_active is run to Nsight's
# (stride4: 243 cycles with the ADU, 72.9 %), and falls as the cycles grow.
python3 - "$src/scripts" "$ref" "$bin" <<'PYEOF' || fail "launch.block_cycles scan on stride4"
import sys
sys.path.insert(0, sys.argv[1])
import calibrate_h100 as c
ref = c.Ref(sys.argv[2], (), sys.argv[3])
x = c.block_cycles_match(ref, "stride4")
pred, hw = c.warps_active(ref, "stride4", x)
assert x == c.BLOCK_CYCLES_RECORDED["stride4"] == 243, x
assert abs(pred - hw) < 0.2, (x, pred, hw)
assert c.warps_active(ref, "stride4", 0)[0] > hw > c.warps_active(ref, "stride4", 600)[0]
PYEOF
[ "$(value launch.block_cycles "$tmp/vecadd.json")" = "337 cases" ] ||
    fail "block_cycles re-scanned without vecadd: $(value launch.block_cycles "$tmp/vecadd.json")"

# a copy whose vecadd moves no L2 traffic: the read-slot rule names the file, no traceback
mkdir "$tmp/bad"
for d in "$ref"/*/; do ln -s "$d" "$tmp/bad/$(basename "$d")"; done
cp "$ref"/*.txt "$tmp/bad/" 2>/dev/null
rm "$tmp/bad/vecadd" && mkdir "$tmp/bad/vecadd"
python3 - "$ref/vecadd/ncu.csv" "$tmp/bad/vecadd/ncu.csv" <<'PYEOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
for col in ("lts__t_requests_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
            "lts__t_sectors_srcunit_tex_op_write.sum"):
    i = rows[0].index(col)
    for r in rows[2:]:
        r[i] = "0"
csv.writer(open(sys.argv[2], "w", newline=""), quoting=csv.QUOTE_ALL).writerows(rows)
PYEOF
python3 "$src/scripts/calibrate_h100.py" "$tmp/bad" --no-scan >"$tmp/out" 2>&1 &&
    fail "a vecadd without L2 traffic was accepted"
grep -q "bad/vecadd/ncu.csv: no L2 read requests or write sectors" "$tmp/out" ||
    fail "read-slot rule's bad input not named: $(cat "$tmp/out")"
grep -q Traceback "$tmp/out" && fail "traceback on bad input"

cal --without no_such_case >"$tmp/out" 2>&1 && fail "an unknown case was accepted"
grep -q 'no case no_such_case' "$tmp/out" || fail "unknown case not named: $(cat "$tmp/out")"
echo ok
