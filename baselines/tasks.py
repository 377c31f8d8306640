"""One observation interface for every world of the suite.

A ``Task`` wraps a registered env and its params and turns each world's own observation into the
three things a language-conditioned policy needs (``Observed``): the world features, the id of the
instruction in the task's instruction table (``texts``), and the action mask. The frozen text
encoders embed ``texts`` once, outside the jit; inside it the policy looks embeddings up by id.

World features: CrafText Classic/full symbolic vectors or (H, W, 3) pixels as Craftax gives them;
Hexagons: the board one-hot over colours, (180 * 8,), actions factored as (row, column, colour);
blocks world: the grid one-hot over colours (11 * 9 * 11 * 7,), plus the target grid for Build, the
inventory / 20 and the Builder pose; actions factored as (x, y, z, per-cell action).
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from jax import Array


@struct.dataclass
class Observed:
    """world: float32 features, (D,) or (H, W, C); text: () int32 id into ``Task.texts``;
    mask: (num_actions,) bool, True where the action is feasible."""

    world: Array
    text: Array
    mask: Array


@dataclass(frozen=True)
class Task:
    """A world ready for the baselines.

    texts: the instruction table (index = ``Observed.text``). text_goal: (len(texts),) int goal id
    of each text (CrafText: its goal; Hexagons: its procedure; blocks world: its item). goals: one
    label dict per goal (``key``, and for CrafText ``category`` and ``level``). start(key, text,
    params) -> (obs, state): an episode of the goal of text id ``text``, shown that text (jittable).
    score(info, ended) -> metric -> (value, count) of one step for the evaluator, summed over an
    episode; ``metrics`` names them, the headline first. reset_ratio: optimistic-reset ratio.
    action_factors: the mixed-radix layout of the first ``prod(action_factors)`` actions (for
    factored policy heads; empty: no such structure). expert(state, params) -> () int32: the world's
    gold next action in an env state (a demonstrator for imitation; None: the world has none, or
    CrafText goals its scripted expert does not cover).
    """

    name: str
    env: Any
    params: Any
    texts: tuple[str, ...]
    observe: Callable[[Any], Observed]
    num_actions: int
    text_goal: np.ndarray
    goals: tuple[dict, ...]
    success: Callable[[dict], Array]
    start: Callable[[Array, Array, Any], tuple[Any, Any]]
    score: Callable[[dict, Array], dict[str, tuple[Array, Array]]]
    metrics: tuple[str, ...]
    reset_ratio: int = 1
    action_factors: tuple[int, ...] = ()
    expert: Callable[[Any, Any], Array] | None = None
    goal_objects: tuple[Any, ...] = field(default=(), repr=False)

    @property
    def pixels(self) -> bool:
        """Whether the world features are an image (H, W, C)."""
        world = jax.eval_shape(lambda: self.observe(self.env.reset(jax.random.key(0), self.params)[0]).world)
        return len(world.shape) == 3


def _all_feasible(num_actions: int) -> Array:
    return jnp.ones(num_actions, bool)


def craftext_task(env_id: str = "CrafText-Classic-Symbolic-v1", pairs: Sequence | None = None, level: str = "medium",
                  split: str = "train", **settings) -> Task:
    """CrafText on ``pairs`` of (Goal, phrasings) (default: the shipped ``level`` / ``split``)."""
    import craftext
    from craftext import dataset
    from craftext.expert import covers
    from craftext.generator import level as goal_level

    if pairs is None:
        pairs = dataset.load(level, split, classic=craftext.REGISTERED_IDS[env_id][0]).pairs()
    env, params = craftext.make(env_id, list(pairs), **settings)
    texts = tuple(t for _, phrasings in pairs for t in phrasings)
    text_goal = np.asarray([g for g, (_, phrasings) in enumerate(pairs) for _ in phrasings], np.int32)
    goals = tuple({"key": goal.key(), "category": goal.category, "level": goal_level(goal)} for goal, _ in pairs)
    n = env.num_actions

    def observe(obs) -> Observed:
        return Observed(obs.world.astype(jnp.float32), obs.instruction_index, _all_feasible(n))

    def start(key, text, params):
        state = env.set_goal(env.reset_env(key, params)[1], text, params)
        return env.get_obs(state, params), state

    def score(info, ended):
        return {"success": (info["success"].astype(jnp.float32), ended.astype(jnp.float32))}

    return Task(env_id, env, params, texts, observe, n, text_goal, goals, lambda info: info["success"], start, score, ("success",),
                reset_ratio=16, expert=env.expert_action if all(covers(g) for g, _ in pairs) else None, goal_objects=tuple(g for g, _ in pairs))


def hexagons_task(env_id: str = "Hexagons-Paint-v1", procedures: Sequence | None = None, **kwargs) -> Task:
    """Hexagons: one text per (procedure, instruction step)."""
    import hexagons
    from hexagons.geometry import COLS, NUM_COLOURS, ROWS

    env, params = hexagons.make(env_id, procedures, observe_action_mask=True, **kwargs)
    tokens = np.asarray(params.tokens)
    steps = tokens.shape[1]
    texts = tuple(env.vocabulary.decode(row) for row in tokens.reshape(-1, tokens.shape[-1]))
    n = env.num_actions

    def observe(obs) -> Observed:
        world = jax.nn.one_hot(obs.board, NUM_COLOURS).reshape(-1)
        return Observed(world, obs.procedure * steps + obs.instruction_index, obs.action_mask)

    def start(key, text, params):
        return env.reset_to_procedure(text // steps, params)

    def score(info, ended):
        finished = info["instruction_finished"].astype(jnp.float32)
        return {"exact_match": (info["exact_match"], finished), "action_f1": (info["action_f1"], finished)}

    procedures = np.arange(len(texts), dtype=np.int32) // steps
    goals = tuple({"key": f"procedure {p}"} for p in range(len(texts) // steps))
    return Task(env_id, env, params, texts, observe, n, procedures, goals, lambda info: info["exact_match"] > 0, start, score,
                ("exact_match", "action_f1"), action_factors=(ROWS, COLS, NUM_COLOURS), expert=env.expert_action)


def blocksworld_task(env_id: str = "BlocksWorld-BAP-v1", items: Sequence | None = None, **kwargs) -> Task:
    """Blocks world (BAP or Build): one text (the dialogue window) per item."""
    import blocksworld
    from blocksworld.grid import ACTIONS_PER_CELL, NUM_COLOURS, SHAPE

    env, params = blocksworld.make(env_id, items, observe_action_mask=True, **kwargs)
    texts = tuple(env.vocabulary.decode(row) for row in np.asarray(params.dialogue))
    n = env.num_actions

    def observe(obs) -> Observed:
        parts = [jax.nn.one_hot(obs.grid, NUM_COLOURS + 1).reshape(-1)]
        if obs.target is not None:
            parts.append(jax.nn.one_hot(obs.target, NUM_COLOURS + 1).reshape(-1))
        parts += [obs.inventory.astype(jnp.float32) / 20.0, obs.builder_pose.astype(jnp.float32) / jnp.asarray([11, 9, 11, 360, 360])]
        return Observed(jnp.concatenate(parts), obs.item, obs.action_mask)

    def start(key, text, params):
        return env.reset_to_item(text, params)

    def score(info, ended):
        weight = ended.astype(jnp.float32)
        return {"exact_match": ((info["f1"] >= 1.0).astype(jnp.float32), weight), "f1": (info["f1"], weight)}

    ids = np.arange(len(texts), dtype=np.int32)
    return Task(env_id, env, params, texts, observe, n, ids, tuple({"key": f"item {i}"} for i in ids), lambda info: info["f1"] >= 1.0,
                start, score, ("exact_match", "f1"), action_factors=(*SHAPE, ACTIONS_PER_CELL), expert=env.expert_action)


WORLD_DATA = {
    "Hexagons-Paint-v1": ("synthetic", "tiles"),
    "BlocksWorld-BAP-v1": ("random", "blocks", "shapes", "explicit"),
    "BlocksWorld-Build-v1": ("blocks", "shapes", "random", "explicit"),
}
"""Built-in data of the grid worlds (the first is the default); a folder path reads the released
Hexagons JSONL (``hexagons.data``) or the Minecraft Dialogue Corpus (``blocksworld.data``) instead,
a file path a user's own Hexagons procedures or Build targets (``data_file_splits``)."""
SPLIT_SEEDS = {"train": 0, "dev": 1, "test": 2}
EVAL_SPLITS = {"CrafText": "train,test_paraphrased,test_new_objects", "Hexagons": "train,test", "BlocksWorld": "train,test"}
"""Default evaluation splits of each world family."""


def world_split(env_id: str, data: str, split: str, size: int) -> tuple[list, dict]:
    """(episodes, ``make_task`` keyword arguments) of split ``split`` (train / dev / test) of a
    Hexagons or blocks-world ``data`` source (``WORLD_DATA`` or a folder): ``size`` procedures or
    items for built-in data (all of the split for a folder).

    Hexagons ``tiles``: single-tile instructions, one paint each (the paint budget is 1, so an
    instruction ends after one paint); ``synthetic``: every kind of ``hexagons.synthetic``. Their
    splits are the generator seeds 0 / 1 / 2. Blocks world: the items (BAP) or target structures
    (Build) of a simulator's games, split by structure as ``blocksworld.synthetic`` does;
    ``explicit`` games place one block on a named ground square. A corpus folder gives BAP items."""
    if split not in SPLIT_SEEDS:
        raise ValueError(f"split {split!r}: the grid worlds have {', '.join(SPLIT_SEEDS)}")
    if env_id.startswith("Hexagons"):
        from hexagons import data as released, synthetic

        if data == "tiles":
            return synthetic.generate(size, SPLIT_SEEDS[split], kinds=("tile",)), {"max_paints_per_instruction": 1}
        if data == "synthetic":
            return synthetic.generate(size, SPLIT_SEEDS[split]), {}
        if Path(data).is_dir():
            return released.load_dataset(data, (split,))[split], {}
        if Path(data).is_file():
            return released.load_split(data), {}
    elif env_id.startswith("BlocksWorld"):
        from blocksworld import data as corpus, synthetic

        build = env_id == "BlocksWorld-Build-v1"
        if data in synthetic.SIMULATORS:
            episodes: list = []
            for k in itertools.count():
                if len(episodes) >= size:
                    return episodes[:size], {}
                game = synthetic.simulate_game(data, k)
                if game.split == split:
                    episodes += [synthetic.as_target(game)] if build else game.items
        if Path(data).is_dir() and not build:
            return corpus.load_items(data, (split,))[split], {}
        if Path(data).is_file() and build:
            from blocksworld.targets import load_targets

            return load_targets(data, split), {}
    else:
        raise ValueError(f"{env_id} takes no --data (CrafText reads its dataset: --level, --release, --goals)")
    raise ValueError(f"--data {data!r} for {env_id}: use one of {', '.join(WORLD_DATA[env_id])} or a data folder")


def data_file_splits(env_id: str, path: str) -> tuple[str, ...]:
    """The splits a user's data file gives, after validating all of it (the loaders' errors name
    file, line and field): a Hexagons JSON lines file of procedures in the released format is one
    set, used as every split (a folder of ``train`` / ``dev`` / ``test.jsonl`` holds splits); a
    Build target file (``blocksworld.targets``) has the splits its records name."""
    if env_id.startswith("Hexagons"):
        from hexagons.data import load_split

        load_split(path)
        return ("train",)
    if env_id == "BlocksWorld-Build-v1":
        from blocksworld.targets import SPLITS, load_targets

        present = {item.split for item in load_targets(path)}
        return tuple(s for s in SPLITS if s in present)
    raise ValueError(f"a data file is for Hexagons-Paint-v1 (procedures) or BlocksWorld-Build-v1 (targets); {env_id} reads a folder")


WORLD_SPEC = {"env": "CrafText-Classic-Symbolic-v1", "level": "easy", "release": "default", "goals": "", "goals_file": "", "data": "",
              "data_size": 512, "max_episode_steps": 500}
"""The settings that choose a world and its episodes (with a split: ``spec_task``), and their
defaults: what a training run saves and what an episode file records to rebuild its world."""


def world_spec(settings: Mapping) -> dict:
    """The ``WORLD_SPEC`` entries of ``settings`` (defaults where absent; other keys dropped)."""
    return {k: settings.get(k, v) for k, v in WORLD_SPEC.items()}


def split_episodes(spec: Mapping, split: str) -> tuple[list, dict]:
    """(episodes, ``make_task`` settings) of one split of ``spec``'s world: CrafText (goal,
    phrasings) pairs of ``level`` / ``release`` (or of the goal file ``goals_file``, all levels)
    filtered by ``goals``; the grid worlds' ``data``
    (``world_split``: ``data_size`` for train, a quarter of it for others). Raises ValueError."""
    spec = world_spec(spec)
    env = spec["env"]
    check_env_id(env)
    if not env.startswith("CrafText"):
        data = spec["data"] or WORLD_DATA[env][0]
        size = spec["data_size"] if split == "train" else max(1, spec["data_size"] // 4)
        return world_split(env, data, split, size)
    import craftext
    from craftext import dataset

    classic = craftext.REGISTERED_IDS[env][0]
    if spec["goals_file"]:
        from craftext.goalfile import split_pairs

        pairs = split_pairs(spec["goals_file"], classic, split)
    else:
        pairs = dataset.load(spec["level"], split, classic=classic, release=spec["release"]).pairs()
    if spec["goals"]:
        terms = goal_terms(spec["goals"])
        wanted, unwanted = [t for t in terms if not t.startswith("-")], [t[1:] for t in terms if t.startswith("-")]
        pairs = [(g, p) for g, p in pairs if any(w in g.key() for w in wanted) and not any(u in g.key() for u in unwanted)]
    if not pairs:
        raise ValueError(f"no {spec['level']} goals in the {split} split match goals={spec['goals']!r}")
    return pairs, {}


def goal_terms(spec: str) -> list[str]:
    """A goal filter split at the commas outside parentheses, so a whole goal key is one term:
    ``"required=collect_wood),-ACHIEVEMENTS(forbidden=None,ordered=False,required=collect_wood)"``
    -> ``["required=collect_wood)", "-ACHIEVEMENTS(forbidden=None,ordered=False,required=collect_wood)"]``."""
    terms, depth, current = [], 0, ""
    for char in spec:
        if char == "," and depth == 0:
            terms.append(current)
            current = ""
            continue
        depth = max(0, depth + (char == "(") - (char == ")"))
        current += char
    return [t.strip() for t in terms + [current] if t.strip()]


def spec_task(spec: Mapping, split: str | tuple[list, dict], **settings) -> Task:
    """The ``Task`` of ``spec``'s world on a split (a name, or what ``split_episodes`` returned)."""
    spec = world_spec(spec)
    episodes, world_settings = split_episodes(spec, split) if isinstance(split, str) else split
    return make_task(spec["env"], episodes, max_steps_in_episode=spec["max_episode_steps"], **world_settings, **settings)


BUILDERS: dict[str, Callable[..., Task]] = {
    "CrafText-Classic-Symbolic-v1": craftext_task,
    "CrafText-Classic-Pixels-v1": craftext_task,
    "CrafText-Symbolic-v1": craftext_task,
    "CrafText-Pixels-v1": craftext_task,
    "Hexagons-Paint-v1": hexagons_task,
    "BlocksWorld-BAP-v1": blocksworld_task,
    "BlocksWorld-Build-v1": blocksworld_task,
}


def check_env_id(env_id: str) -> None:
    """Raise ``ValueError`` naming the close registered ids when ``env_id`` is not one."""
    if not isinstance(env_id, str) or env_id not in BUILDERS:
        close = difflib.get_close_matches(env_id, list(BUILDERS), n=3, cutoff=0.4) if isinstance(env_id, str) else []
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise ValueError(f"unknown env id {env_id!r}.{hint} Known: {', '.join(BUILDERS)}")


def make_task(env_id: str, *args, **kwargs) -> Task:
    """The ``Task`` of any registered world id (extra arguments go to the world's ``make``)."""
    check_env_id(env_id)
    return BUILDERS[env_id](env_id, *args, **kwargs)
