"""JerichoWorld-style records of any world of the suite, generated inside jit.

``generate`` plays episodes of a registered world with a policy (``random`` valid actions, the
world's ``expert``, or ``mixed``: the expert with random valid excursions at rate ``epsilon``,
JerichoWorld's walkthrough-plus-excursion sampling), in batches: the graphs (``env.kg``), the valid
actions (``env.valid_actions``) and the steps are computed on the device in one jitted scan; the
host turns the int arrays into records and writes them as JSON lines shards (and Parquet with
``parquet=True``), plus the world's vocabulary file.

One record per step (``RECORD_FIELDS``): ``id`` ("world/split/seed/step"), world, split, seed,
episode, step, instruction, observation (``env.verbalise`` summary), graph (name triples) and
graph_ids, valid_actions and valid_action_ids, action and action_id, reward, next_observation,
next_graph, graph_diff {add, del}, done, schema_version. Every episode follows the suite's episode
key rule (``baselines.episodes.episode``): reset key from its seed, step t's key from (seed, t), so
a record is regenerated from (seed, actions before it) by replaying (``regenerate``). Fixes over
JerichoWorld by construction: a graph for the first state, no empty names, additions and deletions.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import json
import time
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from baselines.episodes.episode import reset_key, step_key
from baselines.episodes.replay import World
from baselines.tasks import WORLD_SPEC

POLICIES = ("random", "expert", "mixed")
RECORD_FIELDS = ("id", "world", "split", "seed", "episode", "step", "instruction", "observation", "graph", "graph_ids", "valid_actions",
                 "valid_action_ids", "action", "action_id", "reward", "next_observation", "next_graph", "graph_diff", "done",
                 "schema_version")


def vocabulary(env) -> dict:
    """The world's vocabulary file: schema version, entities, relations, actions and their sha256."""
    schema = env.kg_schema
    body = {"world": env.name, "schema_version": schema["version"], "entities": list(schema["entities"]),
            "relations": list(schema["relations"]), "actions": list(env.action_names)}
    return {**body, "sha256": hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()}


@functools.lru_cache(maxsize=8)
def _rollout(world: World, policy: str, steps: int, epsilon: float, scope: str) -> Callable:
    """Jitted (seeds (B,), texts (B,)) -> per-step arrays (B, T, ...) of a batch of episodes."""
    task, env = world.task, world.task.env

    def episode(seed, text, params):
        _, state = task.start(reset_key(seed), text, params)

        def body(carry, t):
            state, ended = carry
            key = step_key(seed, t)
            valid = env.valid_actions(key, state, params)
            pick = jax.random.fold_in(jax.random.fold_in(reset_key(seed), 1_000_003), t)
            random_action = jax.random.categorical(jax.random.fold_in(pick, 0), jnp.where(valid, 0.0, -jnp.inf))
            if policy == "random":
                action = random_action
            else:
                expert = task.expert(state, params)
                excursion = jax.random.uniform(jax.random.fold_in(pick, 1)) < (epsilon if policy == "mixed" else 0.0)
                action = jnp.where(excursion, random_action, expert)
            obs, new, reward, terminated, _ = env.step_env(key, state, action, params)
            done = terminated | env.is_truncated(new, params)
            out = {"graph": env.kg(state, params, scope), "valid": valid, "action": action.astype(jnp.int32), "reward": reward,
                   "done": done, "alive": ~ended, "text": task.observe(obs).text}
            return (new, ended | done), out

        (last, _), out = jax.lax.scan(body, (state, jnp.bool_(False)), jnp.arange(steps))
        final = env.kg(last, params, scope)
        out["next_graph"] = jax.tree.map(lambda seq, end: jnp.concatenate([seq[1:], end[None]]), out["graph"], final)
        return out

    return jax.jit(jax.vmap(episode, in_axes=(0, 0, None)))


def _facts(graph: dict, entities: tuple[str, ...], relations: tuple[str, ...]) -> tuple[list[list[int]], list[list[str]]]:
    """The valid facts of one host graph: ([subject, relation, object] ids, the same as names)."""
    valid = graph["valid"]
    ids = [list(f) for f in zip(*(graph[k][valid].tolist() for k in ("subject", "relation", "object")))]
    return ids, [[entities[s], relations[r], entities[o]] for s, r, o in ids]


def records(world: World, batch: dict, seeds: np.ndarray, texts: np.ndarray, first_episode: int, split: str) -> list[dict]:
    """Host side: the records of one generated batch (``_rollout`` output as numpy), with the
    valid actions as an id array (``Encoder`` writes their names and ids)."""
    env = world.task.env
    schema = env.kg_schema
    entities, relations, actions = schema["entities"], schema["relations"], env.action_names
    out = []
    for b in range(len(seeds)):
        steps = np.flatnonzero(batch["alive"][b])
        graphs = [jax.tree.map(lambda x: x[b, t], batch["graph"]) for t in steps]
        if len(steps):  # the state after the last step, whose graph no later step holds
            graphs.append(jax.tree.map(lambda x: x[b, steps[-1]], batch["next_graph"]))
        ids, names = zip(*(_facts(g, entities, relations) for g in graphs)) if graphs else ((), ())
        texts_now = [env.verbalise(g) for g in graphs]
        for i, t in enumerate(steps):
            next_names, next_text = names[i + 1], texts_now[i + 1]
            valid_ids = np.flatnonzero(batch["valid"][b, t])
            before, after = set(map(tuple, names[i])), set(map(tuple, next_names))
            out.append({
                "id": f"{env.name}/{split}/{int(seeds[b])}/{int(t)}", "world": env.name, "split": split, "seed": int(seeds[b]),
                "episode": first_episode + b, "step": int(t), "instruction": world.task.texts[int(batch["text"][b, t])],
                "observation": texts_now[i], "graph": names[i],
                "graph_ids": ids[i],
                "valid_action_ids": valid_ids,  # names and the JSON lists: ``Encoder``
                "action": actions[batch["action"][b, t]], "action_id": int(batch["action"][b, t]), "reward": float(batch["reward"][b, t]),
                "next_observation": next_text, "next_graph": next_names,
                "graph_diff": {"add": sorted(map(list, after - before)), "del": sorted(map(list, before - after))},
                "done": bool(batch["done"][b, t]), "schema_version": schema["version"],
            })
    return out


class Encoder:
    """JSON lines of records whose valid actions are an id array: the names and ids are joined
    from text made once per action, not encoded record by record (a Hexagons state has about
    1,260 valid actions)."""

    def __init__(self, action_names: tuple[str, ...]):
        self.names = np.array(action_names, object)
        self.quoted = np.array([json.dumps(n) for n in action_names], object)
        self.numbers = np.array([str(i) for i in range(len(action_names))], object)

    def line(self, record: dict) -> str:
        ids = record["valid_action_ids"]
        head = json.dumps({k: v for k, v in record.items() if k != "valid_action_ids"})
        return f'{head[:-1]}, "valid_actions": [{", ".join(self.quoted[ids])}], "valid_action_ids": [{", ".join(self.numbers[ids])}]}}\n'

    def full(self, record: dict) -> dict:
        """The record as written: valid actions as lists of names and of ids."""
        ids = record["valid_action_ids"]
        return {**record, "valid_actions": self.names[ids].tolist(), "valid_action_ids": ids.tolist()}


def world_of(env_id: str, split: str = "train", **settings) -> World:
    """The ``World`` (compiled start/step, instruction schedule) of a registered id and split."""
    return World({**WORLD_SPEC, **settings, "env": env_id}, split)


def generate(world: World, policy: str, episodes: int, out: str | Path, *, seed: int = 0, steps: int = 64, batch_size: int = 64,
             epsilon: float = 0.25, scope: str = "observed", shard_size: int = 50_000, parquet: bool = False,
             progress: Callable[[str], None] | None = print) -> dict:
    """Generate ``episodes`` episodes (seeds ``seed``, ``seed + 1``, ...; instructions in the
    split's schedule) of at most ``steps`` steps into ``out``; returns a summary with the record
    count, records/s over the wall time, the time spent waiting for the device and on the host
    (the device plays the next batch while the host writes the current one)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; use one of {', '.join(POLICIES)}")
    if policy != "random" and world.task.expert is None:
        raise ValueError(f"{world.env_id} has no expert for these goals; use --policy random")
    if min(episodes, steps, batch_size, shard_size) < 1 or not 0.0 <= epsilon <= 1.0:
        raise ValueError("episodes, steps, batch_size and shard_size must be positive and epsilon in [0, 1]")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    env = world.task.env
    stem = f"{env.name}-{world.split}-{policy}-seed{seed}"
    (out / "vocab").mkdir(exist_ok=True)
    (out / "vocab" / f"{env.name}.json").write_text(json.dumps(vocabulary(env)))
    rollout = _rollout(world, policy, steps, float(epsilon), scope)
    began = time.perf_counter()
    shard, total, device_s, host_s, written = [], 0, 0.0, 0.0, []

    encoder = Encoder(env.action_names)

    def flush(rows: list[dict]) -> None:
        nonlocal total
        path = out / f"{stem}-{len(written):05d}.jsonl"
        path.write_text("".join(map(encoder.line, rows)))
        if parquet:
            _write_parquet([encoder.full(r) for r in rows], path.with_suffix(".parquet"))
        written.append(path.name)
        total += len(rows)

    def dispatch(start: int):
        """Start the device rollout of the batch of episodes from ``start`` (asynchronously)."""
        seeds = np.arange(seed + start, seed + start + batch_size, dtype=np.uint32)
        texts = np.array([world.schedule(e) for e in range(start, start + batch_size)], np.int32)
        return seeds, texts, rollout(seeds, texts, world.task.params)

    pending = dispatch(0)
    for start in range(0, episodes, batch_size):
        n = min(batch_size, episodes - start)
        seeds, texts, running = pending
        if start + batch_size < episodes:
            pending = dispatch(start + batch_size)  # the device plays the next batch while the host writes this one
        tick = time.perf_counter()
        batch = jax.tree.map(np.asarray, running)
        device_s += time.perf_counter() - tick  # waiting for the device
        tick = time.perf_counter()
        batch = jax.tree.map(lambda x: x[:n], batch)
        with _no_gc():  # millions of small lists and no cycles: collections would dominate
            shard += records(world, batch, seeds[:n], texts[:n], start, world.split)
        while len(shard) >= shard_size:
            flush(shard[:shard_size])
            shard = shard[shard_size:]
        host_s += time.perf_counter() - tick
        if progress:
            progress(f"{env.name} {world.split}: {start + n}/{episodes} episodes, {total + len(shard)} records")
    if shard:
        tick = time.perf_counter()
        flush(shard)
        host_s += time.perf_counter() - tick
    wall = time.perf_counter() - began
    summary = {"world": env.name, "split": world.split, "policy": policy, "episodes": episodes, "records": total, "shards": written,
               "device_wait_s": round(device_s, 3), "host_s": round(host_s, 3), "wall_s": round(wall, 3), "records_per_s": round(total / max(wall, 1e-9), 1)}
    (out / f"{stem}.summary.json").write_text(json.dumps(summary, indent=1))
    return summary


@contextlib.contextmanager
def _no_gc():
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _write_parquet(rows: list[dict], path: Path) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as error:  # pragma: no cover - depends on the install
        raise ValueError("Parquet output needs pyarrow: pip install 'instructworlds[parquet]'") from error
    table = pa.Table.from_pylist([{**r, "graph_diff": json.dumps(r["graph_diff"])} for r in rows])
    pq.write_table(table, path)


def read(folder: str | Path) -> list[dict]:
    """Every record of a folder's JSON lines shards (``*.jsonl``, sorted by name)."""
    rows = []
    for path in sorted(Path(folder).glob("*.jsonl")):
        for line_no, line in enumerate(path.open(), 1):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}: line {line_no}: not JSON ({error.msg})") from None
    return rows


def regenerate(world: World, record: dict, actions: list[int], scope: str = "observed") -> dict:
    """``{"graph", "observation"}`` of the state reached by replaying ``actions`` (the record's
    action prefix) from its seed and episode's instruction: what the record holds when the
    dataset is right."""
    env = world.task.env
    _, state = world.start(world.schedule(record["episode"]), record["seed"])
    for t, action in enumerate(actions):
        state = world.step(state, action, record["seed"], t).state
    graph = jax.device_get(_kg(world, scope)(state, world.task.params))
    schema = env.kg_schema
    return {"graph": _facts(graph, schema["entities"], schema["relations"])[1], "observation": env.verbalise(graph)}


@functools.lru_cache(maxsize=8)
def _kg(world: World, scope: str) -> Callable:
    return jax.jit(functools.partial(world.task.env.kg, scope=scope))
