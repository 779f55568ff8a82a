#!/usr/bin/env bash
# Runs Python tests (default: tests/python/test_threads.py) against an AddressSanitizer build of
# libloam, e.g. the one scripts/test.sh makes:
#   CC=clang cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOAM_SANITIZE=ON
#   cmake --build build-asan --target loam_shared
#   tests/python/run_asan.sh build-asan [pytest arguments]
# Python itself is not instrumented, so the sanitizer runtime must be loaded first (LD_PRELOAD): clang's
# libclang_rt.asan for a clang build, GCC's libasan for a GCC build (the library names it as needed).
# Leak checking is off (CPython keeps memory to its exit on purpose); pymalloc is off so ASan sees the
# buffers Python hands to loam.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build-asan}"
shift || true
lib="$PWD/$build/libloam.so"
[ -f "$lib" ] || { echo "run_asan.sh: no $lib (build the loam_shared target of an ASan tree first)" >&2; exit 2; }
if readelf -d "$lib" | grep -q 'libasan\.so'; then
  runtime="$(gcc -print-file-name=libasan.so)"
else
  runtime="$(clang -print-file-name="libclang_rt.asan-$(uname -m).so")"
fi
[ -f "$runtime" ] || { echo "run_asan.sh: no ASan runtime at '$runtime'" >&2; exit 2; }
[ $# -gt 0 ] || set -- tests/python/test_threads.py
LD_PRELOAD="$runtime" ASAN_OPTIONS="detect_leaks=0:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1" \
  PYTHONMALLOC=malloc LOAM_LIBRARY="$lib" PYTHONPATH="$PWD/python" \
  python3 -m pytest -q -p no:cacheprovider "$@"
