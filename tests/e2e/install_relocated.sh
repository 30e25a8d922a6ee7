#!/usr/bin/env bash
# End-to-end: an install moved to another prefix still works through pkg-config
# (gpuforecast.pc names its prefix relative to itself): a small C program built with
# `pkg-config --cflags --libs` of the moved install predicts data/vecadd with the models
# the .pc's modelsdir names. $1 = binary (its folder is the build tree), $2 = source dir.
set -u
bin=$1
src=$2
build=$(dirname "$bin")
command -v pkg-config >/dev/null || { echo "skip: pkg-config not found"; exit 77; }
# (scripts/test-sanitize.sh sets ASAN_OPTIONS: its library wants the ASan runtime loaded
# first, which a plain program does not do)
[ -z "${ASAN_OPTIONS:-}" ] || { echo "skip: sanitizer build"; exit 77; }
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cmake --install "$build" --prefix "$tmp/first" >/dev/null || fail "cmake --install"
mv "$tmp/first" "$tmp/moved"
pc=$(dirname "$(find "$tmp/moved" -name gpuforecast.pc | head -1)")
[ -n "$pc" ] || fail "no gpuforecast.pc installed"
export PKG_CONFIG_PATH=$pc
inc=$(pkg-config --variable=includedir gpuforecast)
models=$(pkg-config --variable=modelsdir gpuforecast)
[ -f "$inc/gpuforecast/gpuforecast.h" ] || fail "includedir $inc does not hold the header"
[ -f "$models/v100.ini" ] || fail "modelsdir $models does not hold the models"
cat > "$tmp/use.c" <<'C'
#include <stdio.h>
#include <gpuforecast/gpuforecast.h>
int main(int argc, char **argv)
{
    gf_predict_request req = {.trace = argv[1], .gpu = "v100", .models_dir = argv[2]};
    gf_result *r;
    gf_error e;
    if (argc < 3 || gf_predict_file(&req, &r, &e) != GF_OK) {
        fprintf(stderr, "%s:%ld: %s\n", e.file, e.line, e.message);
        return 1;
    }
    printf("%.0f\n", gf_result_value(r, 0, "gpc__cycles_elapsed.max"));
    gf_result_free(r);
    return 0;
}
C
# shellcheck disable=SC2046
cc -o "$tmp/use" "$tmp/use.c" $(pkg-config --cflags --libs gpuforecast) || fail "build against the moved install"
libdir=$(pkg-config --variable=libdir gpuforecast)
cycles=$(LD_LIBRARY_PATH=$libdir "$tmp/use" "$src/data/vecadd" "$models") || fail "run"
want=$("$bin" predict "$src/data/vecadd" --gpu v100 --format csv | python3 -c \
    'import csv,sys; print("%.0f" % float(next(csv.DictReader(sys.stdin))["gpc__cycles_elapsed.max"]))')
[ "$cycles" = "$want" ] || fail "the moved install predicts $cycles cycles, the CLI $want"
echo ok
