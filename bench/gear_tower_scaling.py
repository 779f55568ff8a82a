#!/usr/bin/env python3
"""Paper 000's scaling figures, measured on this machine with loam's own benchmarks:

  Fig. 9 (left)   gear tower: realtime factor against the number of gears (bodies)
  Fig. 9 (right)  gear tower: realtime factor against the number of particles (log x)
  Fig. 3          column at rest: realtime factor against the hash table size, one line per N

Each point is one `loam bench env --kind gear_tower ...` or `loam bench granular ...` run (its JSON
line is kept in OUT/scaling.jsonl); the PNGs go to OUT. Usage:

  python3 bench/gear_tower_scaling.py --loam build/loam --out docs/img [--quick]

--quick uses fewer, smaller points (a smoke test, minutes instead of a quarter hour).
"""
import argparse
import json
import os
import platform
import subprocess
import sys


def run_json(cmd):
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def gear_point(loam, particles, gears, threads, actions):
    # 20 physics steps per action: the figure is the physics' speed, not an agent's.
    return run_json([loam, "bench", "env", "--kind", "gear_tower", "--particles", str(particles), "--gears", str(gears),
                     "--threads", str(threads), "--actions", str(actions), "--warmup", "1", "--steps-per-action", "20",
                     "--observe", "0", "--json"])


def hash_point(loam, particles, table, threads, steps):
    return run_json([loam, "bench", "granular", "--particles", str(particles), "--hash-table-size", str(table),
                     "--threads", str(threads), "--steps", str(steps), "--settle", "1000", "--quiet", "--json"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--loam", default="build/loam")
    ap.add_argument("--out", default="docs/img")
    ap.add_argument("--threads", type=int, default=0, help="0 = all cores")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--replot", action="store_true", help="redraw from OUT/scaling.jsonl without measuring")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if a.quick:
        sizes, gear_counts, hash_ns, factors = [1000, 4000, 16000], [1, 4, 8], [5000], [0.25, 1, 4]
    else:
        sizes = [1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000]
        gear_counts, hash_ns, factors = [1, 2, 4, 8, 16], [10000, 40000], [0.125, 0.25, 0.5, 1, 2, 4, 8, 16]
    rows = []
    machine = f"{cpu_name()}, {os.cpu_count()} cores"
    jsonl = os.path.join(a.out, "scaling.jsonl")
    if a.replot:  # the figures from the last run's JSON lines, nothing re-measured
        with open(jsonl) as f:
            rows = [json.loads(line) for line in f]
        by_size = [r for r in rows if r.get("figure") == "gear_tower_particles"]
        by_gears = [r for r in rows if r.get("figure") == "gear_tower_gears"]
        by_table = {}
        for r in rows:
            if r.get("figure") == "hash_table":
                by_table.setdefault(r["particles"], []).append(r)
        sizes, gear_counts = [r["particles"] for r in by_size], [r["gears"] for r in by_gears]
    else:
        by_size = [gear_point(a.loam, n, 4, a.threads, 3) for n in sizes]
        by_gears = [gear_point(a.loam, 20000 if not a.quick else 4000, k, a.threads, 3) for k in gear_counts]
        by_table = {n: [hash_point(a.loam, n, max(1, int(f * n)), a.threads, 100 if not a.quick else 30)
                        for f in factors] for n in hash_ns}
        rows = [dict(r, figure="gear_tower_particles") for r in by_size]
        rows += [dict(r, figure="gear_tower_gears") for r in by_gears]
        rows += [dict(r, figure="hash_table") for pts in by_table.values() for r in pts]
        with open(jsonl, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    threads = by_size[0]["threads"]
    machine += f", {threads} thread{'s' if threads != 1 else ''}"

    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    ax[0].plot(gear_counts, [r["realtime_factor"] for r in by_gears], "o-")
    ax[0].set_xlabel("number of gears (rigid bodies)")
    ax[0].set_ylabel("speed over realtime")
    ax[0].set_title(f"gear tower, {by_gears[0]['particles']} particles")
    ax[1].loglog(sizes, [r["realtime_factor"] for r in by_size], "o-")
    ax[1].set_xlabel("number of particles")
    ax[1].set_title("gear tower, 4 gears")
    for x in ax:
        x.grid(True, which="both", alpha=0.3)
        x.axhline(1.0, color="grey", lw=0.8, ls="--")
    fig.suptitle(f"loam, paper 000 Fig. 9 setting (dt 1e-3 s, 3 sweeps) - {machine}", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "gear_tower_scaling.png"), dpi=120)

    fig, ax = plt.subplots(figsize=(6, 4))
    for n, pts in by_table.items():
        ax.semilogx([p["hash_table_size"] if p.get("hash_table_size") else 2 * n for p in pts],
                    [p["realtime_factor"] for p in pts], "o-", label=f"{n} particles")
        ax.axvline(n, color="grey", lw=0.6, ls=":")
    ax.set_xlabel("hash table size (buckets)")
    ax.set_ylabel("speed over realtime")
    ax.set_title(f"loam, paper 000 Fig. 3 setting: column at rest - {machine}", fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "hash_table_scaling.png"), dpi=120)

    print("particles  realtime_factor (gear tower, 4 gears)")
    for r in by_size:
        print(f"{r['particles']:9d}  {r['realtime_factor']:.3g}")
    print("gears  realtime_factor (gear tower)")
    for r in by_gears:
        print(f"{r['gears']:5d}  {r['realtime_factor']:.3g}")
    print("particles  table  realtime_factor (column at rest)")
    for n, pts in by_table.items():
        for p in pts:
            print(f"{n:9d}  {p.get('hash_table_size', 0):9d}  {p['realtime_factor']:.3g}")
    print(f"machine: {machine}; plots in {a.out}/")


if __name__ == "__main__":
    main()
