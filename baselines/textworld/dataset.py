"""JerichoWorld-style records of any world of the suite, generated inside jit.

``generate`` plays a registered world with a policy: ``random`` valid actions, the world's
``expert``, ``mixed`` (the expert, replaced by a random valid action at each step with probability
``epsilon``), or ``jericho`` (JerichoWorld's own sampling: the first third of the expert's
trajectory, a 2-step random excursion from each of its states, and a long random walk from the
reset; ``plan``). A batch of slots plays the units (``Unit``: an episode, or a stretch of one): the
graphs (``env.kg``), the valid actions (``env.valid_actions``) and the steps are computed on the
device, ``CHUNK`` steps per jitted call, and a slot whose unit has ended takes the next one (no
slot idles until the longest unit of a batch ends); the host (``RecordWriter``) turns the int
arrays of one chunk into records while the device plays the next, and writes them as JSON lines
shards (and Parquet with ``parquet=True``), plus the world's vocabulary file.

One record per step (``RECORD_FIELDS``): ``id`` ("world/split/run/seed/part/step", unique across
runs: the run names the policy, first seed and a hash of every setting, ``run_name``), world,
split, run, seed, episode, part, step, instruction (the one in force when the action was taken),
observation (``env.verbalise`` summary), graph (name triples) and graph_ids, the valid actions
(``valid_action_ids`` by default; ``valid_actions`` names on request; names of ids in the
vocabulary file), action and action_id, reward, next_observation, next_graph, graph_diff {add,
del} (facts in graph order), done, schema_version. Every episode follows the suite's episode key
rule (``baselines.worlds.episode``): reset key from its seed, step t's key from (seed, t), so a
record is regenerated from (seed, actions before it) by replaying (``regenerate``). Resets run
slot by slot, not vmapped: on XLA:CPU a vmapped Craftax reset is not bitwise the unbatched one
(a different map for most seeds), and replays are unbatched. Fixes over JerichoWorld by
construction: a graph for the first state, no empty names, additions and deletions.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import json
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from baselines.worlds import family_of, split_episodes, world_spec
from baselines.worlds.base import TextHooks
from baselines.worlds.cli import compiling, progress, write_atomic
from baselines.worlds.episode import reset_key, step_key
from baselines.worlds.session import World

POLICIES = ("random", "expert", "mixed", "jericho")
VALID_ACTIONS = ("ids", "names", "none")
"""What a record holds of its state's valid actions: their ids, ids and names, or nothing."""
FACT_FIELDS = ("subject", "relation", "object", "valid")
CHUNK = 8
"""Steps per device call of ``generate``: an ended unit's slot takes the next one after this."""

RECORD_FIELDS = (
    "id",
    "world",
    "split",
    "run",
    "seed",
    "episode",
    "part",
    "step",
    "instruction",
    "observation",
    "graph",
    "graph_ids",
    "valid_action_ids",
    "valid_actions",
    "action",
    "action_id",
    "reward",
    "next_observation",
    "next_graph",
    "graph_diff",
    "done",
    "schema_version",
)
"""Every field a generated record may hold, in order (``valid_action_ids`` / ``valid_actions``
as ``VALID_ACTIONS`` asks)."""


def vocabulary(env) -> dict:
    """The world's vocabulary file: schema version, entities, relations, actions and their sha256."""
    schema = env.kg_schema
    body = {
        "world": env.name,
        "schema_version": schema["version"],
        "entities": list(schema["entities"]),
        "relations": list(schema["relations"]),
        "actions": list(env.action_names),
    }
    return {**body, "sha256": hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()}


@functools.lru_cache(maxsize=8)
def _player(world: World, expert: bool, epsilon: float, scope: str, chunk: int = CHUNK) -> tuple[Callable, Callable]:
    """Jitted ``(begin, advance)`` of a world: a batch of slots that play units (whole episodes, or
    parts of one: ``Unit``) one after another, ``chunk`` steps per ``advance`` call (``play``
    drives them). Every policy is one of two players: with the ``expert`` (``expert``, ``mixed``
    with its ``epsilon``, ``jericho``: one compilation for ``expert`` and ``jericho``, whose
    epsilon is 0) or without (``random``).

    ``begin(slots)`` is the ``playing`` state of idle slots. ``advance(playing, plan, count) ->
    (playing, out)``: first every idle slot takes the next unplayed unit u < ``count`` (in slot
    order) and resets to it (``plan`` arrays indexed by u: ``seed``, instruction ``text``), then all
    slots step: the expert acts while t < ``expert_until[u]`` (each step replaced by a random valid
    action with probability ``epsilon``), random valid actions after (without it: always). ``out`` per slot
    (B,): the ``unit`` played and its ``seed``, ``fresh`` (it started here) with its first graph
    ``initial``, and the step ``t0`` it is at; per step, time major (chunk, B, ...):
    ``next_graph``, ``valid``, ``action``, ``reward``, ``done``, ``alive`` (the unit had not
    ended), ``recorded`` (alive and t >= ``record_from[u]``), ``ends`` (it ends at this step: done,
    or t + 1 = ``length[u]``) and ``text``, the instruction in force when the action was taken. An
    ended slot keeps stepping, unrecorded, until it is reset."""
    task, env = world.task, world.task.env
    params = task.params

    def step(carry, unit):
        state, t, ended, text = carry
        seed, expert_until, record_from, length = unit
        key = step_key(seed, t)
        valid = env.valid_actions(key, state, params)
        pick = jax.random.fold_in(jax.random.fold_in(reset_key(seed), 1_000_003), t)
        action = jax.random.categorical(jax.random.fold_in(pick, 0), jnp.where(valid, 0.0, -jnp.inf))
        if expert:
            excursion = jax.random.uniform(jax.random.fold_in(pick, 1)) < epsilon
            action = jnp.where((t < expert_until) & ~excursion, task.expert(state, params), action)
        obs, new, reward, terminated, _ = env.step_env(key, state, action, params)
        done = terminated | env.is_truncated(new, params)
        ends = ~ended & (done | (t + 1 >= length))
        out = {
            "next_graph": env.kg(new, params, scope),
            "valid": valid,
            "action": action.astype(jnp.int32),
            "reward": reward,
            "done": done,
            "alive": ~ended,
            "recorded": ~ended & (t >= record_from),
            "ends": ends,
            "text": text,
        }
        return (new, t + 1, ended | ends, task.observe(obs).text), out

    def start(seed, text):
        obs, state = task.start(reset_key(seed), text, params)
        return state, env.kg(state, params, scope), task.observe(obs).text

    @functools.partial(jax.jit, static_argnums=0)
    def begin(slots: int) -> dict:
        state, _, text = jax.vmap(start)(jnp.arange(slots, dtype=jnp.uint32), jnp.zeros(slots, jnp.int32))
        return {
            "state": state,
            "t": jnp.zeros(slots, jnp.int32),
            "ended": jnp.ones(slots, bool),
            "text": text,
            "unit": jnp.zeros(slots, jnp.int32),
            "next": jnp.int32(0),
        }

    @jax.jit
    def advance(playing: dict, plan: dict, count: Array) -> tuple[dict, dict]:
        free = playing["ended"]
        wanted = playing["next"] + jnp.cumsum(free) - 1
        fresh = free & (wanted < count)
        unit = jnp.where(fresh, wanted, playing["unit"])
        own = jax.tree.map(lambda x: x[jnp.clip(unit, 0, x.shape[0] - 1)], plan)
        blank = jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), jax.eval_shape(start, own["seed"][0], own["text"][0]))

        def reset(slot):  # one slot at a time, not vmapped: a reset is the unbatched computation (see ``regenerate``), only where fresh
            fresh, seed, text, state, shown = slot
            return jax.lax.cond(fresh, start, lambda *_: (state, blank[1], shown), seed, text)

        state, initial, text = jax.lax.map(reset, (fresh, own["seed"], own["text"], playing["state"], playing["text"]))
        t0 = jnp.where(fresh, 0, playing["t"])
        rules = (own["seed"], own["expert_until"], own["record_from"], own["length"])
        carry, out = jax.lax.scan(lambda c, _: jax.vmap(step)(c, rules), (state, t0, free & ~fresh, text), None, length=chunk)
        state, t, ended, text = carry
        playing = {"state": state, "t": t, "ended": ended, "text": text, "unit": unit, "next": playing["next"] + fresh.sum()}
        return playing, {"unit": unit, "seed": own["seed"], "fresh": fresh, "initial": initial, "t0": t0, **out}

    return begin, advance


class _Fragments(dict):
    """A dict that makes a missing value from its key with ``make`` and keeps it."""

    def __init__(self, make: Callable):
        super().__init__()
        self.make = make

    def __missing__(self, key):
        value = self[key] = self.make(key)
        return value


class RecordWriter:
    """Host side: the JSON lines records of ``_player`` output (as numpy), chunk after chunk.

    Every state's graph and observation are encoded once (a record's next graph is the next
    record's graph), from JSON text cached per fact, action and instruction: a fact is one int
    key ``(subject * R + relation) * E + object``, so a graph is a sorted list of keys and its
    diff two set differences. Diffs list their facts in graph order. A unit's records are
    released together, in step order, when it ends."""

    def __init__(self, world: World, run: str, units: list[Unit], valid_actions: str = "ids"):
        env = world.task.env
        schema = env.kg_schema
        entities, relations = [json.dumps(e) for e in schema["entities"]], [json.dumps(r) for r in schema["relations"]]
        self.world, self.env, self.sizes, self.units = world, env, (len(relations), len(entities)), units
        self.names = _Fragments(
            lambda k: "[{}, {}, {}]".format(*(table[i] for table, i in zip((entities, relations, entities), self.unpack(k))))
        )
        self.ids = _Fragments(lambda k: "[{}, {}, {}]".format(*self.unpack(k)))
        self.instructions = _Fragments(lambda i: json.dumps(world.task.texts[i]))
        self.actions = np.array([json.dumps(n) for n in env.action_names], object)
        self.numbers = np.array([str(i) for i in range(len(env.action_names))], object)
        self.action_lists = functools.lru_cache(maxsize=1 << 14)(self._action_block)
        self.block_bytes = max(1, round(math.sqrt(len(self.actions) / 8)))  # blocks of ~sqrt(8 x actions) actions
        self.valid_mode = valid_actions
        self.head = f'"world": {json.dumps(env.name)}, "split": {json.dumps(world.split)}, "run": {json.dumps(run)}'
        self.id_head = json.dumps(f"{env.name}/{world.split}/{run}/")[:-1]
        self.tail = f'"schema_version": {schema["version"]}}}\n'
        self.playing: dict[int, tuple[int, tuple, list[str]]] = {}  # slot -> (unit, its last state's text, its lines)
        self.finished = 0

    def unpack(self, key: int) -> tuple[int, int, int]:
        """(subject, relation, object) ids of a fact key."""
        relations, entities = self.sizes
        fact, obj = divmod(key, entities)
        return *divmod(fact, relations), obj

    def keys(self, graphs: dict) -> tuple[np.ndarray, np.ndarray]:
        """(..., k) int64 fact keys of a batch of graphs, valid facts first, and their (...) counts."""
        count = graphs["valid"].sum(-1)
        k = max(int(count.max(initial=0)), 1)
        relations, entities = self.sizes
        return (graphs["subject"][..., :k].astype(np.int64) * relations + graphs["relation"][..., :k]) * entities + graphs["object"][
            ..., :k
        ], count

    def consume(self, out: dict) -> list[str]:
        """The records (JSON lines) of the units that end in one ``advance`` output."""
        done_lines: list[str] = []
        initial, count0 = self.keys(out["initial"])
        later, counts = self.keys(out["next_graph"])
        valid_bits = np.packbits(out["valid"], axis=-1, bitorder="little")
        for b in np.flatnonzero(out["fresh"]).tolist():
            self.playing[b] = (int(out["unit"][b]), self._state(out["initial"], (b,), initial[b, : count0[b]].tolist()), [])
        for b in np.flatnonzero(out["alive"][0]).tolist():
            unit, state, lines = self.playing[b]
            n = int(out["alive"][:, b].sum())  # a prefix of the chunk: ended is monotone
            seed, t0, episode, part = int(out["seed"][b]), int(out["t0"][b]), self.units[unit].episode, self.units[unit].part
            head = f'{self.head}, "seed": {seed}, "episode": {episode}, "part": {json.dumps(part)}, "step": '
            id_head = f"{self.id_head}{seed}/{part}/"
            actions, texts, dones, recorded = (out[k][:n, b].tolist() for k in ("action", "text", "done", "recorded"))
            rewards = map(json.dumps, out["reward"][:n, b].astype(float).tolist())
            for c, action, text, done, reward, kept in zip(range(n), actions, texts, dones, rewards, recorded):
                after = self._state(out["next_graph"], (c, b), later[c, b, : counts[c, b]].tolist())
                if kept:
                    old, new = set(state[0]), set(after[0])
                    add = self._join(self.names, [k for k in after[0] if k not in old])
                    delete = self._join(self.names, [k for k in state[0] if k not in new])
                    t = t0 + c
                    lines.append(
                        f'{{"id": {id_head}{t}", {head}{t}, "instruction": {self.instructions[text]}, "observation": {state[3]}, '
                        f'"graph": {state[1]}, "graph_ids": {state[2]}, {self._valid(valid_bits[c, b].tobytes())}'
                        f'"action": {self.actions[action]}, "action_id": {action}, "reward": {reward}, "next_observation": {after[3]}, '
                        f'"next_graph": {after[1]}, "graph_diff": {{"add": {add}, "del": {delete}}}, '
                        f'"done": {"true" if done else "false"}, {self.tail}'
                    )
                state = after
            if out["ends"][n - 1, b]:
                done_lines += lines
                del self.playing[b]
                self.finished += 1
            else:
                self.playing[b] = (unit, state, lines)
        return done_lines

    def _valid(self, bits: bytes) -> str:
        """The valid-action fields of a record (``VALID_ACTIONS``), each followed by ", "."""
        if self.valid_mode == "none":
            return ""
        names, ids = self.valid_lists(bits)
        return f'"valid_action_ids": [{ids}], ' + (f'"valid_actions": [{names}], ' if self.valid_mode == "names" else "")

    def _state(self, graphs: dict, at: tuple, facts: list[int]) -> tuple[list[int], str, str, str]:
        """(fact keys, graph JSON, graph ids JSON, observation JSON) of one graph of a batch."""
        view = {k: v[at][: len(facts)] if k in FACT_FIELDS else v[at] for k, v in graphs.items()}  # valid facts come first
        return facts, self._join(self.names, facts), self._join(self.ids, facts), json.dumps(self.env.verbalise(view))

    def valid_lists(self, bits: bytes) -> tuple[str, str]:
        """The JSON list bodies of the names and the ids of the valid actions, given as
        ``np.packbits(valid, bitorder="little")`` bytes, joined from the text of blocks of actions
        cached by their bits (a Hexagons state has about 1,260 valid actions, and consecutive
        states share all blocks but one or two)."""
        step = self.block_bytes
        parts = [self.action_lists(i, bits[i : i + step]) for i in range(0, len(bits), step)]
        return ", ".join(p[0] for p in parts if p[0]), ", ".join(p[1] for p in parts if p[1])

    def _action_block(self, start: int, bits: bytes) -> tuple[str, str]:
        chosen = start * 8 + np.flatnonzero(np.unpackbits(np.frombuffer(bits, np.uint8), bitorder="little"))
        chosen = chosen[chosen < len(self.actions)]
        return ", ".join(self.actions[chosen]), ", ".join(self.numbers[chosen])

    @staticmethod
    def _join(fragments: _Fragments, keys: list[int]) -> str:
        return "[" + ", ".join(map(fragments.__getitem__, keys)) + "]"


def world_of(env_id: str, split: str = "train", **settings) -> World:
    """The ``World`` (compiled start/step, instruction schedule) of a registered id and split."""
    return World(world_spec({**settings, "env": env_id}), split)


@dataclass(frozen=True)
class Unit:
    """A stretch of one episode that ``generate`` plays in a slot: episode ``episode`` of the
    split's schedule (reset from ``seed``, instruction id ``text``), stepped from its reset for
    ``length`` steps at most; the expert acts while t < ``expert_until``, random valid actions
    after; steps t >= ``record_from`` become records, labelled ``part``."""

    episode: int
    part: str
    seed: int
    text: int
    expert_until: int
    record_from: int
    length: int


def plan(
    world: World, policy: str, episodes: int, seed: int, steps: int, walk_steps: int = 100, expert_steps: list[int] | None = None
) -> list[Unit]:
    """The units of ``episodes`` episodes (seeds ``seed``, ``seed + 1``, ...). ``random``,
    ``expert``, ``mixed``: one whole episode each (part ``episode``). ``jericho``: JerichoWorld's
    sampling per episode: the first third of the expert's trajectory (``walkthrough``; its length
    from ``expert_steps[e]``, the steps the expert took), a 2-step random excursion from each of
    its states (``excursion-k`` from step k), and a ``walk_steps``-step random walk from the reset
    (``random-walk``)."""
    units = []
    for e in range(episodes):
        text = world.schedule(e)
        if policy != "jericho":
            units.append(Unit(e, "episode", seed + e, text, steps if policy != "random" else 0, 0, steps))
            continue
        trunk = max(1, math.ceil(expert_steps[e] / 3))
        units.append(Unit(e, "walkthrough", seed + e, text, trunk, 0, trunk))
        units += [Unit(e, f"excursion-{k}", seed + e, text, k, k, k + 2) for k in range(trunk)]
        units.append(Unit(e, "random-walk", seed + e, text, 0, 0, walk_steps))
    return units


def _plan_arrays(units: list[Unit]) -> tuple[dict, Array]:
    """``advance``'s per-unit arrays, padded to a power of two (few recompiles), and the count."""
    size = max(1024, 1 << (len(units) - 1).bit_length())
    names = ("seed", "text", "expert_until", "record_from", "length")
    arrays = {name: np.zeros(size, np.uint32 if name == "seed" else np.int32) for name in names}
    for u, unit in enumerate(units):
        for name, column in arrays.items():
            column[u] = getattr(unit, name)
    return {k: jnp.asarray(v) for k, v in arrays.items()}, jnp.int32(len(units))


def play(
    world: World, policy: str, units: list[Unit], batch_size: int, epsilon: float = 0.25, scope: str = "observed", quiet: bool = True
) -> Iterator[dict]:
    """``advance`` outputs (numpy) of ``units`` played by ``batch_size`` slots, chunk after chunk,
    until every unit has ended; the device plays the next chunk while the caller uses this one."""
    begin, advance = _player(world, policy != "random", float(epsilon) if policy == "mixed" else 0.0, scope)
    arrays = _plan_arrays(units)
    env = world.task.env
    with compiling(f"the {policy} player of {env.name} ({min(batch_size, len(units))} slots)", quiet):
        playing, pending = jax.block_until_ready(advance(begin(min(batch_size, len(units))), *arrays))
    while True:
        playing, upcoming = advance(playing, *arrays)
        chunk = jax.device_get(pending)
        if not (chunk["alive"].any() or chunk["fresh"].any()):
            return
        yield chunk
        pending = upcoming


def expert_steps(world: World, episodes: int, seed: int, steps: int, batch_size: int = 64, quiet: bool = True) -> list[int]:
    """The steps the expert takes in each of ``episodes`` episodes (until done, ``steps`` at most)."""
    units = [Unit(e, "episode", seed + e, world.schedule(e), steps, steps, steps) for e in range(episodes)]
    taken = [steps] * episodes
    for chunk in play(world, "jericho", units, batch_size, quiet=quiet):
        for c, b in zip(*np.nonzero(chunk["ends"])):
            taken[int(chunk["unit"][b])] = int(chunk["t0"][b]) + int(c) + 1
    return taken


def run_name(world: World, policy: str, settings: dict) -> str:
    """``<policy>-seed<seed>-<8 hex>``: the run of one ``generate`` call, a hash of the world's
    settings, split and every generation setting (the same call gives the same records)."""
    body = json.dumps({"world": world.spec, "split": world.split, "policy": policy, **settings}, sort_keys=True, default=str)
    return f"{policy}-seed{settings['seed']}-{hashlib.sha256(body.encode()).hexdigest()[:8]}"


def generate(
    world: World,
    policy: str,
    episodes: int,
    out: str | Path,
    *,
    seed: int = 0,
    steps: int = 64,
    batch_size: int = 64,
    epsilon: float = 0.25,
    walk_steps: int = 100,
    scope: str = "observed",
    valid_actions: str = "ids",
    shard_size: int = 50_000,
    parquet: bool = False,
    append: bool = False,
    quiet: bool = False,
) -> dict:
    """Generate ``episodes`` episodes (seeds ``seed``, ``seed + 1``, ...; instructions in the
    split's schedule) of at most ``steps`` steps into ``out`` (``plan``'s units; a progress bar
    unless ``quiet``); returns a summary with the run name, the record count, records/s over the
    wall time, the time spent waiting for the device and on the host (the device plays the next
    chunk of steps while the host writes the current one). A batch of ``batch_size`` slots plays
    the units: a slot whose unit ends takes the next one, so the shards hold whole units in the
    order they end. ``valid_actions``: ``ids`` (``valid_action_ids``), ``names`` (and
    ``valid_actions``) or ``none``. ``out`` must hold no other run's records unless ``append``
    (never the same run twice). The world must offer a text view (``baselines.worlds.base.TextHooks``)."""
    if not isinstance(world.task.env, TextHooks):
        raise ValueError(f"{world.env_id} declares no text and graph view (manual, kg_schema, kg, verbalise, valid_actions)")
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; use one of {', '.join(POLICIES)}")
    if valid_actions not in VALID_ACTIONS:
        raise ValueError(f"unknown valid_actions {valid_actions!r}; use one of {', '.join(VALID_ACTIONS)}")
    if policy != "random" and world.task.expert is None:
        why = family_of(world.env_id).expert_gap(split_episodes(world.spec, world.split)[0])
        raise ValueError(f"{world.env_id} has no expert for these goals{f' ({why})' if why else ''}; use --policy random")
    if min(episodes, steps, batch_size, shard_size, walk_steps) < 1 or not 0.0 <= epsilon <= 1.0:
        raise ValueError("episodes, steps, walk_steps, batch_size and shard_size must be positive and epsilon in [0, 1]")
    settings = {"seed": seed, "episodes": episodes, "steps": steps, "scope": scope}
    settings |= {"epsilon": epsilon} if policy == "mixed" else {"walk_steps": walk_steps} if policy == "jericho" else {}
    run = run_name(world, policy, settings)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    env = world.task.env
    stem = f"{env.name}-{world.split}-{run}"
    earlier = sorted(p.name.removesuffix(".summary.json") for p in out.glob("*.summary.json"))
    if f"{stem}" in earlier or any(out.glob(f"{stem}-*.jsonl")):
        raise ValueError(f"{out} already holds run {run} of {env.name} ({world.split}): the same settings give the same records")
    if (earlier or any(out.glob("*.jsonl"))) and not append:
        raise ValueError(f"{out} holds records of another run ({', '.join(earlier) or 'unnamed'}); append=True (--append) adds this one")
    (out / "vocab").mkdir(exist_ok=True)
    write_atomic(out / "vocab" / f"{env.name}.json", json.dumps(vocabulary(env)))
    began = time.perf_counter()
    lengths = expert_steps(world, episodes, seed, steps, batch_size, quiet) if policy == "jericho" else None
    units = plan(world, policy, episodes, seed, steps, walk_steps, lengths)
    device_s, host_s = 0.0, 0.0
    bar = progress(total=len(units), desc=f"{env.name} {world.split}", unit="unit" if policy == "jericho" else "episode", silent=quiet)
    writer, shards = RecordWriter(world, run, units, valid_actions), Shards(out, stem, shard_size, parquet, record_fields(valid_actions))
    try:
        tick = time.perf_counter()
        for chunk in play(world, policy, units, batch_size, epsilon, scope, quiet):
            device_s += time.perf_counter() - tick  # waiting for the device
            tick = time.perf_counter()
            with _no_gc():  # millions of small lists and no cycles: collections would dominate
                shards.write(writer.consume(chunk))
            host_s += time.perf_counter() - tick
            bar.update(writer.finished - bar.n)
            bar.set_postfix_str(f"{shards.records:,} records", refresh=False)
            tick = time.perf_counter()
    finally:  # the records written so far stay readable if anything fails
        bar.close()
        tick = time.perf_counter()
        shards.close()
        host_s += time.perf_counter() - tick
    wall = time.perf_counter() - began
    summary = {
        "world": env.name,
        "split": world.split,
        "policy": policy,
        "run": run,
        "settings": settings,
        "episodes": episodes,
        "units": len(units),
        "records": shards.records,
        "shards": shards.names,
        "device_wait_s": round(device_s, 3),
        "host_s": round(host_s, 3),
        "wall_s": round(wall, 3),
        "records_per_s": round(shards.records / max(wall, 1e-9), 1),
    }
    write_atomic(out / f"{stem}.summary.json", json.dumps(summary, indent=1))
    return summary


class Shards:
    """JSON lines files ``{stem}-00000.jsonl``, ... of at most ``size`` records each, written as
    records come (and each as Parquet too when it is complete, with ``parquet``)."""

    def __init__(self, out: Path, stem: str, size: int, parquet: bool = False, fields: tuple[str, ...] = RECORD_FIELDS):
        self.out, self.stem, self.size, self.parquet, self.fields = out, stem, size, parquet, fields
        self.names: list[str] = []
        self.records, self.file, self.in_file = 0, None, 0

    def write(self, lines: list[str]) -> None:
        """Append records (JSON lines), opening and closing shards as they fill."""
        while lines:
            if self.file is None:
                self.names.append(f"{self.stem}-{len(self.names):05d}.jsonl")
                self.file, self.in_file = open(self.out / self.names[-1], "w", encoding="ascii"), 0  # json.dumps escapes the rest
            room = self.size - self.in_file
            self.file.writelines(lines[:room])
            taken = min(room, len(lines))
            self.in_file, self.records, lines = self.in_file + taken, self.records + taken, lines[room:]
            if self.in_file == self.size:
                self._finish()

    def close(self) -> None:
        if self.file is not None:
            self._finish()

    def _finish(self) -> None:
        self.file.close()
        self.file = None
        if self.parquet:
            path = self.out / self.names[-1]
            _write_parquet(path, path.with_suffix(".parquet"), self.fields)


@contextlib.contextmanager
def _no_gc():
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _write_parquet(jsonl: Path, path: Path, fields: tuple[str, ...]) -> None:
    """The records of a JSON lines shard as a Parquet file (read by Arrow, typed by ``_arrow_schema``)."""
    try:
        import pyarrow.json as pj
        import pyarrow.parquet as pq
    except ImportError as error:  # pragma: no cover - depends on the install
        raise ValueError("Parquet output needs pyarrow: pip install 'instructworlds[parquet]'") from error
    options = pj.ParseOptions(explicit_schema=_arrow_schema(fields), unexpected_field_behavior="error")
    pq.write_table(pj.read_json(jsonl, parse_options=options), path)


def record_fields(valid_actions: str = "ids") -> tuple[str, ...]:
    """The fields of a record written with ``valid_actions`` (``VALID_ACTIONS``), in order."""
    left_out = {"ids": ("valid_actions",), "names": (), "none": ("valid_actions", "valid_action_ids")}[valid_actions]
    return tuple(name for name in RECORD_FIELDS if name not in left_out)


def _arrow_schema(fields: tuple[str, ...]):
    import pyarrow as pa

    text, number = pa.string(), pa.int64()
    graph = pa.list_(pa.list_(text))
    types = {
        "id": text,
        "world": text,
        "split": text,
        "run": text,
        "seed": number,
        "episode": number,
        "part": text,
        "step": number,
        "instruction": text,
        "observation": text,
        "graph": graph,
        "graph_ids": pa.list_(pa.list_(number)),
        "valid_actions": pa.list_(text),
        "valid_action_ids": pa.list_(number),
        "action": text,
        "action_id": number,
        "reward": pa.float64(),
        "next_observation": text,
        "next_graph": graph,
        "graph_diff": pa.struct({"add": graph, "del": graph}),
        "done": pa.bool_(),
        "schema_version": number,
    }
    return pa.schema([(name, types[name]) for name in fields])


def read(folder: str | Path) -> list[dict]:
    """Every record of a folder's JSON lines shards (``*.jsonl``, sorted by name). Raises
    ValueError naming the file and line of a line that is not JSON, or of a record whose ``id``
    an earlier one has (records of one id from two runs would be scored and counted as one)."""
    rows: list[dict] = []
    seen: dict[str, str] = {}
    for path in sorted(Path(folder).glob("*.jsonl")):
        rows += read_lines(path, seen)
    return rows


def read_lines(path: Path, seen: dict[str, str] | None = None) -> list[dict]:
    """The records of one JSON lines file (blank lines skipped); ``seen`` (id -> where) carries
    the ids of files read before. Raises ValueError as ``read``."""
    seen = {} if seen is None else seen
    rows = []
    for line_no, line in enumerate(path.open(encoding="utf-8"), 1):
        if not line.strip():
            continue
        where = f"{path}: line {line_no}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"{where}: not JSON ({error.msg})") from None
        if not isinstance(row, dict) or not isinstance(row.get("id"), str):
            raise ValueError(f"{where}: field 'id' is missing or not a string")
        if row["id"] in seen:
            raise ValueError(f"{where}: id {row['id']!r} is already used at {seen[row['id']]}")
        seen[row["id"]] = where
        rows.append(row)
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
    entities, relations = env.kg_schema["entities"], env.kg_schema["relations"]
    valid = graph["valid"]
    facts = zip(*(graph[k][valid].tolist() for k in ("subject", "relation", "object")))
    return {"graph": [[entities[s], relations[r], entities[o]] for s, r, o in facts], "observation": env.verbalise(graph)}


@functools.lru_cache(maxsize=8)
def _kg(world: World, scope: str) -> Callable:
    return jax.jit(functools.partial(world.task.env.kg, scope=scope))
