#!/usr/bin/env bash
# One kernel written with every lane's address listed (mode 0) and in the tracer's
# compressed modes (1: base + stride, 2: base + deltas) must predict byte-identical
# counters. The compressed lines carry an address pattern (gf_inst.addr_pattern) that
# the simulator's coalescing and shared-bank memos key on, moving a result computed
# for one base to another; listed lines carry none and are coalesced every time, so
# this compares the memos against the plain computation on whole kernels: strided and
# unit-stride global accesses, shared tiles and reductions (bank conflicts, partial
# masks), local spills, atomics.
set -u
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
# same_predictions LABEL BASE GPU...: BASE.list and BASE.tracer predict byte-identically
same_predictions() {
    local label=$1 base=$2 gpu mode; shift 2
    for gpu in "$@"; do
        for mode in list tracer; do
            "$BIN" predict "$base.$mode" --gpu $gpu --format csv -o "$base.$mode.$gpu.csv" \
                2>"$T/err" || { echo "FAIL: predict $label ($mode) on $gpu"; cat "$T/err"; fail=1; }
        done
        cmp -s "$base.list.$gpu.csv" "$base.tracer.$gpu.csv" ||
            { echo "FAIL: $label on $gpu: list and tracer encodings predict differently";
              diff "$base.list.$gpu.csv" "$base.tracer.$gpu.csv" | head -10; fail=1; }
    done
}
i=0
for k in "vecadd -n 100000" "stride 3" "stride 32" "matmul -n 64" "matmul -n 64 --tile 8" \
         "reduce -n 50000" "reduce -n 20000 --atom" "spill -n 4096" "stream triad -n 65536" \
         "pchase --level l2"; do
    i=$((i + 1))
    for mode in list tracer; do
        "$BIN" gen $k --sm 70 --addr-mode $mode -q -o "$T/$i.$mode" ||
            { echo "FAIL: gen $k --addr-mode $mode"; fail=1; continue 2; }
    done
    if cmp -s "$T/$i.list/kernel-1.traceg" "$T/$i.tracer/kernel-1.traceg"; then
        echo "FAIL: gen $k wrote the same trace in both modes (nothing compared)"; fail=1
    fi
    same_predictions "gen $k" "$T/$i" titanv gtx1080
done

# gen's kinds start most accesses at a 128 B boundary; the memos key on where in its line
# (bank row) the base falls. The reader keeps delta lists of up to 120 characters, so
# the mode-2 lines that must carry a pattern have few lanes or small deltas. A
# hand-written kernel whose 64 warps run one instruction list at bases of varying
# alignment: unit-stride, 8 B and partial-mask loads, a gather with negative deltas
# (mode 2), a 4-way bank-conflicted shared load, shared stores, 16 B shared loads and
# 2 B ones whose conflicts depend on the base's offset within a word.
trace() { # MODE(list|tracer) DIR
    mkdir -p "$2"
    echo kernel-1.traceg >"$2/kernelslist.g"
    awk -v mode="$1" '
    function hex(x) { return sprintf("0x%x", x) }
    # one access: width, mask, base, and per active lane k the offset off[k] from base
    function acc(width, mask, base, n, stride,    s, k, a, prev) {
        if (mode == "list") {
            s = width " 0"
            for (k = 0; k < n; k++) s = s " " hex(base + off[k])
            return s
        }
        if (stride != "") return width " 1 " hex(base) " " stride
        s = width " 2 " hex(base); prev = base
        for (k = 1; k < n; k++) { a = base + off[k]; s = s " " (a - prev); prev = a }
        return s
    }
    function unit(stride, n,    k) { for (k = 0; k < n; k++) off[k] = k * stride }
    BEGIN {
        print "-kernel name = _Z5mixedPf\n-kernel id = 1\n-grid dim = (8,1,1)"
        print "-block dim = (256,1,1)\n-shmem = 4096\n-nregs = 16\n-binary version = 70"
        print "-cuda stream id = 0\n-shmem base_addr = 0x00007f2000000000"
        print "-local mem base_addr = 0x00007f1000000000\n-nvbit version = 1.5.5"
        print "-accelsim tracer version = 4\n-enable lineinfo = 0\n"
        for (b = 0; b < 8; b++) {
            print "#BEGIN_TB\n\nthread block = " b ",0,0\n"
            for (w = 0; w < 8; w++) {
                g = b * 8 + w
                print "warp = " w "\ninsts = 11"
                print "0000 ffffffff 1 R0 S2R 0 0"
                unit(4, 32)
                print "0010 ffffffff 1 R2 LDG.E 1 R0 " acc(4, "ffffffff", 268435456 + g * 4096 + (g * 36) % 128, 32, 4)
                unit(8, 32)
                print "0020 ffffffff 1 R4 LDG.E.64 1 R0 " acc(8, "ffffffff", 536870912 + g * 512 + (g * 24) % 128, 32, 8)
                for (k = 0; k < 32; k++) off[k] = ((k * 37) % 32) * 132 - 1000
                off0 = off[0]; for (k = 0; k < 32; k++) off[k] -= off0
                print "0030 ffffffff 1 R6 LDG.E 1 R0 " acc(4, "ffffffff", 805306368 + g * 8192 + (g * 44) % 128 + 1000, 32, "")
                for (k = 0; k < 32; k++) off[k] = 128 * (k % 4) + 4 * int(k / 4)
                print "0040 ffffffff 1 R8 LDS.U 1 R0 " acc(4, "ffffffff", (g * 12) % 512, 32, "")
                print "0045 0000ffff 1 R8 LDS.U 1 R0 " acc(4, "0000ffff", (g * 12) % 512, 16, "")
                unit(8, 32)
                print "0050 ffffffff 0 STS.64 2 R0 R4 " acc(8, "ffffffff", (g * 40) % 1024, 32, 8)
                unit(4, 16)
                print "0060 00ff00ff 1 R9 LDG.E 1 R0 " acc(4, "00ff00ff", 1073741824 + g * 256 + (g * 20) % 128, 16, 4)
                unit(16, 32)
                print "0070 ffffffff 1 R12 LDS.U.128 1 R0 " acc(16, "ffffffff", (g * 48) % 2048, 32, 16)
                for (k = 0; k < 32; k++) off[k] = 128 * k + 2 * (k % 2)
                print "0080 000000ff 1 R13 LDS.U16 1 R0 " acc(2, "000000ff", (g * 6) % 256, 8, "")
                print "0090 ffffffff 0 EXIT 0 0\n"
            }
            print "#END_TB\n"
        }
    }' >"$2/kernel-1.traceg"
}
trace list "$T/h.list"
trace tracer "$T/h.tracer"
same_predictions "the hand-written kernel" "$T/h" titanv gtx1080 a100
exit $fail
