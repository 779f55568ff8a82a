#!/usr/bin/env python3
"""libloam.so's boundary (issue 24, item 5): `nm -D --defined-only` lists only loam_ names, each
declared with LOAM_API in a header under include/loam/; every function those headers declare is
exported (a declaration without LOAM_API, or one the library never defines, fails); loam/loam.h
includes every public header.
    usage: symbols.py LIBLOAM_SO SOURCE_DIR"""
import glob
import os
import re
import subprocess
import sys


def declarations(text):
    """(name, has LOAM_API) of each top-level function declaration of a header."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)  # preprocessor lines
    text = re.sub(r'extern\s+"C"\s*\{', " ", text)
    out, depth, stmt = [], 0, []
    for c in text:
        if c == "}" and depth == 0:
            stmt = []  # the end of extern "C" {
            continue
        stmt.append(c)
        depth += c == "{"
        depth -= c == "}"
        if c == ";" and depth == 0:
            s = " ".join("".join(stmt).split())
            stmt = []
            p, b = s.find("("), s.find("{")
            if p < 0 or (0 <= b < p) or s.startswith("typedef"):
                continue
            m = re.search(r"(\w+)\s*\($", s[: p + 1])
            if m:
                out.append((m.group(1), s.startswith("LOAM_API ")))
    return out


def exports(lib):
    nm = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in nm.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            names.add(parts[-1].split("@")[0])
    return names


def main():
    lib, src = sys.argv[1], sys.argv[2]
    failures = []
    declared = {}
    headers = sorted(glob.glob(os.path.join(src, "include", "loam", "*.h")))
    for h in headers:
        for name, api in declarations(open(h).read()):
            declared[name] = (os.path.relpath(h, src), api)
    if len(declared) < 100:
        failures.append(f"found only {len(declared)} declarations in include/loam/*.h: the header parser is broken")
    exported = exports(lib)
    # The live viewer is a library of its own (libloam_viewer, built only where GLFW and OpenGL are
    # found), so libloam never needs GL: viewer.h's functions are checked against it when it exists.
    viewer_lib = os.path.join(os.path.dirname(lib), "libloam_viewer.so")
    viewer_exported = exports(viewer_lib) if os.path.exists(viewer_lib) else None
    viewer_names = {n for n, (h, _) in declared.items() if os.path.basename(h) == "viewer.h"}
    for name in sorted(viewer_exported or ()):
        if name not in viewer_names:
            failures.append(f"{viewer_lib} exports {name}, which include/loam/viewer.h does not declare")
    for name in sorted(exported):
        if not name.startswith("loam_"):
            failures.append(f"{lib} exports {name}, which lacks the loam_ prefix")
        elif name not in declared:
            failures.append(f"{lib} exports {name}, which no header under include/loam/ declares")
    for name, (header, api) in sorted(declared.items()):
        if not api:
            failures.append(f"{header} declares {name} without LOAM_API")
        elif name in viewer_names:
            if viewer_exported is not None and name not in viewer_exported:
                failures.append(f"{header} declares {name} (LOAM_API) but {viewer_lib} does not export it")
        elif name not in exported:
            failures.append(f"{header} declares {name} (LOAM_API) but {lib} does not export it")
    umbrella = open(os.path.join(src, "include", "loam", "loam.h")).read()
    for h in headers:
        base = os.path.basename(h)
        if base != "loam.h" and f'#include "loam/{base}"' not in umbrella:
            failures.append(f"include/loam/loam.h does not include loam/{base}")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    if failures:
        sys.exit(1)
    print(f"symbols: {len(exported)} exported names, all loam_ and declared; {len(declared)} declared, all exported")


if __name__ == "__main__":
    main()
