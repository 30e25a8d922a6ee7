#!/usr/bin/env bash
# The shared-memory data pipe's wavefronts as sm_90's Nsight counts them (issue #32 item 5):
# l1tex__data_pipe_lsu_wavefronts_mem_shared.sum is memory_l1_wavefronts_shared (the shared
# accesses with lanes on) plus, under l1.shared_pipe_mio (the H100 model), one wavefront
# per predicated-off shared access, SHFL and S2R and an LDGSTS's shared writes at 128 B a
# wavefront. The extra is counted here from the trace text by an independent reader and
# must match exactly; without the key the two counters are equal. Traces: generated vecadd
# (S2R), generated ldgsts (LDGSTS.E.128), data/h100/torch_layernorm (SHFL, predicated-off
# LDS/STS, and replayed runs of identical lines). $1 = binary, $2 = source dir.
set -u
bin=$1
src=$2
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$bin" gen vecadd -n 4096 -o "$tmp/vecadd" -q || { echo "FAIL: gen vecadd"; exit 1; }
"$bin" gen ldgsts -o "$tmp/ldgsts" -q || { echo "FAIL: gen ldgsts"; exit 1; }
traces="$tmp/vecadd $tmp/ldgsts"
[ -d "$src/data/h100/torch_layernorm" ] && traces="$traces $src/data/h100/torch_layernorm"
col() { # CSV file, column: the first kernel row's value (kernel names hold commas)
    python3 -c 'import csv, sys; print(next(csv.DictReader(open(sys.argv[1])))[sys.argv[2]])' "$1" "$2"
}
for t in $traces; do
    n=$(basename "$t")
    "$bin" predict "$t" --gpu h100 --cold -q --format csv -o "$tmp/$n.on.csv" 2>/dev/null ||
        { echo "FAIL: predict $n"; fail=1; continue; }
    "$bin" predict "$t" --gpu h100 --cold --set l1.shared_pipe_mio=0 -q --format csv \
        -o "$tmp/$n.off.csv" 2>/dev/null || { echo "FAIL: predict $n (key off)"; fail=1; continue; }
    want=$(python3 - "$t" <<'PY'
import glob, lzma, sys
extra = 0
for path in sorted(glob.glob(sys.argv[1] + "/kernel-*.traceg*")):
    f = lzma.open(path, "rt") if path.endswith(".xz") else open(path)
    for line in f:
        p = line.split()
        if len(p) < 4 or not p[2].isdigit():
            continue
        nd = int(p[2])
        op = p[3 + nd]
        base = op.split(".")[0]
        mask = int(p[1], 16)
        if base in ("S2R", "SHFL"):
            extra += 1
        elif mask == 0 and base in ("LDS", "STS", "LDSM", "ATOMS"):
            extra += 1
        elif mask and base == "LDGSTS":
            ns = int(p[4 + nd])
            width = int(p[5 + nd + ns])
            extra += (bin(mask).count("1") * width + 127) // 128
print(extra)
PY
)
    on=$(col "$tmp/$n.on.csv" l1tex__data_pipe_lsu_wavefronts_mem_shared.sum)
    off=$(col "$tmp/$n.off.csv" l1tex__data_pipe_lsu_wavefronts_mem_shared.sum)
    acc=$(col "$tmp/$n.on.csv" memory_l1_wavefronts_shared)
    [ -n "$want" ] && [ "$want" -gt 0 ] || { echo "FAIL: $n: no extra wavefronts in the trace ($want)"; fail=1; continue; }
    [ "$off" = "$acc" ] || { echo "FAIL: $n: key off gives $off, the accesses' $acc"; fail=1; }
    [ "$on" = "$((acc + want))" ] ||
        { echo "FAIL: $n: $on data-pipe wavefronts, want $acc + $want from the trace"; fail=1; }
done
exit $fail
