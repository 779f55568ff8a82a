#!/usr/bin/env python3
"""Paper 002's Fig. 4 on this machine: springs updated per second against the total springs stepped
at once, from `loam bench softbody --json` (Mercury's protocol: the 10x10x10 voxel robot, population
doubled until springs x steps >= 1e10 or the time limit).

  python3 bench/softbody_fig4.py --loam build/loam --out docs/img [--threads 2] [--json FILE ...]

Without --json it runs the benchmark once per solver named by --solvers and keeps each JSON line in
OUT/softbody_fig4.jsonl; with --json it only plots lines saved earlier. Wall-clock rates and rates
per CPU second are both drawn: on a shared machine they differ by the share of the cores we had.
"""
import argparse
import json
import os
import subprocess
import sys


def run_json(cmd):
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loam", default="build/loam")
    ap.add_argument("--out", default="docs/img")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--solvers", default="force")
    ap.add_argument("--time-limit", default="240")
    ap.add_argument("--json", nargs="*", help="plot these saved JSON lines instead of running")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    runs = []
    if a.json:
        for path in a.json:
            with open(path) as f:
                runs += [json.loads(line) for line in f if line.strip()]
    else:
        with open(os.path.join(a.out, "softbody_fig4.jsonl"), "w") as log:
            for solver in a.solvers.split(","):
                d = run_json([a.loam, "bench", "softbody", "--solver", solver, "--threads", str(a.threads),
                              "--time-limit", a.time_limit, "--json", "--quiet"])
                log.write(json.dumps(d) + "\n")
                runs.append(d)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for d in runs:
        xs = [p["total_springs"] for p in d["series"]]
        wall = [p["springs_per_s"] for p in d["series"]]
        steps = d["steps"]
        cpu = [p["total_springs"] * steps / p["cpu_s"] * d["threads"] for p in d["series"]]
        label = "%s, %d threads" % (d["solver"], d["threads"])
        ax.plot(xs, wall, "o-", label=label + " (wall clock)")
        ax.plot(xs, cpu, "s--", alpha=0.6, label=label + " (per CPU s x threads)")
    ax.axhline(1e9, color="grey", lw=0.8, ls=":")
    ax.text(xs[0], 1.05e9, "goal 1e9 (Titan on a 2080 Ti)", fontsize=8, color="grey")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("total springs (robots x 14230)")
    ax.set_ylabel("springs updated per second")
    ax.set_title("loam softbody, Mercury's protocol (paper 002 Fig. 4)")
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    path = os.path.join(a.out, "softbody_fig4.png")
    fig.savefig(path, dpi=120)
    print(path)


if __name__ == "__main__":
    sys.exit(main())
