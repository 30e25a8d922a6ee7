#!/usr/bin/env bash
# Bounded sweeps (issue #22, finding 5): the size is stated on stderr before anything runs,
# a sweep above --max-configs (default 10^6) is refused at once naming the count, the limit
# and the option, and a sweep that fails on a --vary value prints nothing to stdout.
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GF_MODELS_DIR="$src/models"
fail=0
say() { echo "FAIL: $*"; fail=1; }
expect() { # expect CODE PATTERN -- args...   (pattern looked for on stderr)
    local code=$1 pat=$2
    shift 3
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" != "$code" ] || ! grep -q -- "$pat" "$tmp/err"; then
        echo "FAIL: '$*' exited $rc (want $code, stderr ~ '$pat'):"; cat "$tmp/err"; fail=1
    fi
}
list() { seq -s, 1 "$1"; } # 1,2,...,N

"$bin" profile "$src/data/matmul" --gpu titanv -o "$tmp/mm.gfp" -q || say "profile"

# refused before the trace is even read (it does not exist): 101 x 100 x 100 configurations
expect 1 "the sweep has 1010000 configurations .*more than the limit of 1000000; pass --max-configs 1010000" -- \
    sweep "$tmp/no-such-trace" --gpu titanv --vary l1.mshrs="$(list 101)" --vary l2.mshrs="$(list 100)" \
    --vary l2.ways="$(list 100)"
[ -s "$tmp/out" ] && say "a refused sweep wrote to stdout"
# issue #22's case: 8 axes x 10 values (values the models reject, so that without the
# limit the run fails at once instead of running for hours)
args=()
for k in l1.mshrs l2.mshrs l2.ways l2.size l1.size dram.bandwidth dram.channels sm.count; do
    args+=(--vary "$k=$(list 10)")
done
expect 1 "100000000 configurations" -- sweep "$tmp/mm.gfp" --gpu titanv "${args[@]}"
# past what can be counted (2^40)
expect 1 "more than 1099511627776 configurations" -- sweep "$tmp/mm.gfp" --gpu titanv "${args[@]}" \
    --vary a="$(list 10)" --vary b="$(list 10)" --vary c="$(list 10)" --vary d="$(list 10)" --vary e="$(list 10)"

# --max-configs moves the limit both ways
expect 1 "the sweep has 3 configurations .*limit of 2; pass --max-configs 3" -- \
    sweep "$tmp/mm.gfp" --gpu titanv --vary l2.mshrs=8,16,32 --max-configs 2
expect 0 "" -- sweep "$tmp/mm.gfp" --gpu titanv --vary l2.mshrs=8,16,32 --max-configs 3
[ "$(wc -l <"$tmp/out")" = 4 ] || say "--max-configs 3: expected 3 rows + header"
for bad in 0 -1 abc 1e6 2000000000000; do
    expect 2 "--max-configs takes a number from 1 to" -- sweep "$tmp/mm.gfp" --gpu titanv --vary l2.mshrs=8 --max-configs "$bad"
done

# the size is stated first (stderr), and -q leaves it out
expect 0 "sweep: 4 configurations, 4 CSV rows, about [0-9.]* kB of CSV, .* on 1 thread" -- \
    sweep "$tmp/mm.gfp" --gpu titanv --vary l2.mshrs=8,16 --vary dram.bandwidth=300GB/s,600GB/s -j 1
"$bin" sweep "$tmp/mm.gfp" --gpu titanv --vary l2.mshrs=8,16 -q >/dev/null 2>"$tmp/err" || say "sweep -q"
[ -s "$tmp/err" ] && { say "sweep -q wrote to stderr"; cat "$tmp/err"; }

# a bad value anywhere (here the first axis' second value: configurations 2 and 3, after
# two good ones) fails before the CSV header reaches stdout; so does a key the profile
# depends on
expect 1 "configuration 2: key 'dram.bandwidth'" -- \
    sweep "$tmp/mm.gfp" --gpu titanv --vary dram.bandwidth=300GB/s,bogus --vary l2.mshrs=8,16
[ -s "$tmp/out" ] && { say "a failing sweep printed to stdout:"; head -c 300 "$tmp/out"; echo; }
expect 1 "configuration 0: .*sm.count" -- sweep "$tmp/mm.gfp" --gpu titanv --vary sm.count=40,80
[ -s "$tmp/out" ] && say "a sweep on a key the profile depends on printed to stdout"
# options that act only while a trace is read are refused on a saved profile, as predict
# refuses them, rather than silently ignored
for opt in --cold --partial --exact; do
    expect 2 "act when a trace is profiled, not on a saved profile" -- \
        sweep "$tmp/mm.gfp" --gpu titanv --vary l2.mshrs=8,16 "$opt"
done
# a profile made in bounded memory (the trace's distinct lines passed the L2 trackers'
# window, memory/hierarchy.h) answers L2 sizes up to 4x the profiled one and refuses more
"$bin" gen vecadd -n 3M --gzip -o "$tmp/va3m" -q || say "gen va3m"
"$bin" profile "$tmp/va3m" --gpu gtx1080 --set l2.size=512KiB -o "$tmp/va3m.gfp" -q || say "profile va3m"
"$bin" sweep "$tmp/va3m.gfp" --gpu gtx1080 --vary l2.size=1MiB,2MiB -q >"$tmp/out" 2>"$tmp/err" ||
    { say "a sweep within 4x the profiled L2 failed:"; cat "$tmp/err"; }
expect 1 "profile holds reuse distances for L2 slices of up to 1024 lines .*4x the profiled L2" -- \
    sweep "$tmp/va3m.gfp" --gpu gtx1080 --vary l2.size=1MiB,4MiB
[ -s "$tmp/out" ] && say "a sweep past the profile's L2 window printed to stdout"
# an L2 what-if from a profile re-derives the dirty write-backs (profile.c writebacks_at):
# a STREAM copy of 2 x 8 MB on TITAN V (4.5 MiB L2) at half and twice the L2, the sweep's
# DRAM writes and cycles against a full predict at that size (measured: within 0.03 %)
"$bin" gen stream copy -n 2M --sms 80 -o "$tmp/sc" -q || say "gen stream copy"
"$bin" profile "$tmp/sc" --gpu titanv -o "$tmp/sc.gfp" -q || say "profile sc"
"$bin" sweep "$tmp/sc.gfp" --gpu titanv --vary l2.size=2304KiB,9216KiB --format csv -q \
    -o "$tmp/sw.csv" || say "sweep sc"
for s in 2304KiB 9216KiB; do
    "$bin" predict "$tmp/sc" --gpu titanv --set l2.size=$s --format csv -q -o "$tmp/p-$s.csv" ||
        say "predict sc at $s"
done
python3 - "$tmp" <<'PY' || fail=1
import csv, sys
d = sys.argv[1]
sw = {r["l2.size"]: r for r in csv.DictReader(open(d + "/sw.csv"))}
for s in ("2304KiB", "9216KiB"):
    p = next(csv.DictReader(open("%s/p-%s.csv" % (d, s))))
    for k, tol in (("dram__bytes_write.sum", 0.01), ("gpc__cycles_elapsed.max", 0.01)):
        a, b = float(sw[s][k]), float(p[k])
        if not (b > 0 and abs(a - b) <= tol * b):
            print("FAIL: sweep %s at %s: %s, predict --set l2.size: %s" % (k, s, a, b))
            sys.exit(1)
PY
# a profile whose tiny last kernel ends with another kernel's dirty lines resident (its
# kernel-end ages hold far more than its own accesses) is valid: saved and loaded back
mkdir -p "$tmp/two" && cp "$tmp/sc/kernel-1.traceg" "$tmp/two/" &&
    printf 'kernel-1.traceg\nkernel-2.traceg\n' >"$tmp/two/kernelslist.g" &&
    printf '%s\n' '-kernel name = tiny' '-kernel id = 2' '-grid dim = (1,1,1)' \
        '-block dim = (32,1,1)' '-shmem = 0' '-nregs = 8' '-binary version = 70' \
        '-accelsim tracer version = 4' '' '#BEGIN_TB' 'thread block = 0,0,0' 'warp = 0' \
        'insts = 2' '0000 ffffffff 1 R2 LDG.E 1 R2 4 1 0x7f0000000000 4 ' \
        '0010 ffffffff 0 EXIT 0 0 ' '#END_TB' >"$tmp/two/kernel-2.traceg" || say "two-kernel trace"
"$bin" profile "$tmp/two" --gpu titanv --set l2.size=18432KiB -o "$tmp/two.gfp" -q ||
    say "profile of the two-kernel trace"
"$bin" predict "$tmp/two.gfp" --gpu titanv --set l2.size=18432KiB -q -o "$tmp/two.csv" 2>"$tmp/err" ||
    { say "a valid two-kernel profile was refused:"; cat "$tmp/err"; }
exit $fail
