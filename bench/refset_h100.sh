#!/usr/bin/env bash
# Two builds side by side on the H100 reference set (data/h100, issue #36's "every case
# of the reference set"): CPU time (user + system, to the microsecond: bench/cputime.py)
# of `predict CASE --gpu h100 -q -j 1`, best of N runs, the two builds interleaved run by
# run so that the machine's drift falls on both. Builds older than the tracer-5 reader (c35edea stops at the trailing
# immediate) cannot read the bundled traces, so every case is first rewritten as a
# tracer-4 trace (each instruction line's last number, the immediate, dropped; header
# version 4) and both builds read that copy. Both then predict the same instructions;
# what each does with them is its own model (the newer build also times the stalls,
# two L2 partitions and the intervals), which is what the ratio measures.
#
# usage: bench/refset_h100.sh OLD_GPUFORECAST NEW_GPUFORECAST [N] [SCRATCH_DIR]
# env:   OLD_MODELS / NEW_MODELS  models directory of each build (GF_MODELS_DIR), when
#        it is not the one the binary finds by itself (c35edea: /path/to/c35/models)
#        CASES  a space-separated subset of the case names (default: all)
#        CALLGRIND=1  instructions (valgrind --tool=callgrind, one run each) instead of
#        CPU time: on this shared 2-vCPU machine CPU time varies by up to 2x between runs
#        of one build (c35edea on reduce: 0.55 to 1.02 s), instructions do not
# Prints one row per case (old s, new s, new/old) and the median ratio. Outputs of the
# runs go to files in SCRATCH_DIR (never /dev/null: an old build renames its output
# into place, which as root would replace /dev/null).
set -u
[ $# -ge 2 ] || { sed -n '2,17p' "$0"; exit 2; }
old=$1
new=$2
n=${3:-3}
scratch=${4:-$(mktemp -d)}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$scratch" || exit 1
cpu() { # CPU seconds (or M instructions) of one run: $1 = models dir, the rest the command
    local models=$1
    shift
    if [ "${CALLGRIND:-0}" = 1 ]; then
        GF_MODELS_DIR=${models:-${GF_MODELS_DIR:-}} valgrind --tool=callgrind \
            --callgrind-out-file="$scratch/callgrind.out" "$@" >"$scratch/stdout" \
            2>"$scratch/stderr" || { echo "FAIL: $*: $(tail -n 3 "$scratch/stderr")" >&2; exit 1; }
        awk '/I +refs:/ { gsub(",", "", $NF); printf "%.1f", $NF / 1e6 }' "$scratch/stderr"
        return
    fi
    if [ -n "$models" ]; then
        GF_MODELS_DIR=$models python3 "$src/bench/cputime.py" "$scratch/time" "$@" \
            >"$scratch/stdout" 2>"$scratch/stderr"
    else
        python3 "$src/bench/cputime.py" "$scratch/time" "$@" >"$scratch/stdout" 2>"$scratch/stderr"
    fi || { echo "FAIL: $*: $(head -n 3 "$scratch/stderr")" >&2; exit 1; }
    awk '{ printf "%.4f", $1 + $2 }' "$scratch/time"
}
printf '%-22s %8s %8s %7s\n' case old new ratio
ratios=()
for dir in "$src"/data/h100/*/; do
    [ -f "$dir/kernelslist.g" ] || continue
    name=$(basename "$dir")
    case " ${CASES:-$name} " in *" $name "*) ;; *) continue ;; esac
    v4=$scratch/$name
    if [ ! -d "$v4" ]; then
        mkdir -p "$v4" && cp "$dir/kernelslist.g" "$v4/"
        for k in "$dir"/kernel-*.traceg.xz; do
            xz -dc "$k" | awk '/^-accelsim tracer version/ { print "-accelsim tracer version = 4"; next }
                               !/^[0-9a-f]/ { print; next }
                               { sub(/ +$/, ""); sub(/ [-0-9]+$/, ""); print $0 " " }' \
                >"$v4/$(basename "$k" .xz)" || exit 1
        done
    fi
    bo=; bn=
    [ "${CALLGRIND:-0}" = 1 ] && n=1
    for _ in $(seq "$n"); do
        o=$(cpu "${OLD_MODELS:-}" "$old" predict "$v4" --gpu h100 -q -j 1 -o "$scratch/old.out")
        w=$(cpu "${NEW_MODELS:-}" "$new" predict "$v4" --gpu h100 -q -j 1 -o "$scratch/new.out")
        [ -n "$o" ] && [ -n "$w" ] || exit 1
        bo=$(awk -v a="${bo:-$o}" -v b="$o" 'BEGIN { print (b < a ? b : a) }')
        bn=$(awk -v a="${bn:-$w}" -v b="$w" 'BEGIN { print (b < a ? b : a) }')
    done
    r=$(awk -v a="$bo" -v b="$bn" 'BEGIN { printf "%.3f", (a > 0 ? b / a : 0) }')
    ratios+=("$r")
    printf '%-22s %8s %8s %7s\n' "$name" "$bo" "$bn" "$r"
done
printf '%s\n' "${ratios[@]}" | sort -n |
    awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
                             printf "median ratio %.3f over %d cases (min %.3f, max %.3f)\n", m, NR, v[1], v[NR] }'
