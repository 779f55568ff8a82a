#!/usr/bin/env bash
# The README's first command: set up, build loam, and run its main job on the default scene
# (about 20,000 particles poured into an open box, then ploughed by a blade). Output in out/plough/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
build/loam run scenes/plough.yaml --out out/plough "$@"
