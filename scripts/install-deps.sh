#!/usr/bin/env bash
# Installs the Debian packages gpuforecast needs to build, test and plot. Idempotent.
set -euo pipefail
pkgs=(build-essential cmake pkg-config libgsl-dev zlib1g-dev liblzma-dev libcsv-dev
      libinih-dev libiberty-dev libzstd-dev libcmocka-dev libplplot-dev plplot-driver-cairo xz-utils gzip python3
      clang libclang-rt-dev) # clang + libFuzzer runtime: scripts/fuzz.sh, ctest fuzz.smoke
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
