#!/usr/bin/env bash
# Installs what loam needs to build, test and make videos, from Debian's packages. Idempotent: it
# skips apt-get when everything is already there.
set -euo pipefail
packages=(build-essential cmake pkg-config libyaml-dev libpng-dev libcjson-dev ffmpeg clang libomp-dev
          libclang-rt-14-dev python3)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
