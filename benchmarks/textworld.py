"""``python -m benchmarks.textworld``: what the text and knowledge-graph views cost.

1. ``env.kg`` inside the step: env-only steps/s of each world with and without computing the graph
   of every new state (random actions, ``lax.scan`` over ``vmap(step_env)``, compile excluded,
   medians of alternating repeats); the ratio is the overhead.
2. Dataset generation end to end (``baselines.textworld.dataset.generate``: device rollout with
   graphs and valid actions, overlapped with the host writing records as JSON lines): records/s
   over the wall time, after a warm-up call; and the host's share alone, on one core.
3. Scoring: ``score`` on 100,000 instances on the host, and the jitted ``graph_scores`` on 100,000
   id-graph pairs.
One world per family that offers a text view (its default id, ``Benchmark.kg_envs`` worlds); the
expert-with-excursions policy where the world has an expert for its goals, else random. Writes
``textworld.json`` and ``textworld.png`` under ``--out`` (default ``runs/benchmarks/<device>``;
files already there are replaced only with ``--overwrite``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from baselines.plots import write_png
from baselines.worlds import cli
from benchmarks import RESULTS_OUT
from benchmarks.__main__ import device_info, output_folder

FILES = ("textworld.json", "textworld.png")


def text_worlds() -> dict[str, int]:
    """env id -> num_envs of the graph-cost measurement: each family's default id, where its env
    offers the text view."""
    from baselines import worlds
    from baselines.worlds.base import TextHooks
    from benchmarks.worlds import benchmark_of

    chosen = {}
    for family in worlds.families():
        env, _ = family.make(family.default_id)
        if isinstance(env, TextHooks):
            chosen[family.default_id] = benchmark_of(family).kg_envs
    return chosen


def kg_overhead(env_id: str, num_envs: int, steps: int, repeats: int = 9) -> dict:
    """Steps/s of ``step_env`` alone and with ``env.kg`` of every new state (medians of
    alternating repeats)."""
    from baselines.textworld.dataset import world_of

    world = world_of(env_id, data_size=64)
    env, params = world.task.env, world.task.params
    _, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(jax.random.key(0), num_envs), params)
    actions = jax.random.randint(jax.random.key(1), (steps, num_envs), 0, env.num_actions)
    keys = jax.random.split(jax.random.key(2), (steps, num_envs))

    def run(with_kg: bool):
        @jax.jit
        def go(state):
            def body(carry, xs):
                state, acc = carry
                k, a = xs
                state = jax.vmap(env.step_env, in_axes=(0, 0, 0, None))(k, state, a, params)[1]
                if with_kg:
                    g = jax.vmap(env.kg, in_axes=(0, None))(state, params)
                    acc = acc + g["object"].sum() + g["valid"].sum()
                return (state, acc), None

            return jax.lax.scan(body, (state, jnp.int32(0)), (keys, actions))[0]

        return go

    runs = {False: run(False), True: run(True)}
    jax.block_until_ready([go(state) for go in runs.values()])
    times: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(repeats):  # alternate, so that a noisy moment hits both
        for with_kg, go in runs.items():
            tick = time.perf_counter()
            jax.block_until_ready(go(state))
            times[with_kg].append(time.perf_counter() - tick)
    bare, with_kg = (steps * num_envs / statistics.median(times[k]) for k in (False, True))
    return {
        "env": env_id,
        "num_envs": num_envs,
        "steps": steps,
        "repeats": repeats,
        "sps": round(bare),
        "sps_with_kg": round(with_kg),
        "kg_overhead": round(bare / with_kg - 1, 3),
    }


def generation_rate(env_id: str, episodes: int, steps: int, batch_size: int = 64) -> dict:
    """Records/s of ``generate`` end to end, wall time (a warm-up call compiles first), with the
    mean graph size and bytes per record; and records/s of the host side alone on one core
    (``RecordWriter`` on batches played beforehand, fresh episodes and caches). Policy: mixed where
    the world has an expert for its goals, else random."""
    from baselines.textworld.dataset import RecordWriter, generate, plan, play, world_of

    world = world_of(env_id, data_size=64)
    policy = "mixed" if world.task.expert is not None else "random"
    units = plan(world, policy, episodes, 50_000, steps)
    chunks = list(play(world, policy, units, batch_size))
    writer = RecordWriter(world, "benchmark", units)
    tick = time.perf_counter()
    host_records = sum(len(writer.consume(chunk)) for chunk in chunks)
    host_rate = host_records / (time.perf_counter() - tick)
    with tempfile.TemporaryDirectory() as warm, tempfile.TemporaryDirectory() as out:
        generate(world, policy, batch_size, warm, steps=steps, batch_size=batch_size, quiet=True)
        summary = generate(world, policy, episodes, out, seed=10_000, steps=steps, batch_size=batch_size, quiet=True)
        shards = [Path(out) / name for name in summary["shards"]]
        size = sum(p.stat().st_size for p in shards)
        triples = statistics.fmean(len(json.loads(line)["graph"]) for line in shards[0].open())
    return {
        "env": env_id,
        "policy": policy,
        "episodes": episodes,
        "batch_size": batch_size,
        "records": summary["records"],
        "records_per_s": round(summary["records_per_s"]),
        "device_wait_s": summary["device_wait_s"],
        "host_s": summary["host_s"],
        "wall_s": summary["wall_s"],
        "host_records_per_s_one_core": round(host_rate),
        "triples_per_graph": round(triples, 1),
        "kb_per_record": round(size / 1024 / summary["records"], 1),
    }


def scoring_time(n: int = 100_000) -> dict:
    """Seconds to score ``n`` instances on the host (``score``) and ``n`` id-graph pairs in jit."""
    from baselines.textworld.__main__ import score
    from baselines.textworld.metrics import graph_scores
    from hexagons import kg

    rng = np.random.default_rng(0)
    boards = rng.choice(8, size=(512, 180), p=[0.9] + [0.1 / 7] * 7).astype(np.int8)
    graphs = jax.device_get(jax.jit(jax.vmap(kg.graph))(boards))
    from hexagons.text import triples

    names = [triples(jax.tree.map(lambda x: x[i], graphs)) for i in range(512)]
    gold = [{"id": str(i), "world": "w", "next_graph": names[i % 512]} for i in range(n)]
    pred = [{"id": str(i), "next_graph": names[(i * 7 + 1) % 512]} for i in range(n)]
    tick = time.perf_counter()
    score(pred, gold, "graph", with_floors=False)
    host = time.perf_counter() - tick
    idx = jnp.arange(n) % 512
    chunk = 1000  # pairs per jitted call: K x K compares of 1,080-fact graphs

    @jax.jit
    def batched(idx):
        scores = jax.vmap(graph_scores)(
            jax.tree.map(lambda x: jnp.asarray(x)[(idx * 7 + 1) % 512], graphs), jax.tree.map(lambda x: jnp.asarray(x)[idx], graphs)
        )
        return scores["f1"].sum()

    jax.block_until_ready(batched(idx[:chunk]))
    tick = time.perf_counter()
    jax.block_until_ready([batched(idx[i : i + chunk]) for i in range(0, n - n % chunk, chunk)])
    jitted = time.perf_counter() - tick
    mean_triples = statistics.fmean(len(x) for x in names)
    return {
        "instances": n,
        "mean_triples": round(mean_triples, 1),
        "host_score_s": round(host, 2),
        "jitted_graph_scores_s": round(jitted, 2),
    }


def plot(rows: dict, out: Path) -> Path:
    """``textworld.png``: records/s end to end and on one host core against the 10,000 target,
    and env steps/s with and without the graph of every state."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (rate, cost) = plt.subplots(1, 2, figsize=(10, 3.8))
    worlds = [r["env"].split("-Symbolic")[0].split("-v")[0] for r in rows["generation"]]
    x = np.arange(len(worlds))
    for shift, key, label in (
        (-0.2, "records_per_s", "end to end (device + host)"),
        (0.2, "host_records_per_s_one_core", "host share, one core"),
    ):
        rate.bar(x + shift, [r[key] for r in rows["generation"]], 0.4, label=label)
    rate.axhline(10_000, color="k", ls="--", lw=1, label="target per core")
    rate.set(xticks=x, xticklabels=worlds, ylabel="records / s", title="dataset generation (generate)")
    worlds = [r["env"].split("-Symbolic")[0].split("-v")[0] for r in rows["kg_overhead"]]
    for shift, key, label in ((-0.2, "sps", "env step"), (0.2, "sps_with_kg", "env step + env.kg")):
        cost.bar(x + shift, [r[key] for r in rows["kg_overhead"]], 0.4, label=label)
    cost.set(xticks=x, xticklabels=worlds, yscale="log", ylabel="steps / s", title="graph of every new state")
    for ax in (rate, cost):
        ax.tick_params(axis="x", labelsize=8)
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    info = rows["device"]
    fig.suptitle(f"{info['device']}, {info['host_cpus']} host cores, jax {info['jax']}", fontsize=9)
    fig.tight_layout()
    write_png(fig, out / "textworld.png", dpi=120)
    plt.close(fig)
    return out / "textworld.png"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.textworld", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--steps", type=int, default=32, help="steps per scan and per generated episode (default 32)")
    p.add_argument("--episodes", type=int, default=1024, help="episodes generated per world (default 1024)")
    p.add_argument("--quick", action="store_true", help="tiny sizes: a check that the code runs (nothing written unless --out is given)")
    cli.add_out(p, RESULTS_OUT)
    return p


def main(argv: list[str] | None = None) -> None:
    args = cli.parse(parser(), argv)
    info = device_info()
    out = output_folder(args.out, info) if args.out or not args.quick else None
    if out is not None:
        cli.refuse_existing([out / name for name in FILES], args.overwrite)
    scale = 16 if args.quick else 1
    rows = {"device": info, "kg_overhead": [], "generation": [], "scoring": None}
    chosen = text_worlds()
    for env_id, num_envs in chosen.items():
        rows["kg_overhead"].append(kg_overhead(env_id, max(4, num_envs // scale), max(4, args.steps // scale)))
        print(rows["kg_overhead"][-1], flush=True)
    for env_id in chosen:
        rows["generation"].append(generation_rate(env_id, max(4, args.episodes // scale), max(4, args.steps // scale), max(4, 64 // scale)))
        print(rows["generation"][-1], flush=True)
    rows["scoring"] = scoring_time(100_000 // (scale * 10) if args.quick else 100_000)
    print(rows["scoring"], flush=True)
    if out:
        out.mkdir(parents=True, exist_ok=True)
        cli.write_atomic(out / "textworld.json", json.dumps(rows, indent=1))
        print(f"wrote {out / 'textworld.json'} and {plot(rows, out)}")


if __name__ == "__main__":
    main()
