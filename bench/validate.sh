#!/usr/bin/env bash
# Time of `gpuforecast validate` against the number of launches (issue #34: the old
# pairing scanned every earlier launch of a name for each launch, 10 k rows 0.2 s, 40 k
# 4.1 s, 200 k 447 s under ASan). Writes, into a scratch directory (never the repo), a
# prediction CSV and an Nsight Compute CSV of N launches each: 60 % of one kernel
# (scale<float>, so tens of thousands of launches of one name), the rest spread over
# scale<double>, foo::kernel, bar::kernel and vecAdd<float>, the trace's mangled names
# against Nsight's demangled ones (bare "vecAdd" for the last). Prints N, wall and CPU
# seconds (user + system of validate alone) and peak RSS, and fails when a run takes
# more than LIMIT CPU seconds (default 60) or does not pair every launch.
#
# usage: bench/validate.sh [BUILD_DIR] [SCRATCH_DIR] [N...]   (default N: 10000 40000 200000)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
scratch=${2:-/tmp/gf-bench-validate}
if [ $# -ge 2 ]; then shift 2; else shift $#; fi
sizes=${*:-"10000 40000 200000"}
for n in $sizes; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "bench/validate.sh: N must be a positive number, got '$n'" >&2; exit 2; }
done
limit=${LIMIT:-60}
bin=$build/gpuforecast
mkdir -p "$scratch"
printf '| launches | wall s | CPU s | peak RSS MB |\n|---|---|---|---|\n'
for n in $sizes; do
  awk -v n="$n" -v dir="$scratch" 'BEGIN {
      split("_Z5scaleIfEvPT_i _Z5scaleIdEvPT_i _ZN3foo6kernelEPf _ZN3bar6kernelEPf _Z6vecAddIfEvPT_S1_S1_i", m, " ")
      h[1] = "void scale<float>(T1 *, int)"; h[2] = "void scale<double>(T1 *, int)"
      h[3] = "void foo::kernel(float *)"; h[4] = "void bar::kernel(float *)"; h[5] = "vecAdd"
      p = dir "/pred.csv"; q = dir "/ncu.csv"
      print "kernel_id,kernel_name,gpu,gpc__cycles_elapsed.max" > p
      print "\"ID\",\"Kernel Name\",\"gpc__cycles_elapsed.max\"" > q
      print "\"\",\"\",\"cycle\"" > q
      for (i = 0; i < n; i++) {
        k = i % 10 < 6 ? 1 : 2 + i % 4
        printf "%d,\"%s\",h100,%d\n", i + 1, m[k], 1000 + i % 7 > p
        printf "\"%d\",\"%s\",\"%d\"\n", i, h[k], 1100 + i % 5 > q
      } }'
  /usr/bin/time -f "%e %U %S %M" -o "$scratch/time" \
      "$bin" validate "$scratch/pred.csv" "$scratch/ncu.csv" --format csv -o "$scratch/out.csv"
  read -r wall user sys rss < "$scratch/time"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  printf '| %d | %s | %s | %d |\n' "$n" "$wall" "$cpu" $((rss / 1024))
  paired=$(grep -c '^kernel,' "$scratch/out.csv" || true)
  [ "$paired" -eq "$n" ] || { echo "bench/validate.sh: $paired of $n launches paired" >&2; exit 1; }
  awk -v c="$cpu" -v l="$limit" 'BEGIN { exit !(c <= l) }' \
      || { echo "bench/validate.sh: $n launches took $cpu CPU s (limit $limit)" >&2; exit 1; }
done
rm -f "$scratch/pred.csv" "$scratch/ncu.csv" "$scratch/out.csv" "$scratch/time"
