"""The Hexagons family: the hexagon board painted by instructions (``hexagons``), as the suite uses it.

Data (``--data``): ``synthetic`` (every kind of ``hexagons.synthetic``, the default) or ``tiles``
(single-tile instructions, one paint each: the paint budget is 1, so an instruction ends after one
paint), their splits the generator seeds 0 / 1 / 2, dev and test giving only the instructions whose
meaning train never has (``hexagons.synthetic.held_out_meaning``; for single tiles the (row, column,
colour) combinations of ``held_out_tile``), so no test text is a training one; a folder of the released JSONL
(``hexagons.data``); or a JSON lines file of your own procedures in the released format (one set,
used as every split).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import hexagons
from baselines.worlds.base import (
    DATA_SIZE,
    EFFICIENCY,
    EPISODE_LIMIT,
    GENERATOR_SEEDS,
    HUMAN_LIKE,
    Presets,
    Questions,
    Setting,
    WorldFamily,
    generated_size,
)

if TYPE_CHECKING:
    from baselines.worlds.task import Task

SOURCES = ("synthetic", "tiles")
"""Generated data (the first is the default)."""


def hexagons_task(env_id: str = "Hexagons-Paint-v1", procedures: Sequence | None = None, **kwargs) -> Task:
    """Hexagons: one text per (procedure, instruction step); actions factored as (row, column,
    colour); world features: the board one-hot over colours, (180 * 8,)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    from baselines.worlds.task import Observed, Task
    from hexagons.geometry import COLS, NUM_COLOURS, ROWS

    env, params = hexagons.make(env_id, procedures, observe_action_mask=True, **kwargs)
    tokens = np.asarray(params.tokens)
    steps = tokens.shape[1]
    texts = tuple(env.vocabulary.decode(row) for row in tokens.reshape(-1, tokens.shape[-1]))

    def observe(obs) -> Observed:
        world = jax.nn.one_hot(obs.board, NUM_COLOURS).reshape(-1)
        return Observed(world, obs.procedure * steps + obs.instruction_index, obs.action_mask)

    def start(key, text, params):
        return env.reset_to_procedure(text // steps, params)

    def relabel(obs, text, params):
        procedure, step = text // steps, text % steps
        instruction, history = env.instruction_view(procedure, step, params)
        return obs.replace(instruction=instruction, procedure=procedure, instruction_index=step, history=history)

    def score(info, ended):
        finished = info["instruction_finished"].astype(jnp.float32)
        return {"exact_match": (info["exact_match"], finished), "action_f1": (info["action_f1"], finished)}

    text_procedure = np.arange(len(texts), dtype=np.int32) // steps
    goals = tuple({"key": f"procedure {p}"} for p in range(len(texts) // steps))
    return Task(
        name=env_id,
        env=env,
        params=params,
        texts=texts,
        text_goal=text_procedure,
        goals=goals,
        observe=observe,
        start=start,
        success=lambda info: info["procedure_exact"],
        score=score,
        metrics=("exact_match", "action_f1"),
        action_factors=(ROWS, COLS, NUM_COLOURS),
        expert=env.expert_action,
        procedure=lambda text: tuple(t for t in range(text - text % steps, text - text % steps + steps) if texts[t]),
        relabel=relabel,
    )


def procedures_of(spec: Mapping, split: str) -> tuple[list, dict]:
    """(procedures, task settings) of one split of ``spec``'s ``data`` (module docstring)."""
    from hexagons import data as released
    from hexagons import synthetic

    data = spec["data"] or SOURCES[0]
    size = generated_size(spec, split)
    if data == "tiles":
        tiles = synthetic.generate(size, GENERATOR_SEEDS[split], kinds=("tile",), held_out=split != "train")
        return tiles, {"max_paints_per_instruction": 1}
    if data == "synthetic":
        return synthetic.generate(size, GENERATOR_SEEDS[split], held_out=split != "train"), {}
    if Path(data).is_dir():
        return released.load_dataset(data, (split,))[split], {}
    if Path(data).is_file():
        return released.load_split(data), {}
    raise ValueError(f"--data {data!r} for {spec['env']}: use one of {', '.join(SOURCES)} or a data folder")


def procedure_file_splits(spec: Mapping) -> tuple[str, ...]:
    """The splits ``spec``'s data offers: a procedures file is one set (``train``, after validating
    all of it; ValueError naming file, line and field); otherwise every split."""
    if not spec["data"] or not Path(spec["data"]).is_file():
        return tuple(GENERATOR_SEEDS)
    from hexagons.data import HexagonsDataError, load_split

    try:
        load_split(spec["data"])
    except HexagonsDataError as error:
        raise ValueError(f"--data {error}") from None
    return ("train",)


FAMILY = WorldFamily(
    name="Hexagons",
    ids=hexagons.REGISTERED_IDS,
    make=hexagons.make,
    task=hexagons_task,
    episodes=procedures_of,
    data_splits=procedure_file_splits,
    settings=(
        Setting(
            "data",
            "",
            "Hexagons: " + ", ".join(SOURCES) + " (generated; the first is the default), a folder of the released "
            "JSONL, or a JSON lines file of your own procedures",
        ),
        DATA_SIZE,
        EPISODE_LIMIT,
    ),
    aliases={"hexagons": "Hexagons-Paint-v1"},
    facets=(
        Presets(
            {
                "hexagons": {
                    "env": "Hexagons-Paint-v1",
                    "data": "tiles",
                    "max_episode_steps": 8,
                    "total_timesteps": 300_000,
                    "eval_episodes": 2,
                    "imitation_coef": 1.0,
                }
            }
        ),
        Questions(
            direct=(("board_matches", "Does this player's final board match the target board?"),),
            comparative=(
                ("pattern", "Which player better captured the pattern the instruction describes?"),
                ("wrong_tiles", "Which player painted fewer wrong tiles?"),
                EFFICIENCY,
                HUMAN_LIKE,
            ),
        ),
    ),
)
"""The Hexagons registry entry; preset ``hexagons`` of ``python -m baselines``: single-tile
instructions, one paint each, with imitation of the world's expert."""
