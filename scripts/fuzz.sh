#!/usr/bin/env bash
# Builds the libFuzzer harnesses in tests/fuzz/ (clang -fsanitize=fuzzer,address,undefined)
# and runs each in turn for SECONDS (default 60) on its corpus, seeded from data/ and
# models/. Any crash, leak, sanitizer report or timeout fails the run; the input that
# caused it is left in DIR/artifacts/. Usage:
#   scripts/fuzz.sh [SECONDS] [HARNESS...]      (harnesses: trace tracez model isa profile)
# Environment: GF_FUZZ_DIR (default build-fuzz), GF_CLI (a built gpuforecast, for the
# .gfp seed; default build/gpuforecast, else one is built in DIR/cli; the .tracez seeds
# come from the tracez_write built beside it), CC (clang).
# Exit 77 when clang or its libFuzzer runtime is missing (ctest's skip code).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
[ $# -gt 0 ] && shift
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=(trace tracez model isa profile)
dir=${GF_FUZZ_DIR:-$root/build-fuzz}
cc=${CC:-clang}
case $cc in *clang*) ;; *) cc=clang ;; esac

mkdir -p "$dir/obj" "$dir/artifacts"
probe="$dir/probe.c"
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);
int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' >"$probe"
if ! command -v "$cc" >/dev/null || ! "$cc" -fsanitize=fuzzer "$probe" -o "$dir/probe" 2>/dev/null; then
  echo "fuzz.sh: skipped: $cc with the libFuzzer runtime (-fsanitize=fuzzer) is not available" \
       "(Debian: apt-get install clang libclang-rt-dev, or clang-14's bundled runtime)" >&2
  exit 77
fi

# The library, once, instrumented for coverage (fuzzer-no-link); objects rebuilt only
# when their source or a header changed. cli/ and validate/ (plotting) are not needed.
san=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
cflags=(-g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L "-DGF_SOURCE_MODELS_DIR=\"$root/models\""
        -I"$root/include" -I"$root/src" $(pkg-config --cflags gsl zlib liblzma libzstd inih))
libs=($(pkg-config --libs gsl zlib liblzma libzstd inih) -lcsv -lm -lpthread)
newest_header=$(find "$root/src" "$root/include" -name '*.h' -printf '%T@\n' | sort -n | tail -1)
objs=()
for src in "$root"/src/*/*.c; do
  case $src in */src/cli/* | */src/validate/*) continue ;; esac
  obj="$dir/obj/$(basename "$(dirname "$src")")_$(basename "$src" .c).o"
  objs+=("$obj")
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] ||
     [ "$(stat -c %Y "$obj")" -lt "${newest_header%.*}" ]; then
    "$cc" "${cflags[@]}" -fsanitize=fuzzer-no-link "${san[@]}" -c "$src" -o "$obj"
  fi
done
rm -f "$dir/libgf-fuzz.a"
ar rcs "$dir/libgf-fuzz.a" "${objs[@]}"
for h in "${harnesses[@]}"; do
  "$cc" "${cflags[@]}" -fsanitize=fuzzer "${san[@]}" "$root/tests/fuzz/fuzz_$h.c" \
    "$dir/libgf-fuzz.a" "${libs[@]}" -o "$dir/fuzz_$h"
done

# Seed corpora (copies: libFuzzer adds what it finds to them).
seed() { mkdir -p "$dir/corpus/$1"; }
for h in "${harnesses[@]}"; do
  seed "$h"
  case $h in
    trace)
      for t in "$root"/data/*/kernel-1.traceg; do
        head -c 4096 "$t" >"$dir/corpus/trace/$(basename "$(dirname "$t")")"
      done
      # tracer version 6's line forms (docs/tracez.md): flag, two immediates, values, TMA
      printf '%s\n' "-kernel name = k6" "-grid dim = (1,1,1)" "-block dim = (32,1,1)" \
        "-accelsim tracer version = 6" "#BEGIN_TB" "thread block = 0,0,0" "warp = 0" \
        "insts = 5" "0000 ffffffff 1 R5 IMAD.MOV.U32 2 R255 UR2 0 0 0 NoVal " \
        "0010 0000000f 0 STG.E 2 R2 R7 4 2 0x7f3a2c001000 4 8 -12 0 -3 NoVal " \
        "0020 ffffffff 1 R24 HGMMA.64x64x16.F32 2 UR4 R24 1 0 0 0 Val 1 00000000 1 0400 " \
        "0030 00000001 0 UTMALDG.2D 0 2 0x00000410 1 0x0003 8192 0 4 0x7f3a40000000 3 128 128 0 0 NoVal " \
        "0040 ffffffff 0 BAR.SYNC.DEFER_BLOCKING 0 0 0 256 Val " "#END_TB" \
        >"$dir/corpus/trace/tracer-v6" ;;
    tracez)
      # bundled traces as 2.0 writes them; the small ones (seeds within max_len)
      cli=${GF_CLI:-$root/build/gpuforecast}
      writer=$(dirname "$cli")/tracez_write
      if [ ! -x "$writer" ]; then
        cmake -S "$root" -B "$dir/cli" >/dev/null
        cmake --build "$dir/cli" --target tracez_write -j2 >/dev/null
        writer=$dir/cli/tracez_write
      fi
      # (each trace's header and first thread block: small seeds keep the runs fast)
      for t in "$root"/data/*/kernel-1.traceg; do
        n=$(basename "$(dirname "$t")")
        awk '{ print } /^#END_TB/ { exit }' "$t" >"$dir/head.traceg"
        "$writer" --subchunk 7 "$dir/head.traceg" "$dir/corpus/tracez/$n-d7" 2>/dev/null || true
        "$writer" --no-dict --subchunk 2048 "$dir/head.traceg" "$dir/corpus/tracez/$n-2048" \
          2>/dev/null || true
      done
      find "$dir/corpus/tracez" -type f -size +8k -delete ;;
    model)
      # includes made absolute: the harness loads its input from /tmp
      for m in "$root"/models/*.ini; do
        sed "s|^include *= *\([^/].*\)|include = $root/models/\1|" "$m" \
          >"$dir/corpus/model/$(basename "$m")"
      done ;;
    isa)
      cp "$root"/models/isa/*.csv "$dir/corpus/isa/" ;;
    profile)
      cli=${GF_CLI:-$root/build/gpuforecast}
      if [ ! -x "$cli" ]; then
        cmake -S "$root" -B "$dir/cli" -DGF_BUILD_TESTS=OFF >/dev/null
        cmake --build "$dir/cli" --target gpuforecast_cli -j2 >/dev/null
        cli=$dir/cli/gpuforecast
      fi
      "$cli" profile "$root/data/vecadd" --gpu v100 -o "$dir/fuzz-base.gfp" -q
      # mode byte 0: the file as it is; 1: patches to its payload (fuzz_profile.c)
      { printf '\0'; cat "$dir/fuzz-base.gfp"; } >"$dir/corpus/profile/whole"
      printf '\1' >"$dir/corpus/profile/unpatched"
      printf '\1\x18\x00\x00\x00\x04\x00\x00\x00\x00' >"$dir/corpus/profile/patch-gpu" ;;
  esac
done

export GF_FUZZ_PROFILE=$dir/fuzz-base.gfp GF_MODELS_DIR=$root/models
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
status=0
for h in "${harnesses[@]}"; do
  case $h in isa) maxlen=65536 ;; model) maxlen=16384 ;; tracez) maxlen=8192 ;; *) maxlen=4096 ;; esac
  log="$dir/fuzz_$h.log"
  echo "fuzz_$h: ${secs}s on $dir/corpus/$h" >&2
  if (cd "$dir" && "./fuzz_$h" -max_total_time="$secs" -max_len=$maxlen -timeout=20 \
        -rss_limit_mb=2560 -print_final_stats=1 -artifact_prefix="$dir/artifacts/$h-" \
        "$dir/corpus/$h") >"$log" 2>&1; then
    grep -E '^Done [0-9]+ runs' "$log" | sed "s/^/fuzz_$h: /" >&2 || true
  else
    echo "fuzz_$h: FINDING (log $log, input in $dir/artifacts/):" >&2
    grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" | head -20 >&2 || tail -20 "$log" >&2
    status=1
  fi
done
exit $status
