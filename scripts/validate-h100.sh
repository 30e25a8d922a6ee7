#!/usr/bin/env bash
# The H100 measurement loop in one command: predicts every case of the h100-gfbench
# reference set (real NVBit traces + Nsight Compute) and writes docs/validation-h100.md.
#
# Usage: scripts/validate-h100.sh [REFDIR] [-o FILE] [--check FILE] [--json FILE]
#                                 [--counter-checks FILE] [--cases a,b] [-j N] [--no-warm]
#   REFDIR  default data/h100 (the whole H100 reference set, bundled)
#   -o      default docs/validation-h100.md
#   --check thresholds file (tests/e2e/fixtures/h100-mape.txt): exit 1 if a figure got worse
#   --counter-checks  also write src/counters/h100_checks.inc (the errors `gpuforecast
#           counters` shows; rerun after a model change, the e2e test fails when stale)
# Environment: GF_BIN (default build/gpuforecast), GF_H100_EXTRA_ARGS (appended to every
# predict, e.g. "--set launch.kernel_cycles=0"), GF_H100_CASES (subset of cases).
# A case folder the script does not list as micro or application (a kernel kept aside
# when the model was derived) is reported as "held out", apart from "all", with the gap.
# The work is done by scripts/validate_h100.py (python3, standard library only).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
export GF_BIN=${GF_BIN:-$repo/build/gpuforecast}
cmd="scripts/validate-h100.sh${*:+ $*}"
exec python3 "$here/validate_h100.py" --command "$cmd" "$@"
