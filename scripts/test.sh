#!/usr/bin/env bash
# The README's second command (and what CI runs): set up, build loam, and run every test in a
# Release build and under AddressSanitizer + UndefinedBehaviorSanitizer, and every test that starts
# a second thread under ThreadSanitizer with LLVM's Archer (which teaches it OpenMP's
# synchronisation), so a data race in any parallel loop fails the suite. The sanitizer builds run
# the slowest tests short (LOAM_TEST_SHORT, tests/CMakeLists.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs="$(nproc)"
sanitizers=1
[ "${LOAM_SKIP_SANITIZERS:-0}" != "1" ] || sanitizers=0
archer="$(find /usr/lib/llvm-*/lib -name libarcher.so 2>/dev/null | sort | tail -n 1)"
# A sanitizer build compiles in the background, niced, while the stage before it runs its tests:
# it takes only what they leave idle (pytest runs on one core, ctest's last tests on one), and its
# log is shown if it fails. Each is waited for before its own tests.
bg_pid=""
trap '[ -z "$bg_pid" ] || kill -- "-$bg_pid" 2>/dev/null || true' EXIT
build_in_background() { # build dir, then its cmake options
  local dir="$1"
  shift
  CC=clang cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOAM_WERROR=ON "$@" >/dev/null
  # its own process group (setsid), so that a failure elsewhere stops the compilers too
  setsid nice -n 19 cmake --build "$dir" -j"$jobs" >"$dir/build.log" 2>&1 &
  bg_pid=$!
}
wait_for_build() {
  local rc=0
  wait "$bg_pid" || rc=$?
  bg_pid=""
  [ "$rc" -eq 0 ] || { cat "$1/build.log"; echo "test.sh: $1 failed to build"; exit "$rc"; }
}
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLOAM_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
[ "$sanitizers" = 0 ] || build_in_background build-asan -DLOAM_SANITIZE=ON
ctest --test-dir build --output-on-failure -j"$jobs"
# Python: `pip install ./python` puts libloam into the package (LOAM_BUILD_DIR=build: the library just
# built, not a second build); then its tests.
pip_flags=(-q --root-user-action=ignore --force-reinstall --no-deps)
python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))' &&
  pip_flags+=(--break-system-packages)
LOAM_BUILD_DIR=build python3 -m pip install "${pip_flags[@]}" ./python
python3 -m pytest tests/python -q -p no:cacheprovider
if [ "$sanitizers" = 1 ]; then
  # The sanitizer builds run the slowest tests short (LOAM_TEST_SHORT, tests/CMakeLists.txt): the
  # same code with fewer steps or coarser grids; their full-size checks ran above.
  wait_for_build build-asan
  [ -z "$archer" ] || build_in_background build-tsan -DLOAM_TSAN=ON
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build-asan --output-on-failure -j"$jobs"
  # Python threads on loam objects, against the same ASan libloam (the runtime preloaded into python3)
  tests/python/run_asan.sh build-asan
  if [ -n "$archer" ]; then
    wait_for_build build-tsan
    # Only the tests that start a second thread: in the others TSan has nothing to check (the
    # single_thread label, kept true by the Release test single_thread_labels).
    OMP_TOOL_LIBRARIES="$archer" OMP_NUM_THREADS=2 TSAN_OPTIONS="halt_on_error=1 ignore_noninstrumented_modules=1" \
      ctest --test-dir build-tsan --output-on-failure -j"$jobs" -LE single_thread
  else
    echo "test.sh: no libarcher.so (libomp-dev): ThreadSanitizer stage skipped"
  fi
fi
echo "test.sh: all tests passed"
