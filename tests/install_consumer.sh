#!/usr/bin/env bash
# `cmake --install` lays out loam as C users expect, and a program builds against the installed tree
# (tests/install/consumer.c, which includes loam/loam.h and checks a sphere comes to rest on a plane):
# with find_package(loam) (loam::loam and loam::loam_static) and with pkg-config (loam.pc, shared;
# loam-static.pc, libloam.a with its dependencies), each run away from the build tree.
#   usage: install_consumer.sh <build-dir> <source-dir>
set -u
build="$(cd "$1" && pwd)"
src="$(cd "$2" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
run() { # run NAME command...: the command must succeed; its output goes to the log on failure
  local name="$1"
  shift
  "$@" >"$tmp/log" 2>&1 || fail "$name: '$*' failed: $(tail -c 3000 "$tmp/log")"
}

run install cmake --install "$build" --prefix "$prefix"
libdir="$prefix/lib"
[ -d "$libdir/pkgconfig" ] || libdir="$(dirname "$(find "$prefix" -name loam.pc | head -n 1)")/.."
for f in bin/loam include/loam/loam.h include/loam/export.h include/loam/granular.h; do
  [ -f "$prefix/$f" ] || fail "the install lacks $f"
done
for f in libloam.a libloam.so pkgconfig/loam.pc pkgconfig/loam-static.pc cmake/loam/loamConfig.cmake cmake/loam/loamTargets.cmake; do
  [ -e "$libdir/$f" ] || fail "the install lacks $libdir/$f"
done
"$prefix/bin/loam" --version | grep -q '^loam ' || fail "the installed loam --version does not answer"

# find_package(loam)
run cmake-configure cmake -S "$src/tests/install" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
run cmake-build cmake --build "$tmp/consumer"
cd "$tmp" || exit 1
run find_package-shared "$tmp/consumer/consumer_shared"
run find_package-static "$tmp/consumer/consumer_static"
ldd "$tmp/consumer/consumer_shared" 2>/dev/null | grep -q "$libdir/libloam.so" ||
  fail "consumer_shared does not load the installed libloam.so: $(ldd "$tmp/consumer/consumer_shared")"
ldd "$tmp/consumer/consumer_static" 2>/dev/null | grep -q libloam && fail "consumer_static still needs libloam.so"

# pkg-config
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc="${CC:-cc}"
run pkg-config-shared-build $cc -std=c11 -Wall -Wextra -Werror "$src/tests/install/consumer.c" -o "$tmp/pc_shared" \
  $(pkg-config --cflags --libs loam) -lm -Wl,-rpath,"$libdir"
run pkg-config-shared "$tmp/pc_shared"
run pkg-config-static-build $cc -std=c11 -Wall -Wextra -Werror "$src/tests/install/consumer.c" -o "$tmp/pc_static" \
  $(pkg-config --cflags --libs loam-static)
run pkg-config-static "$tmp/pc_static"
ldd "$tmp/pc_static" 2>/dev/null | grep -q libloam && fail "pc_static (loam-static.pc) still needs libloam.so"
for lib in -lyaml -lcjson -lxml2 -lm; do
  pkg-config --static --libs loam | grep -q -- "$lib" || fail "pkg-config --static --libs loam lacks $lib: $(pkg-config --static --libs loam)"
done

if [ "$failures" -ne 0 ]; then
  echo "install_consumer: $failures failure(s)" >&2
  exit 1
fi
echo "install_consumer: all checks passed"
