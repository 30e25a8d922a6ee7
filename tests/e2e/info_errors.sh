#!/usr/bin/env bash
# `gpuforecast info` error exits: failed runs exit 1 with "gpuforecast: error:", usage
# errors exit 2 with a hint, and -o leaves no file behind on failure.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() { # expect CODE PATTERN -- args...
    local code=$1 pat=$2
    shift 3
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" != "$code" ] || ! grep -q -- "$pat" "$tmp/err"; then
        echo "FAIL: '$*' exited $rc (want $code), stderr:"; cat "$tmp/err"; fail=1
    fi
}
expect 1 "gpuforecast: error: $tmp/missing: cannot open" -- info "$tmp/missing"
expect 2 "unknown option '--bogus'" -- info --bogus x
expect 2 "Try 'gpuforecast info --help'" -- info
expect 2 "unknown format 'yaml'" -- info x --format yaml
printf -- '-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 4\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n0000 ffffffff 0 NOP 0 0\n' \
    >"$tmp/short.traceg"
expect 1 "gpuforecast: error: $tmp/short.traceg:10: warp 0 declares insts = 2" -- info "$tmp/short.traceg"
expect 1 "gpuforecast: error: .*:10:" -- info "$tmp/short.traceg" -o "$tmp/out.json"
[ ! -e "$tmp/out.json" ] || { echo "FAIL: -o left a file behind"; fail=1; }
echo old >"$tmp/keep.json"
expect 1 "gpuforecast: error: .*:10:" -- info "$tmp/short.traceg" -o "$tmp/keep.json"
[ "$(cat "$tmp/keep.json")" = old ] || { echo "FAIL: -o clobbered an existing file on error"; fail=1; }
printf -- '-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 4\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 NOP 0 0\n' \
    >"$tmp/ok.traceg"
"$bin" info "$tmp/ok.traceg" --format json -o "$tmp/ok.json" && python3 -m json.tool "$tmp/ok.json" >/dev/null ||
    { echo "FAIL: -o with a valid trace"; fail=1; }
for i in $(seq 1 20000); do echo "-key$i = value $i"; done | gzip >"$tmp/k.traceg.gz"
head -c 20000 "$tmp/k.traceg.gz" >"$tmp/trunc.traceg"
expect 1 "gzip stream is truncated" -- info "$tmp/trunc.traceg"
"$bin" info --help | grep -q "usage: gpuforecast info TRACE" || { echo "FAIL: --help"; fail=1; }
exit $fail
