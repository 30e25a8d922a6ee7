#!/usr/bin/env bash
# Is build B faster than build A on one trace? Runs `predict TRACE -j 1` with each binary in
# N pairs, alternating which goes first (ABBA), and prints the median of the per-pair CPU
# time ratios B/A with both builds' minimum and median CPU seconds (user + system, to the
# microsecond: bench/cputime.py).
#
# Why pairs in alternating order: this shared machine switches between a fast and a slow
# state (the same run takes 0.6 or 1.2 s), often for a few seconds at a time, so single
# runs mislead and pairs always run in one order give a biased ratio (old-then-new pairs
# showed 5-12 % gains that vanished in ABBA order, bench/README.md 2026-11-25 sixth
# session). A median ratio within ~3 % of 1 is noise here; use callgrind/cachegrind counts
# for smaller effects.
#
# usage: bench/ab.sh A_GPUFORECAST B_GPUFORECAST TRACE [PAIRS=10] [GPU=titanv]
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 A_GPUFORECAST B_GPUFORECAST TRACE [PAIRS] [GPU]" >&2; exit 2; }
a=$1 b=$2 trace=$3 pairs=${4:-10} gpu=${5:-titanv}
for bin in "$a" "$b"; do
  [ -x "$bin" ] || { echo "$0: $bin is not an executable" >&2; exit 2; }
done
[ -e "$trace" ] || { echo "$0: $trace: no such trace" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp)
out=$(mktemp)
err=$(mktemp)
times=$(mktemp)
trap 'rm -f "$tmp" "$out" "$err" "$times"' EXIT
cpu() { # CPU seconds of one predict
  # (-o a scratch file, not /dev/null: an old build's -o, c35edea's among them, renamed its
  # temporary file over the target, which as root replaced /dev/null with a regular file)
  # A failed run stops the script: the time of a predict that failed at once (a build
  # that cannot find its models, say) would otherwise enter the ratio as a fast run.
  python3 "$here/cputime.py" "$tmp" "$1" predict "$trace" --gpu "$gpu" -j 1 -q -o "$out" \
    2>"$err" || { echo "$0: $1 predict $trace failed: $(head -n 3 "$err")" >&2; return 1; }
  awk '{ print $1 + $2 }' "$tmp"
}
for i in $(seq "$pairs"); do
  if [ $((i % 2)) = 1 ]; then ta=$(cpu "$a"); tb=$(cpu "$b"); else tb=$(cpu "$b"); ta=$(cpu "$a"); fi
  echo "$ta $tb" >>"$times"
done
python3 -c '
import statistics, sys
p = [tuple(map(float, l.split())) for l in sys.stdin]
a = [x for x, _ in p]
b = [y for _, y in p]
r = [y / x for x, y in p if x > 0]
print("pairs %d  median B/A %.3f  A min %.3f median %.3f s  B min %.3f median %.3f s"
      % (len(p), statistics.median(r), min(a), statistics.median(a), min(b), statistics.median(b)))' <"$times"
