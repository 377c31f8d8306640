"""The blocks-world family: the Minecraft build grid (``blocksworld``), as the suite uses it.

Data (``--data``): a dialogue simulator of ``blocksworld.synthetic`` (``random``, ``blocks``,
``shapes``, ``explicit``: games that place one block on a named ground square), its games split by
target structure; BAP items of a Minecraft Dialogue Corpus folder (``blocksworld.data``); or, for
Build, a target file of your own (``blocksworld.targets``, with the splits its records name).
World features: the grid one-hot over colours (11 * 9 * 11 * 7,), plus the target grid for Build,
the inventory / 20 and the Builder pose; actions factored as (x, y, z, per-cell action).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import blocksworld
from baselines.worlds.base import DATA_SIZE, EPISODE_LIMIT, HUMAN_LIKE, Benchmark, Presets, Questions, Setting, WorldFamily, generated_size

if TYPE_CHECKING:
    from baselines.worlds.task import Task

SOURCES = {
    "BlocksWorld-BAP-v1": ("random", "blocks", "shapes", "explicit"),
    "BlocksWorld-Build-v1": ("blocks", "shapes", "random", "explicit"),
}
"""The simulators each id generates data with (the first is the default)."""


def blocksworld_task(env_id: str = "BlocksWorld-BAP-v1", items: Sequence | None = None, **kwargs) -> Task:
    """Blocks world (BAP or Build): one text (the dialogue window) per item."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    from baselines.worlds.task import Observed, Task
    from blocksworld.grid import ACTIONS_PER_CELL, NUM_COLOURS, SHAPE

    env, params = blocksworld.make(env_id, items, observe_action_mask=True, **kwargs)
    texts = tuple(env.vocabulary.decode(row) for row in np.asarray(params.dialogue))

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
    return Task(
        name=env_id,
        env=env,
        params=params,
        texts=texts,
        text_goal=ids,
        goals=tuple({"key": f"item {i}"} for i in ids),
        observe=observe,
        start=start,
        success=lambda info: info["f1"] >= 1.0,
        score=score,
        metrics=("exact_match", "f1"),
        action_factors=(*SHAPE, ACTIONS_PER_CELL),
        expert=env.expert_action,
        relabel=lambda obs, text, params: obs.replace(dialogue=params.dialogue[text], item=text),
    )


def items_of(spec: Mapping, split: str) -> tuple[list, dict]:
    """(items or targets, task settings) of one split of ``spec``'s ``data`` (module docstring)."""
    from blocksworld import data as corpus
    from blocksworld import simulators

    env_id = spec["env"]
    data = spec["data"] or SOURCES[env_id][0]
    size = generated_size(spec, split)
    build = blocksworld.REGISTERED_IDS[env_id] == "build"
    if data in simulators.SIMULATORS:
        episodes: list = []
        for k in itertools.count():
            if len(episodes) >= size:
                return episodes[:size], {}
            game = simulators.simulate_game(data, k)
            if game.split == split:
                episodes += [simulators.as_target(game)] if build else game.items
    if Path(data).is_dir() and not build:
        return corpus.load_items(data, (split,))[split], {}
    if Path(data).is_file() and build:
        from blocksworld.targets import load_targets

        return load_targets(data, split), {}
    raise ValueError(f"--data {data!r} for {env_id}: use one of {', '.join(SOURCES[env_id])} or a data folder")


def target_file_splits(spec: Mapping) -> tuple[str, ...]:
    """The splits ``spec``'s data offers: those a Build target file's records name (after
    validating all of it; ValueError naming file, line and field); otherwise every split."""
    from blocksworld.targets import SPLITS, TargetFileError, load_targets

    if not spec["data"] or not Path(spec["data"]).is_file():
        return SPLITS
    if blocksworld.REGISTERED_IDS[spec["env"]] != "build":
        raise ValueError(f"--data {spec['data']}: a data file holds Build targets; {spec['env']} reads a folder")
    try:
        present = {item.split for item in load_targets(spec["data"])}
    except TargetFileError as error:
        raise ValueError(f"--data {error}") from None
    return tuple(s for s in SPLITS if s in present)


FAMILY = WorldFamily(
    name="BlocksWorld",
    ids=tuple(blocksworld.REGISTERED_IDS),
    make=blocksworld.make,
    task=blocksworld_task,
    episodes=items_of,
    data_splits=target_file_splits,
    settings=(
        Setting(
            "data",
            "",
            "blocks world: a simulator, "
            + "; ".join(f"{i}: {', '.join(s)}" for i, s in SOURCES.items())
            + " (the first is the default), a Minecraft Dialogue Corpus data folder (BAP items), or a target file (Build)",
        ),
        DATA_SIZE,
        EPISODE_LIMIT,
    ),
    aliases={"blocksworld": "BlocksWorld-BAP-v1"},
    facets=(
        Presets(
            {
                "blocks": {
                    "env": "BlocksWorld-BAP-v1",
                    "data": "explicit",
                    "max_episode_steps": 1,
                    "total_timesteps": 600_000,
                    "eval_episodes": 4,
                    "imitation_coef": 1.0,
                }
            }
        ),
        Questions(
            direct=(("matches_target", "Does this player's final structure match the target?"),),
            comparative=(
                ("shape", "Which structure has the target's shape more nearly?"),
                ("colours", "Which structure has the right colours in more places?"),
                ("position", "Which structure is in the right position more nearly?"),
                ("stray", "Which player placed fewer stray blocks?"),
                HUMAN_LIKE,
            ),
        ),
        Benchmark(scaling=False, host_timings=True),
    ),
)
"""The blocks-world registry entry; preset ``blocks`` of ``python -m baselines``: BAP items that
place one block on a named ground square, with imitation of the world's expert."""
