#!/usr/bin/env bash
# End-to-end: an install moved to another prefix works on its own: its binary and a small
# C program built with `pkg-config --cflags --libs` of the moved install find the models
# beside them (not the source tree's, not the configured prefix's; GF_MODELS_DIR
# overrides), need no LD_LIBRARY_PATH (rpath), and predict data/vecadd as the build
# tree does; where a mount namespace is allowed, with the source tree hidden.
# $1 = binary (its folder is the build tree), $2 = source dir.
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
cp -r "$src/data/vecadd" "$tmp/vecadd"
cat > "$tmp/use.c" <<'C'
#include <stdio.h>
#include <gpuforecast/gpuforecast.h>
int main(int argc, char **argv)
{
    gf_predict_request req = {.trace = argv[1], .gpu = argv[2]};
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
want=$("$bin" predict "$src/data/vecadd" --gpu v100 --format csv | python3 -c \
    'import csv,sys; print("%.0f" % float(next(csv.DictReader(sys.stdin))["gpc__cycles_elapsed.max"]))')
# a model only the moved install has: found only if it reads its own models
cp "$models/v100.ini" "$models/onlyhere.ini"
ibin=$tmp/moved/bin/gpuforecast
[ -x "$ibin" ] || ibin=$(find "$tmp/moved" -type f -name gpuforecast | head -1)
cat > "$tmp/run.sh" <<SH
set -e
unset GF_MODELS_DIR LD_LIBRARY_PATH
cd "$tmp"
"$ibin" gpus | grep -q onlyhere || { echo "the moved binary does not list its own models"; exit 1; }
c=\$("$ibin" predict vecadd --gpu onlyhere --format csv | python3 -c \
    'import csv,sys; print("%.0f" % float(next(csv.DictReader(sys.stdin))["gpc__cycles_elapsed.max"]))')
[ "\$c" = "$want" ] || { echo "the moved binary predicts \$c cycles, the build tree $want"; exit 1; }
c=\$("$tmp/use" vecadd onlyhere) || { echo "the program built against the moved install failed"; exit 1; }
[ "\$c" = "$want" ] || { echo "the moved library predicts \$c cycles, the build tree $want"; exit 1; }
cp -r "$models" other && cp other/v100.ini other/elsewhere.ini
GF_MODELS_DIR=$tmp/other "$ibin" gpus | grep -q elsewhere || { echo "GF_MODELS_DIR does not override"; exit 1; }
# a user's what-if in their own folder includes a shipped model by its bare name
mkdir -p mf && printf 'include = v100.ini\n[l2]\nsize = 3MiB\n' >mf/whatif.ini
"$ibin" predict vecadd --gpu mf/whatif.ini >/dev/null || { echo "include = v100.ini outside models/ fails"; exit 1; }
echo ran
SH
if unshare -m true 2>/dev/null; then
    # the source tree hidden under an empty folder for the run
    mkdir "$tmp/empty"
    out=$(unshare -m bash -c "mount --bind '$tmp/empty' '$src' && bash '$tmp/run.sh'") || fail "$out"
else
    echo "note: no mount namespace here: the source tree stays visible (the moved install's own model is still required)"
    out=$(bash "$tmp/run.sh") || fail "$out"
fi
echo ok
