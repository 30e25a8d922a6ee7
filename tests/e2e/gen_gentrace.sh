#!/usr/bin/env bash
# gen reproduces tests/tools/gentrace.py (an independent writer, kept with its README) byte for byte (stride 1..32, l2write,
# stream copy), and tracecheck.py (an independent reader) finds (32/S)*ceil(S/8) global
# load sectors per warp for every S that divides 32 (accelsim-volta-memory-system.txt
# Fig. 3-4). Skipped (77) when tests/tools or python3 is absent.
set -u
BIN=$1
SRC=$2
TOOLS=$SRC/tests/tools
if [ ! -f "$TOOLS/gentrace.py" ] || [ ! -f "$TOOLS/tracecheck.py" ] || ! command -v python3 >/dev/null; then
    echo "skip: $TOOLS/gentrace.py, tracecheck.py or python3 not found"
    exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
same() { # ours theirs label
    if ! cmp -s "$1/kernel-1.traceg" "$2/kernel-1.traceg" || ! cmp -s "$1/kernelslist.g" "$2/kernelslist.g"; then
        echo "FAIL: $3 differs from gentrace.py"; diff "$1/kernel-1.traceg" "$2/kernel-1.traceg" | head -5; fail=1
    fi
}
for s in $(seq 1 32); do
    "$BIN" gen stride "$s" -q -o "$T/ours$s" || { echo "FAIL: gen stride $s"; exit 1; }
    python3 "$TOOLS/gentrace.py" stride "$s" -o "$T/ref$s"
    same "$T/ours$s" "$T/ref$s" "stride $s"
    got=$(python3 "$TOOLS/tracecheck.py" "$T/ours$s" | python3 -c 'import json,sys; k=json.load(sys.stdin)[0]; print(k["global_ld_sectors"], k["warps"])')
    set -- $got
    if [ $((32 % s)) -eq 0 ]; then
        want=$(( (32 / s) * ((s + 7) / 8) ))
        if [ $(( $1 / $2 )) -ne "$want" ] || [ $(( $1 % $2 )) -ne 0 ]; then
            echo "FAIL: stride $s: $1 sectors over $2 warps, want $want per warp"; fail=1
        else
            echo "ok: stride $s: $want sectors per warp"
        fi
    fi
    rm -rf "$T/ours$s" "$T/ref$s"
done
"$BIN" gen l2write -q -o "$T/l2" && python3 "$TOOLS/gentrace.py" l2write -o "$T/l2ref"
same "$T/l2" "$T/l2ref" "l2write"
for a in "1000 1 70" "100000 2 70" "65536 4 90" "12344 3 61"; do
    set -- $a
    "$BIN" gen stream copy -n "$1" --sms "$2" --sm "$3" -q -o "$T/st" &&
        python3 "$TOOLS/gentrace.py" stream "$1" "$2" --sm "$3" -o "$T/stref"
    same "$T/st" "$T/stref" "stream $1 $2 --sm $3"
    rm -rf "$T/st" "$T/stref"
done
# the compressed form carries the same instructions
"$BIN" gen stride 4 --gzip -q -o "$T/gz" && python3 "$TOOLS/gentrace.py" stride 4 -o "$T/gzref"
if ! cmp -s <(gzip -dc "$T/gz/kernel-1.traceg.gz") "$T/gzref/kernel-1.traceg"; then
    echo "FAIL: --gzip content differs"; fail=1
fi
a=$(python3 "$TOOLS/tracecheck.py" "$T/gz" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["global_ld_sectors"])')
[ "$a" = 64 ] || { echo "FAIL: tracecheck on gzip trace: $a sectors, want 8 warps x 8"; fail=1; }
exit $fail
