#!/bin/sh
# Memory per added particle, as issue 2 defines it: the growth of peak RSS from 10,000 to 100,000
# particles of the column at rest, divided by 90,000. One thread (per-thread scratch is not
# per-particle memory). Prints one line per container: box (LIGGGHTS' in.column footprint, settled
# at friction 0.1 as bench/peers/run_column_compare.py does) and cylinder (the bench's default).
# The simulation's peak (peak_rss_bytes): the bench's own analysis of the settled bed (heights,
# coordination: about 16 bytes a particle of scratch) is left out; the process's peak with it
# (peak_rss_process_bytes) follows.
# usage: bench/memory_per_particle.sh [path/to/loam]   (default build/loam)
set -e
loam=${1:-build/loam}
for container in box cylinder; do
    extra=""
    [ "$container" = box ] && extra="--settle-friction 0.1"
    small=$("$loam" bench granular --particles 10000 --container $container --threads 1 $extra --quiet --json | tail -1)
    large=$("$loam" bench granular --particles 100000 --container $container --threads 1 $extra --quiet --json | tail -1)
    python3 - "$container" "$small" "$large" <<'PY'
import json, sys
a, b = json.loads(sys.argv[2]), json.loads(sys.argv[3])
growth = (b["peak_rss_bytes"] - a["peak_rss_bytes"]) / 90000
process = (b["peak_rss_process_bytes"] - a["peak_rss_process_bytes"]) / 90000
print(f'{sys.argv[1]:8s} peak RSS {a["peak_rss_bytes"] / 1e6:.1f} MB at 10k, {b["peak_rss_bytes"] / 1e6:.1f} MB at 100k: '
      f'{growth:.0f} B per added particle ({b["contacts_per_particle"]:.2f} contacts per particle at 100k); '
      f'{process:.0f} B with the bench\'s analysis of the bed')
PY
done
