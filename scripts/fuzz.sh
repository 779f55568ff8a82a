#!/usr/bin/env bash
# Fuzz the scene reader (fuzz/fuzz_scene.c), the mesh readers (fuzz/fuzz_mesh.c), the soft-robot
# reader (fuzz/fuzz_robot.c), the URDF reader (fuzz/fuzz_urdf.c) or the state-file loaders
# (fuzz/fuzz_state.c) with libFuzzer + ASan + UBSan.
#   [TARGET=scene|mesh|robot|urdf|state] scripts/fuzz.sh [seconds] [extra libFuzzer options...]     (default scene, 60 s)
# Builds build-fuzz/ with clang, starts from the seed corpus (fuzz/corpus/ for scenes,
# fuzz/corpus-mesh/ for meshes, fuzz/corpus-urdf/ for URDF) and keeps what it learns in
# fuzz/corpus-run[-mesh|-urdf]/ (git-ignored). A
# crash, leak, timeout or out-of-memory input is written to fuzz/crashes/ and the script exits
# non-zero; replay one with
#   build-fuzz/fuzz/fuzz_scene fuzz/crashes/<file>      (or fuzz_mesh)
# Environment: JOBS (parallel fuzzing processes, default 1), CC (default clang).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
case "$seconds" in
  ''|*[!0-9]*) echo "fuzz.sh: seconds must be a whole number, got '$seconds'" >&2; exit 2 ;;
esac
jobs="${JOBS:-1}"
target="${TARGET:-scene}"
case "$target" in
  scene) seeds=fuzz/corpus; learned=fuzz/corpus-run; dict=fuzz/scene.dict ;;
  mesh) seeds=fuzz/corpus-mesh; learned=fuzz/corpus-run-mesh; dict=fuzz/mesh.dict ;;
  robot) seeds=fuzz/corpus-robot; learned=fuzz/corpus-run-robot; dict=fuzz/robot.dict ;;
  urdf) seeds=fuzz/corpus-urdf; learned=fuzz/corpus-run-urdf; dict=fuzz/urdf.dict ;;
  state) seeds=fuzz/corpus-state; learned=fuzz/corpus-run-state; dict=fuzz/state.dict ;;
  *) echo "fuzz.sh: TARGET must be scene, mesh, robot, urdf or state, got '$target'" >&2; exit 2 ;;
esac
CC="${CC:-clang}" cmake -S . -B build-fuzz -DLOAM_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz --target "fuzz_$target" -j"$(nproc)"
mkdir -p "$learned" fuzz/crashes
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
args=(-max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -timeout=25
      -dict="$dict" -artifact_prefix=fuzz/crashes/ -print_final_stats=1)
if [ "$jobs" -gt 1 ]; then
  args+=(-jobs="$jobs" -workers="$jobs")
fi
status=0
"build-fuzz/fuzz/fuzz_$target" "${args[@]}" "$@" "$learned" "$seeds" || status=$?
if [ "$status" -ne 0 ]; then
  echo "fuzz.sh: the fuzzer stopped with status $status; reproducers in fuzz/crashes/:" >&2
  ls -l fuzz/crashes/ >&2 || true
fi
exit "$status"
