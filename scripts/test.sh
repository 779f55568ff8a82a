#!/usr/bin/env bash
# The README's second command (and what CI runs): set up, build loam, and run every test three
# times: in a Release build, under AddressSanitizer + UndefinedBehaviorSanitizer, and under
# ThreadSanitizer with LLVM's Archer (which teaches it OpenMP's synchronisation), so a data race
# in any parallel loop fails the suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs="$(nproc)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLOAM_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"
# Python: `pip install ./python` puts libloam into the package (LOAM_BUILD_DIR=build: the library just
# built, not a second build); then its tests.
pip_flags=(-q --root-user-action=ignore --force-reinstall --no-deps)
python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))' &&
  pip_flags+=(--break-system-packages)
LOAM_BUILD_DIR=build python3 -m pip install "${pip_flags[@]}" ./python
python3 -m pytest tests/python -q -p no:cacheprovider
if [ "${LOAM_SKIP_SANITIZERS:-0}" != "1" ]; then
  CC=clang cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOAM_SANITIZE=ON -DLOAM_WERROR=ON >/dev/null
  cmake --build build-asan -j"$jobs"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build-asan --output-on-failure -j"$jobs"
  # Python threads on loam objects, against the same ASan libloam (the runtime preloaded into python3)
  tests/python/run_asan.sh build-asan
  archer="$(find /usr/lib/llvm-*/lib -name libarcher.so 2>/dev/null | sort | tail -n 1)"
  if [ -n "$archer" ]; then
    CC=clang cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOAM_TSAN=ON -DLOAM_WERROR=ON >/dev/null
    cmake --build build-tsan -j"$jobs"
    OMP_TOOL_LIBRARIES="$archer" OMP_NUM_THREADS=2 TSAN_OPTIONS="halt_on_error=1 ignore_noninstrumented_modules=1" \
      ctest --test-dir build-tsan --output-on-failure -j"$jobs"
  else
    echo "test.sh: no libarcher.so (libomp-dev): ThreadSanitizer stage skipped"
  fi
fi
echo "test.sh: all tests passed"
