"""``python -m benchmarks.profile``: where each world's batched step spends its time.

For every benchmark world at one num_envs (its family's ``Benchmark.profile_envs``: 16,384, and
256 for the worlds that generate Craftax maps, whose step slows sharply past that on a CPU), four
measurements of the same random-action rollout (``lax.scan``, median of repeats, compile time
excluded):

- **step**: the step the env benchmark times (gymnax's auto-reset ``vmap(env.step)``, or
  optimistic resets);
- **no observation**: the same step with no observation returned, so XLA drops the work of
  building it (the reset's observation included);
- **state only**: ``vmap(env.step_env)`` from reset states, no resets and no observation: the
  state update alone;
- **copy floor**: a rollout that reads and writes every byte of the state and observation once
  per step and does nothing else (what rewriting them costs on this machine).

The step's time splits into the observation (step - no observation), resets (no observation -
state only) and the state update (state only); the largest share names what bounds the world
(a share below 0, from the spread of the timings, counts as 0). A step at least half as fast as
its copy floor is at the machine's memory traffic for its state and observation.

Writes ``profile.json`` and ``profile.md`` under ``--out`` (default ``runs/benchmarks/<device>``;
a file there is replaced only with ``--overwrite``).
"""

from __future__ import annotations

import argparse
from typing import Any

from baselines.worlds import cli
from benchmarks import RESULTS_OUT, provenance_line, write_results

FILES = ("profile.json", "profile.md")
PARTS = ("observation", "resets", "state update")
RATES = ("step", "no_observation", "state_only", "copy_floor")


def copy_floor_rollout(num_steps: int):
    """``rollout(key, params, carry)``: ``num_steps`` steps that add a key-dependent 0 or 1 to every
    leaf of ``carry`` (booleans flipped, PRNG keys kept), reading and writing each byte once per step."""
    import jax  # here, not at the top: --help starts without JAX
    import jax.numpy as jnp

    def rollout(key, params, carry):
        def body(carry, k):
            bit = jax.random.bernoulli(k)

            def touch(x):
                if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key):
                    return x  # a few bytes; keys have no arithmetic
                return x ^ bit if x.dtype == jnp.bool_ else x + bit.astype(x.dtype)

            return jax.tree.map(touch, carry), None

        return jax.lax.scan(body, carry, jax.random.split(key, num_steps))[0]

    return rollout


def profile_world(env: Any, params: Any, num_envs: int, num_steps: int, reset_ratio: int | None, repeats: int = 5, seed: int = 0) -> dict:
    """Steps/s of the step, the step without observation, the state update alone and the copy floor of ``num_envs``
    worlds; bytes of state and observation per world; each part's share of the step's time and
    the part that bounds it."""
    import jax

    from benchmarks.env_sps import measure_env, reset_states, step_only_rollout, time_rollout

    states = reset_states(env, params, num_envs, seed)
    obs = jax.vmap(env.get_obs, in_axes=(0, None))(states, params)
    rate = {
        "step": measure_env(env, params, num_envs, num_steps, repeats, seed, reset_ratio),
        "no_observation": measure_env(env, params, num_envs, num_steps, repeats, seed, reset_ratio, observe=False),
        "state_only": time_rollout(step_only_rollout(env, num_envs, num_steps, False), params, num_envs, num_steps, repeats, seed, states),
        "copy_floor": time_rollout(copy_floor_rollout(num_steps), params, num_envs, num_steps, repeats, seed, (obs, states)),
    }
    sps = {name: r["steps_per_s_median"] for name, r in rate.items()}
    seconds = {name: 1 / v for name, v in sps.items()}
    shares = {
        "observation": max(seconds["step"] - seconds["no_observation"], 0.0),
        "resets": max(seconds["no_observation"] - seconds["state_only"], 0.0),
        "state update": seconds["state_only"],
    }
    total = sum(shares.values())
    shares = {part: value / total for part, value in shares.items()}
    return {
        "num_envs": num_envs,
        "num_steps": num_steps,
        "reset": rate["step"]["reset"],
        "steps_per_s": sps,
        "bytes_per_world": {
            "state": sum(x.nbytes for x in jax.tree.leaves(states)) // num_envs,
            "observation": sum(x.nbytes for x in jax.tree.leaves(obs)) // num_envs,
        },
        "shares": shares,
        "bound": max(shares, key=lambda part: shares[part]),
        "floor_ratio": sps["step"] / sps["copy_floor"],
    }


def markdown(rows: list[dict], info: dict) -> str:
    lines = [
        provenance_line(info),
        "",
        "| world | num_envs | step | no observation | state only | copy floor | bytes (state + obs) | "
        "observation | resets | state update | bound |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        sps, size = r["steps_per_s"], r["bytes_per_world"]
        rates = [f"{sps[k] / 1e6:,.2f}M" if sps[k] >= 1e6 else f"{sps[k]:,.0f}" for k in RATES]
        bound = r["bound"] + (" (memory floor)" if r["floor_ratio"] >= 0.5 else "")
        cells = [r["world"], f"{r['num_envs']:,}", *rates, f"{size['state']:,} + {size['observation']:,}"]
        cells += [f"{r['shares'][p]:.0%}" for p in PARTS] + [bound]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "Steps/s; observation, resets and state update are shares of the step's time; a step at least half as fast as",
        "its copy floor is bound by the memory traffic of its state and observation (memory floor).",
    ]
    return "\n".join(lines) + "\n"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.profile", description=__doc__.split("\n\n")[0])
    p.add_argument("--env", nargs="+", default=None, metavar="ID", help="worlds (default: every benchmark world)")
    p.add_argument("--num-envs", type=cli.positive_int, default=None, metavar="N", help="worlds at once (default: each family's size)")
    p.add_argument("--repeats", type=cli.positive_int, default=5, metavar="R", help="timed calls per measurement (median; default 5)")
    cli.add_out(p, RESULTS_OUT)
    cli.add_run_options(p)
    return p


def profile_worlds(table: dict, num_envs: int | None, repeats: int, quiet: bool = False) -> list[dict]:
    """``profile_world`` of every world of ``table`` (``benchmarks.worlds.BenchWorld`` by name), at
    ``num_envs`` or its family's ``profile_envs``, with a progress bar unless ``quiet``."""
    from benchmarks.env_sps import rollout_steps

    rows = []
    for world, bench in cli.progress(table.items(), desc="profile", unit="world", silent=quiet):
        spec = bench.settings
        n = num_envs or spec.profile_envs
        env, params = bench.make()
        steps = rollout_steps(n, budget=spec.step_budget, high=spec.max_steps)
        rows.append({"world": world, **profile_world(env, params, n, steps, spec.reset_ratio, repeats)})
    return rows


def main(argv: list[str] | None = None) -> list[dict]:
    from benchmarks.__main__ import results_folder
    from benchmarks.worlds import chosen_worlds

    p = parser()
    args = cli.parse(p, argv)
    table = chosen_worlds(p, args.env)
    info, out = results_folder(args, FILES)
    rows = profile_worlds(table, args.num_envs, args.repeats, args.quiet)
    json_path, md_path = write_results(out, "profile", {"device": info, "results": rows}, markdown(rows, info))
    print(f"wrote {json_path} and {md_path}")
    return rows


if __name__ == "__main__":
    main()
