#!/usr/bin/env bash
# End-to-end: every bundled trace (data/*, data/h100/*) turned into Accel-Sim 2.0 .tracez
# files by the test-side writer (tests/tools/tracez_write.c, laid out as the 2.0
# post-processor's write_tracez), with and without a dictionary and with sub-chunks of 1,
# 7 and 2048 instructions, predicts byte-identically to its text form (predict --format
# csv), through a kernelslist.g naming kernel-N.tracez as 2.0 writes it. A mixed list
# (one kernel .traceg, the same kernel again as .tracez) predicts as the all-text one.
# Peak RSS of the largest .tracez prediction stays within 10 % of the text one's
# (bounded memory: one sub-chunk decoded at a time). The large H100 traces take two of
# the six variants (dictionary with sub-chunks of 7, none with 2048), and five of the 24
# H100 cases are converted, unless GF_TRACEZ_FULL=1 asks for all (~5 CPU minutes for the
# six variants of five cases). $1 = binary, $2 = source dir.
set -u
bin=$1
src=$2
writer=$(dirname "$bin")/tracez_write
[ -x "$writer" ] || { echo "SKIP: $writer not built"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

gpu_of() { # the model of the GPU a trace was taken on, from its header
    local v
    v=$( (xz -dcf "$1" 2>/dev/null || gzip -dcf "$1") | grep -m1 '^-binary version' | tr -dc 0-9)
    case "$v" in
        61) echo gtx1080 ;; 80) echo a100 ;; 86) echo rtx3070 ;; 90) echo h100 ;;
        *) echo v100 ;;
    esac
}

n=0
for dir in "$src"/data/*/ "$src"/data/h100/*/; do
    [ -f "$dir/kernelslist.g" ] || continue
    name=$(basename "$dir")
    # of the 24 H100 cases, five that cover the reader's paths (one to three line shapes
    # each, shared memory, LDGSTS-free tiling, a RED) unless GF_TRACEZ_FULL=1
    # (the sanitizer build converts the small data/ traces only: the reader's paths are the
    # same, and the H100 conversions are the plain build's)
    case "$dir" in */h100/*)
        [ -z "${ASAN_OPTIONS:-}" ] || continue
        [ "${GF_TRACEZ_FULL:-0}" = 1 ] || case " vecadd stride1 pchase_l1 reduce sgemm_tiled " in
            *" $name "*) ;; *) continue ;; esac ;;
    esac
    case $dir in */h100/*) name=h100-$name ;; esac
    gpu=""
    for k in $(grep -v '^Memcpy' "$dir/kernelslist.g"); do
        f=$(ls "$dir/$k" "$dir/$k.gz" "$dir/$k.xz" 2>/dev/null | head -1)
        [ -n "$f" ] || fail "$name: $k not found"
        gpu=$(gpu_of "$f")
    done
    "$bin" predict "$dir" --gpu "$gpu" --format csv -o "$tmp/$name.text.csv" 2>/dev/null ||
        fail "$name: text prediction"
    for dict in "" --no-dict; do
        for sc in 1 7 2048; do
            case "$name,$dict,$sc,${GF_TRACEZ_FULL:-0}" in
                h100-*,,7,0 | h100-*,--no-dict,2048,0 | *,1) ;;
                h100-*) continue ;;
            esac
            out=$tmp/$name-$sc$dict
            mkdir -p "$out"
            sed 's/\.traceg\(\.xz\|\.gz\)\?$/.tracez/' "$dir/kernelslist.g" > "$out/kernelslist.g"
            for k in $(grep -v '^Memcpy' "$dir/kernelslist.g"); do
                f=$(ls "$dir/$k" "$dir/$k.gz" "$dir/$k.xz" 2>/dev/null | head -1)
                z=$(echo "$k" | sed 's/\.traceg\(\.xz\|\.gz\)\?$/.tracez/')
                "$writer" $dict --subchunk $sc "$f" "$out/$z" 2>/dev/null ||
                    fail "$name: writer ($dict sub-chunks $sc)"
            done
            "$bin" predict "$out" --gpu "$gpu" --format csv -o "$out.csv" 2>"$out.err" ||
                { cat "$out.err"; fail "$name: .tracez prediction ($dict sub-chunks $sc)"; }
            cmp -s "$tmp/$name.text.csv" "$out.csv" ||
                { diff "$tmp/$name.text.csv" "$out.csv" | head -5
                  fail "$name: .tracez ($dict sub-chunks $sc) predicts differently"; }
            n=$((n + 1))
        done
    done
done
# 18 data/ traces x 6 variants, and (plain build) 5 H100 cases x 2
want=118
[ -n "${ASAN_OPTIONS:-}" ] && want=108
[ "$n" -ge "$want" ] || fail "only $n conversions compared (expected $want: every bundled trace x 6, five H100 x 2)"

# a mixed list: the vecadd kernel as text, then as .tracez
mix=$tmp/mixed
mkdir -p "$mix"
cp "$src/data/vecadd/kernel-1.traceg" "$mix/"
cp "$tmp/vecadd-7/kernel-1.tracez" "$mix/kernel-2.tracez"
printf 'kernel-1.traceg\nkernel-1.traceg\n' > "$tmp/both-text.g"
cp "$src/data/vecadd/kernel-1.traceg" "$tmp/"
printf 'kernel-1.traceg\nkernel-2.tracez\n' > "$mix/kernelslist.g"
"$bin" predict "$tmp/both-text.g" --gpu v100 --format csv -o "$tmp/both.csv" || fail "two text kernels"
"$bin" predict "$mix" --gpu v100 --format csv -o "$tmp/mix.csv" || fail "mixed list"
cmp -s "$tmp/both.csv" "$tmp/mix.csv" ||
    { diff "$tmp/both.csv" "$tmp/mix.csv" | head; fail "mixed list predicts differently"; }

# info names the format
"$bin" info "$mix/kernel-2.tracez" | grep -q '(tracez)' || fail "info does not say tracez"

# bounded memory: the largest case's peak RSS, text vs .tracez (sub-chunks of 2048)
if [ -x /usr/bin/time ] && [ -z "${ASAN_OPTIONS:-}" ]; then
    /usr/bin/time -f %M "$bin" predict "$src/data/h100/sgemm_tiled" --gpu h100 -o /dev/null 2>"$tmp/rss.text" >/dev/null
    /usr/bin/time -f %M "$bin" predict "$tmp/h100-sgemm_tiled-2048--no-dict" --gpu h100 -o /dev/null 2>"$tmp/rss.z" >/dev/null
    a=$(tail -1 "$tmp/rss.text"); b=$(tail -1 "$tmp/rss.z")
    echo "peak RSS sgemm_tiled: text $a KiB, .tracez $b KiB"
    [ "$b" -le $((a + a / 10)) ] || fail ".tracez peak RSS $b KiB exceeds the text's $a KiB by > 10 %"
fi
echo "ok: $n .tracez conversions predict byte-identically"
