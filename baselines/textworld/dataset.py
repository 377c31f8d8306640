"""JerichoWorld-style records of any world of the suite, generated inside jit.

``generate`` plays episodes of a registered world with a policy (``random`` valid actions, the
world's ``expert``, or ``mixed``: the expert with random valid excursions at rate ``epsilon``,
JerichoWorld's walkthrough-plus-excursion sampling) on a batch of slots: the graphs (``env.kg``),
the valid actions (``env.valid_actions``) and the steps are computed on the device, ``CHUNK`` steps
per jitted call, and a slot whose episode has ended takes the next episode (no slot idles until
the longest episode of a batch ends); the host (``RecordWriter``) turns the int arrays of one
chunk into records while the device plays the next, and writes them as JSON lines shards (and
Parquet with ``parquet=True``), plus the world's vocabulary file.

One record per step (``RECORD_FIELDS``): ``id`` ("world/split/seed/step"), world, split, seed,
episode, step, instruction, observation (``env.verbalise`` summary), graph (name triples) and
graph_ids, valid_actions and valid_action_ids, action and action_id, reward, next_observation,
next_graph, graph_diff {add, del} (facts in graph order), done, schema_version. Every episode follows the suite's episode
key rule (``baselines.episodes.episode``): reset key from its seed, step t's key from (seed, t), so
a record is regenerated from (seed, actions before it) by replaying (``regenerate``). Resets run
slot by slot, not vmapped: on XLA:CPU a vmapped Craftax reset is not bitwise the unbatched one
(a different map for most seeds), and replays are unbatched. Fixes over
JerichoWorld by construction: a graph for the first state, no empty names, additions and deletions.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import json
import math
import time
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from baselines.cli import compiling, progress
from baselines.episodes.episode import reset_key, step_key
from baselines.worlds import world_spec
from baselines.worlds.base import TextHooks
from baselines.worlds.session import World

POLICIES = ("random", "expert", "mixed")
FACT_FIELDS = ("subject", "relation", "object", "valid")
CHUNK = 8
"""Steps per device call of ``generate``: an ended episode's slot takes the next one after this."""

RECORD_FIELDS = (
    "id",
    "world",
    "split",
    "seed",
    "episode",
    "step",
    "instruction",
    "observation",
    "graph",
    "graph_ids",
    "valid_actions",
    "valid_action_ids",
    "action",
    "action_id",
    "reward",
    "next_observation",
    "next_graph",
    "graph_diff",
    "done",
    "schema_version",
)


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
def _player(world: World, policy: str, steps: int, epsilon: float, scope: str, chunk: int = CHUNK) -> tuple[Callable, Callable]:
    """Jitted ``(begin, advance)`` of a world and policy: a batch of slots that play episodes one
    after another, ``chunk`` steps per ``advance`` call (``generate`` drives them).

    ``begin(slots)`` is the ``playing`` state of idle slots. ``advance(playing, first_seed,
    texts, count) -> (playing, out)``: first every idle slot takes the next unplayed episode e <
    ``count`` (in slot order) and resets to it (seed ``first_seed + e``, instruction
    ``texts[e]``), then all slots step. ``out`` per slot (B,): the ``episode`` played and its ``seed``,
    ``fresh`` (it started here) with its first graph ``initial``, and the step ``t0`` it is at;
    per step, time major (chunk, B, ...): ``next_graph``, ``valid``, ``action``, ``reward``,
    ``done``, ``alive`` (the episode had not ended), ``ends`` (it ends at this step: done, or its
    ``steps``-th step) and ``text``. An ended slot keeps stepping, unrecorded, until it is reset."""
    task, env = world.task, world.task.env
    params = task.params

    def step(state, t, ended, seed):
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
        ends = ~ended & (done | (t + 1 >= steps))
        out = {
            "next_graph": env.kg(new, params, scope),
            "valid": valid,
            "action": action.astype(jnp.int32),
            "reward": reward,
            "done": done,
            "alive": ~ended,
            "ends": ends,
            "text": task.observe(obs).text,
        }
        return (new, t + 1, ended | ends), out

    def start(seed, text):
        state = task.start(reset_key(seed), text, params)[1]
        return state, env.kg(state, params, scope)

    @functools.partial(jax.jit, static_argnums=0)
    def begin(slots: int) -> dict:
        state = jax.vmap(start)(jnp.arange(slots, dtype=jnp.uint32), jnp.zeros(slots, jnp.int32))[0]
        return {
            "state": state,
            "t": jnp.zeros(slots, jnp.int32),
            "ended": jnp.ones(slots, bool),
            "episode": jnp.zeros(slots, jnp.int32),
            "next": jnp.int32(0),
        }

    @jax.jit
    def advance(playing: dict, first_seed: Array, texts: Array, count: Array) -> tuple[dict, dict]:
        free = playing["ended"]
        wanted = playing["next"] + jnp.cumsum(free) - 1
        fresh = free & (wanted < count)
        episode = jnp.where(fresh, wanted, playing["episode"])
        seeds = first_seed + episode.astype(jnp.uint32)
        blank = jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), jax.eval_shape(start, seeds[0], texts[0])[1])

        def reset(slot):  # one slot at a time, not vmapped: a reset is the unbatched computation (see ``regenerate``), only where fresh
            fresh, seed, text, state = slot
            return jax.lax.cond(fresh, start, lambda *_: (state, blank), seed, text)

        state, initial = jax.lax.map(reset, (fresh, seeds, texts[jnp.clip(episode, 0, len(texts) - 1)], playing["state"]))
        t0 = jnp.where(fresh, 0, playing["t"])
        carry, out = jax.lax.scan(lambda c, _: jax.vmap(step)(*c, seeds), (state, t0, free & ~fresh), None, length=chunk)
        state, t, ended = carry
        playing = {"state": state, "t": t, "ended": ended, "episode": episode, "next": playing["next"] + fresh.sum()}
        return playing, {"episode": episode, "seed": seeds, "fresh": fresh, "initial": initial, "t0": t0, **out}

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
    diff two set differences. Diffs list their facts in graph order. An episode's records are
    released together, in step order, when it ends."""

    def __init__(self, world: World):
        env = world.task.env
        schema = env.kg_schema
        entities, relations = [json.dumps(e) for e in schema["entities"]], [json.dumps(r) for r in schema["relations"]]
        self.world, self.env, self.sizes = world, env, (len(relations), len(entities))
        self.names = _Fragments(
            lambda k: "[{}, {}, {}]".format(*(table[i] for table, i in zip((entities, relations, entities), self.unpack(k))))
        )
        self.ids = _Fragments(lambda k: "[{}, {}, {}]".format(*self.unpack(k)))
        self.instructions = _Fragments(lambda i: json.dumps(world.task.texts[i]))
        self.actions = np.array([json.dumps(n) for n in env.action_names], object)
        self.numbers = np.array([str(i) for i in range(len(env.action_names))], object)
        self.action_lists = functools.lru_cache(maxsize=1 << 14)(self._action_block)
        self.block_bytes = max(1, round(math.sqrt(len(self.actions) / 8)))  # blocks of ~sqrt(8 x actions) actions
        self.head = f'"world": {json.dumps(env.name)}, "split": {json.dumps(world.split)}'
        self.id_head = json.dumps(f"{env.name}/{world.split}/")[:-1]
        self.tail = f'"schema_version": {schema["version"]}}}\n'
        self.playing: dict[int, tuple[int, tuple, list[str]]] = {}  # slot -> (episode, its last state's text, its lines)
        self.episodes = 0

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
        """The records (JSON lines) of the episodes that end in one ``advance`` output."""
        done_lines: list[str] = []
        initial, count0 = self.keys(out["initial"])
        later, counts = self.keys(out["next_graph"])
        valid_bits = np.packbits(out["valid"], axis=-1, bitorder="little")
        for b in np.flatnonzero(out["fresh"]).tolist():
            self.playing[b] = (int(out["episode"][b]), self._state(out["initial"], (b,), initial[b, : count0[b]].tolist()), [])
        for b in np.flatnonzero(out["alive"][0]).tolist():
            episode, state, lines = self.playing[b]
            n = int(out["alive"][:, b].sum())  # a prefix of the chunk: ended is monotone
            seed, t0 = int(out["seed"][b]), int(out["t0"][b])
            head = f'{self.head}, "seed": {seed}, "episode": {episode}, "step": '
            actions, texts, dones = (out[k][:n, b].tolist() for k in ("action", "text", "done"))
            rewards = map(json.dumps, out["reward"][:n, b].astype(float).tolist())
            for c, action, text, done, reward in zip(range(n), actions, texts, dones, rewards):
                after = self._state(out["next_graph"], (c, b), later[c, b, : counts[c, b]].tolist())
                old, new = set(state[0]), set(after[0])
                add = self._join(self.names, [k for k in after[0] if k not in old])
                delete = self._join(self.names, [k for k in state[0] if k not in new])
                valid_names, valid_ids = self.valid_lists(valid_bits[c, b].tobytes())
                t = t0 + c
                lines.append(
                    f'{{"id": {self.id_head}{seed}/{t}", {head}{t}, "instruction": {self.instructions[text]}, "observation": {state[3]}, '
                    f'"graph": {state[1]}, "graph_ids": {state[2]}, "valid_actions": [{valid_names}], "valid_action_ids": [{valid_ids}], '
                    f'"action": {self.actions[action]}, "action_id": {action}, "reward": {reward}, "next_observation": {after[3]}, '
                    f'"next_graph": {after[1]}, "graph_diff": {{"add": {add}, "del": {delete}}}, '
                    f'"done": {"true" if done else "false"}, {self.tail}'
                )
                state = after
            if out["ends"][n - 1, b]:
                done_lines += lines
                del self.playing[b]
                self.episodes += 1
            else:
                self.playing[b] = (episode, state, lines)
        return done_lines

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


def episode_schedule(world: World, seed: int, episodes: int) -> tuple[np.uint32, Array, Array]:
    """``advance``'s (first seed, instructions, episode count) for episodes ``0 .. episodes - 1``:
    the split's instruction schedule, padded to a power of two (few recompiles)."""
    texts = np.zeros(max(1024, 1 << (episodes - 1).bit_length()), np.int32)
    texts[:episodes] = [world.schedule(e) for e in range(episodes)]
    return np.uint32(seed), jnp.asarray(texts), jnp.int32(episodes)


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
    scope: str = "observed",
    shard_size: int = 50_000,
    parquet: bool = False,
    quiet: bool = False,
) -> dict:
    """Generate ``episodes`` episodes (seeds ``seed``, ``seed + 1``, ...; instructions in the
    split's schedule) of at most ``steps`` steps into ``out`` (a progress bar over the episodes
    unless ``quiet``); returns a summary with the record count, records/s over the wall time, the
    time spent waiting for the device and on the host (the device plays the next chunk of steps
    while the host writes the current one). A batch of ``batch_size`` slots plays the episodes: a
    slot whose episode ends takes the next one, so the shards hold whole episodes in the order
    they end. The world must offer a text view (``baselines.worlds.base.TextHooks``)."""
    if not isinstance(world.task.env, TextHooks):
        raise ValueError(f"{world.env_id} declares no text and graph view (manual, kg_schema, kg, verbalise, valid_actions)")
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
    begin, advance = _player(world, policy, steps, float(epsilon), scope)
    schedule = episode_schedule(world, seed, episodes)
    began = time.perf_counter()
    device_s, host_s = 0.0, 0.0
    bar = progress(total=episodes, desc=f"{env.name} {world.split}", unit="episode", silent=quiet)
    writer, shards = RecordWriter(world), Shards(out, stem, shard_size, parquet)
    with compiling(f"the {policy} player of {env.name} ({min(batch_size, episodes)} slots, {steps} steps)", quiet):
        playing, pending = jax.block_until_ready(advance(begin(min(batch_size, episodes)), *schedule))
    try:
        while writer.episodes < episodes:
            playing, upcoming = advance(playing, *schedule)  # the device plays the next chunk while the host writes this one
            tick = time.perf_counter()
            chunk = jax.device_get(pending)
            device_s += time.perf_counter() - tick  # waiting for the device
            tick = time.perf_counter()
            with _no_gc():  # millions of small lists and no cycles: collections would dominate
                shards.write(writer.consume(chunk))
            host_s += time.perf_counter() - tick
            pending = upcoming
            bar.update(writer.episodes - bar.n)
            bar.set_postfix_str(f"{shards.records:,} records", refresh=False)
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
        "episodes": episodes,
        "records": shards.records,
        "shards": shards.names,
        "device_wait_s": round(device_s, 3),
        "host_s": round(host_s, 3),
        "wall_s": round(wall, 3),
        "records_per_s": round(shards.records / max(wall, 1e-9), 1),
    }
    (out / f"{stem}.summary.json").write_text(json.dumps(summary, indent=1))
    return summary


class Shards:
    """JSON lines files ``{stem}-00000.jsonl``, ... of at most ``size`` records each, written as
    records come (and each as Parquet too when it is complete, with ``parquet``)."""

    def __init__(self, out: Path, stem: str, size: int, parquet: bool = False):
        self.out, self.stem, self.size, self.parquet = out, stem, size, parquet
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
            _write_parquet(path, path.with_suffix(".parquet"))


@contextlib.contextmanager
def _no_gc():
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _write_parquet(jsonl: Path, path: Path) -> None:
    """The records of a JSON lines shard as a Parquet file (read by Arrow, typed by ``_arrow_schema``)."""
    try:
        import pyarrow.json as pj
        import pyarrow.parquet as pq
    except ImportError as error:  # pragma: no cover - depends on the install
        raise ValueError("Parquet output needs pyarrow: pip install 'instructworlds[parquet]'") from error
    options = pj.ParseOptions(explicit_schema=_arrow_schema(), unexpected_field_behavior="error")
    pq.write_table(pj.read_json(jsonl, parse_options=options), path)


def _arrow_schema():
    import pyarrow as pa

    text, number = pa.string(), pa.int64()
    graph = pa.list_(pa.list_(text))
    types = {
        "id": text,
        "world": text,
        "split": text,
        "seed": number,
        "episode": number,
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
    return pa.schema([(name, types[name]) for name in RECORD_FIELDS])


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
    entities, relations = env.kg_schema["entities"], env.kg_schema["relations"]
    valid = graph["valid"]
    facts = zip(*(graph[k][valid].tolist() for k in ("subject", "relation", "object")))
    return {"graph": [[entities[s], relations[r], entities[o]] for s, r, o in facts], "observation": env.verbalise(graph)}


@functools.lru_cache(maxsize=8)
def _kg(world: World, scope: str) -> Callable:
    return jax.jit(functools.partial(world.task.env.kg, scope=scope))
