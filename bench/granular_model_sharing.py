"""Memory of N worlds of one granular model against N independent worlds (issue 24, item 4).

Each case runs in a process of its own and reports the growth of peak RSS over the process before
the worlds were made, and loam's own counts (loam_world_memory, loam_granular_model_memory). Cases:
  shared    one loam.Model, N worlds of it
  models    N models, one world each (independent worlds built the model way)
  private   N worlds of loam.World + add_particles / add_body (each with its private model)
Every world takes 3 steps, so its contact and solver scratch exists. A lattice of P particles of
radius 5 mm in a box. usage: python3 bench/granular_model_sharing.py [N] [P]   (default 8 50000)
Run from the repository root with PYTHONPATH=python LOAM_LIBRARY=build/libloam.so, or installed."""
import json
import resource
import subprocess
import sys


def case(kind, n, p):
    import numpy as np

    import loam

    side = int(round(p ** (1 / 3))) + 1
    i = np.arange(p)
    xyz = np.stack([(i % side) * 0.0105, ((i // side) % side) * 0.0105, (i // (side * side)) * 0.0105 + 0.006], 1)
    xyz = (xyz - [0.0105 * side / 2, 0.0105 * side / 2, 0]).astype(np.float32)
    ground = loam.Body("box", [loam.plane(friction=0.5)])
    loam.set_threads(1)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    keep, models = [], []
    if kind == "shared":
        m = loam.Model()
        m.add_particles(xyz, 0.005)
        m.add_body(ground)
        models.append(m)
        keep = [m.world() for _ in range(n)]
    elif kind == "models":
        for _ in range(n):
            m = loam.Model()
            m.add_particles(xyz, 0.005)
            m.add_body(ground)
            models.append(m)
            keep.append(m.world())
    else:
        for _ in range(n):
            w = loam.World()
            w.add_particles(xyz, 0.005)
            w.add_body(ground)
            keep.append(w)
    for w in keep:
        w.step(3)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    counted = sum(w.memory for w in keep) + sum(m.memory for m in models)
    print(json.dumps({"case": kind, "rss_growth": peak - base, "counted": counted}))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--case":
        case(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        sys.exit(0)
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    p = int(sys.argv[2]) if len(sys.argv) > 2 else 50000
    for kind in ("shared", "models", "private"):
        out = subprocess.run([sys.executable, __file__, "--case", kind, str(n), str(p)], check=True, capture_output=True, text=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{kind:8s} {n} worlds of {p} particles: peak RSS +{r['rss_growth'] / 1e6:.1f} MB "
              f"({r['rss_growth'] / n / p:.0f} B per particle per world); loam counts {r['counted'] / 1e6:.1f} MB")
