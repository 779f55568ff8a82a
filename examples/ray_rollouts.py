"""Rollouts of loam's vector environment across Ray workers: each worker steps its own batch of
environments with one C call per step (loam_env_step_batch), and the driver gathers the results.

    python3 examples/ray_rollouts.py --workers 4 --envs-per-worker 8 --particles 2000 --steps 100

The Ray cluster: --address, else $RAY_ADDRESS (a running cluster, e.g. `ray start --head` on one
machine and `ray start --address=HEAD:6379` on the others), else a local one with --workers CPUs.
The last line printed is a JSON summary (env steps, simulated seconds, throughput, mean reward)."""
import argparse
import json
import logging
import os
import sys
import time

import numpy as np


def rollout(worker, env_id, num_envs, steps, seed, policy, threads, config):
    """One worker's rollout: `steps` batched steps of `num_envs` environments. Runs inside a Ray task."""
    import gymnasium as gym

    import loam

    loam.set_threads(threads)
    envs = gym.make_vec(env_id, num_envs=num_envs, **config)
    rng = np.random.default_rng(seed)
    envs.reset(seed=seed)
    dim = envs.single_action_space.shape[0]
    cfg = envs.unwrapped.envs[0].config
    seconds_per_action = cfg["dt"] * cfg["steps_per_action"]
    running = np.zeros(num_envs)
    finished = []
    sim_seconds = 0.0
    t0 = time.perf_counter()
    for _ in range(steps):
        if policy == "scripted":
            actions = envs.unwrapped.scripted_actions()
        else:
            actions = rng.uniform(-1.0, 1.0, size=(num_envs, dim)).astype(np.float32)
        _, rewards, term, trunc, infos = envs.step(actions)
        running += rewards
        sim_seconds += float(np.sum(infos["sim_time"] > 0) * seconds_per_action)  # autoreset steps simulate nothing
        for i in np.flatnonzero(term | trunc):
            finished.append(float(running[i]))
            running[i] = 0.0
    wall = time.perf_counter() - t0
    envs.close()
    return {
        "worker": worker,
        "host": os.uname().nodename,
        "env_steps": steps * num_envs,
        "sim_seconds": sim_seconds,
        "wall_seconds": wall,
        "mean_step_reward": float(running.sum() + sum(finished)) / (steps * num_envs),
        "episodes_finished": len(finished),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--env", default="loam/Bulldozing-v0", help="environment id (default %(default)s)")
    ap.add_argument("--workers", type=int, default=2, help="Ray tasks, one per CPU (default %(default)s)")
    ap.add_argument("--envs-per-worker", type=int, default=4, help="vector environment size (default %(default)s)")
    ap.add_argument("--steps", type=int, default=50, help="batched steps per worker (default %(default)s)")
    ap.add_argument("--particles", type=int, default=2000, help="particles per environment (default %(default)s)")
    ap.add_argument("--steps-per-action", type=int, default=20, help="physics steps per action (default %(default)s)")
    ap.add_argument("--settle-steps", type=int, default=None, help="settling steps at creation (default: the env's)")
    ap.add_argument("--policy", choices=["random", "scripted"], default="random")
    ap.add_argument("--threads-per-worker", type=int, default=1, help="loam threads in each worker (default 1)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--address", default=None, help="Ray cluster address (default: $RAY_ADDRESS, else local)")
    args = ap.parse_args(argv)

    import ray

    address = args.address or os.environ.get("RAY_ADDRESS") or None
    if address:
        ray.init(address=address, logging_level=logging.WARNING)
    else:
        ray.init(num_cpus=args.workers, include_dashboard=False, logging_level=logging.WARNING)
    config = {"particles": args.particles, "steps_per_action": args.steps_per_action}
    if args.settle_steps is not None:
        config["settle_steps"] = args.settle_steps
    task = ray.remote(num_cpus=1)(rollout)
    t0 = time.perf_counter()
    futures = [task.remote(w, args.env, args.envs_per_worker, args.steps, args.seed + 1000 * w, args.policy,
                           args.threads_per_worker, config) for w in range(args.workers)]
    results = ray.get(futures)
    wall = time.perf_counter() - t0
    ray.shutdown()
    for r in results:
        print(f"worker {r['worker']} on {r['host']}: {r['env_steps']} env steps, {r['sim_seconds']:.1f} simulated s "
              f"in {r['wall_seconds']:.2f} s, mean reward per step {r['mean_step_reward']:.4f}, "
              f"{r['episodes_finished']} episodes finished")
    env_steps = sum(r["env_steps"] for r in results)
    summary = {
        "env": args.env,
        "workers": len(results),
        "envs_per_worker": args.envs_per_worker,
        "env_steps": env_steps,
        "sim_seconds": sum(r["sim_seconds"] for r in results),
        "wall_seconds": wall,
        "env_steps_per_second": env_steps / wall,
        "mean_step_reward": float(np.mean([r["mean_step_reward"] for r in results])),
        "hosts": sorted({r["host"] for r in results}),
    }
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
