#!/usr/bin/env bash
# Two builds side by side on the H100 reference set (data/h100, issue #36's "every case
# of the reference set"): CPU time (user + system, to the microsecond: bench/cputime.py)
# of `predict CASE --gpu h100 -q -j 1`, N runs of each, the two builds interleaved run by
# run in ABBA order so that the machine's drift falls on both. Builds older than the
# tracer-5 reader (c35edea stops at the trailing immediate) cannot read the bundled
# traces, so every case is first rewritten as a tracer-4 trace (each instruction line's
# last number, the immediate, dropped; header version 4) and both builds read that copy.
# Both then predict the same instructions; what each does with them is its own model
# (the newer build also times the stalls, two L2 partitions and the intervals), which
# is what the ratio measures.
#
# usage: bench/refset_h100.sh OLD_GPUFORECAST NEW_GPUFORECAST [N] [SCRATCH_DIR]
# env:   OLD_MODELS / NEW_MODELS  models directory of each build (GF_MODELS_DIR), when
#        it is not the one the binary finds by itself (c35edea: /path/to/c35/models)
#        CASES  a space-separated subset of the case names (default: all)
#        CALLGRIND=1  instructions (valgrind --tool=callgrind, one run each) instead of
#        CPU time. Steady where CPU time is not (this shared 2-vCPU machine drifts by up
#        to 2x between runs of one build), but not CPU time: c35edea runs reduce's 6.6 G
#        instructions in 0.54 s, 81ed49e its 4.3 G in 0.80 s (bench/README, session 40)
# Prints one row per case: each build's best, the ratio of the bests (new/old) and the
# median of the runs' pair ratios (the steadier figure when the machine drifts between a
# fast and a slow state), then the median over the cases of each. Outputs of the runs
# go to files in SCRATCH_DIR (never /dev/null: an old build renames its output into
# place, which as root would replace /dev/null).
set -u
[ $# -ge 2 ] || { sed -n '2,25p' "$0"; exit 2; }
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
run_old() { cpu "${OLD_MODELS:-}" "$old" predict "$v4" --gpu h100 -q -j 1 -o "$scratch/old.out"; }
run_new() { cpu "${NEW_MODELS:-}" "$new" predict "$v4" --gpu h100 -q -j 1 -o "$scratch/new.out"; }
median() { # of the numbers in the arguments: "median min max count"
    printf '%s\n' "$@" | sort -n |
        awk '{ v[NR] = $1 }
             END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                   printf "%.3f %.3f %.3f %d", m, v[1], v[NR], NR }'
}
printf '%-22s %8s %8s %7s %7s\n' case old new ratio pairs
ratios=()
pmeds=()
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
    bo=; bn=; pairs=()
    [ "${CALLGRIND:-0}" = 1 ] && n=1
    for i in $(seq "$n"); do
        # (ABBA: the build that runs first alternates, so a drift within a pair falls on
        # both builds alike over the runs)
        if [ $((i % 2)) = 1 ]; then
            o=$(run_old); w=$(run_new)
        else
            w=$(run_new); o=$(run_old)
        fi
        [ -n "$o" ] && [ -n "$w" ] || exit 1
        bo=$(awk -v a="${bo:-$o}" -v b="$o" 'BEGIN { print (b < a ? b : a) }')
        bn=$(awk -v a="${bn:-$w}" -v b="$w" 'BEGIN { print (b < a ? b : a) }')
        pairs+=("$(awk -v a="$o" -v b="$w" 'BEGIN { printf "%.4f", (a > 0 ? b / a : 0) }')")
    done
    r=$(awk -v a="$bo" -v b="$bn" 'BEGIN { printf "%.3f", (a > 0 ? b / a : 0) }')
    pm=$(median "${pairs[@]}" | cut -d' ' -f1)
    ratios+=("$r")
    pmeds+=("$pm")
    printf '%-22s %8s %8s %7s %7s\n' "$name" "$bo" "$bn" "$r" "$pm"
done
read -r m lo hi k <<<"$(median "${ratios[@]}")"
echo "ratio of the bests: median $m over $k cases (min $lo, max $hi)"
read -r m lo hi k <<<"$(median "${pmeds[@]}")"
echo "median pair ratio: median $m over $k cases (min $lo, max $hi)"
