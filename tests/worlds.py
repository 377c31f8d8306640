"""The worlds every env-contract test runs on: small shapes, so compiles stay short on a CPU."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import blocksworld
import craftext
import hexagons
from blocksworld.synthetic import generate_items, generate_targets
from hexagons.synthetic import generate


@dataclass(frozen=True)
class WorldCase:
    """name: an id; make() -> (env, params); other_params(env) -> params of the same shapes holding
    different data (another split), which must run through the same compiled step.
    masked_actions_leave_state: a masked action changes nothing at all (False for Craftax, where
    the world moves on around the player). noop: the action an out-of-range action plays as (None:
    such actions leave the world as it is). many: how many worlds the ``jit(vmap(step))`` test
    steps at once (fewer for Craftax, whose every reset generates a world: seconds on a CPU)."""

    name: str
    make: Callable[[], tuple[Any, Any]]
    other_params: Callable[[Any], Any]
    masked_actions_leave_state: bool = True
    noop: int | None = None
    many: int = 1024


def _hexagons(**kwargs) -> WorldCase:
    def make():
        return hexagons.make(
            "Hexagons-Paint-v1",
            generate(32, seed=0),
            max_instructions=8,
            max_tokens=24,
            max_paints_per_instruction=12,
            max_steps_in_episode=60,
            **kwargs,
        )

    def other_params(env):
        return env.make_params(generate(32, seed=1), max_paints_per_instruction=12, max_steps_in_episode=60)

    suffix = ",".join(f"{k}={v}" for k, v in kwargs.items())
    return WorldCase(f"Hexagons-Paint-v1[{suffix}]", make, other_params)


def _blocksworld(env_id: str, generator, **kwargs) -> WorldCase:
    def make():
        return blocksworld.make(env_id, generator(24, seed=0), max_tokens=16, max_steps_in_episode=40, **kwargs)

    def other_params(env):
        return env.make_params(generator(24, seed=1), max_steps_in_episode=40)

    return WorldCase(env_id, make, other_params)


def _craftext() -> WorldCase:
    from craftext import dataset

    release = dataset.load_release(True, "default")

    def pairs(split):
        return [(e.goal, e.phrasings[:2]) for e in release.select("medium", split).entries[:6]]

    def make():
        return craftext.make("CrafText-Classic-Symbolic-v1", pairs("train"), max_tokens=16, max_steps_in_episode=60)

    def other_params(env):
        return env.make_params(pairs("test_new_objects"), max_steps_in_episode=60)

    return WorldCase(
        "CrafText-Classic-Symbolic-v1", make, other_params, masked_actions_leave_state=False, noop=craftext.world.NOOP, many=32
    )


WORLDS = [
    _hexagons(observe_action_mask=True),
    _hexagons(history="full", oracle_board=True),
    _blocksworld("BlocksWorld-BAP-v1", generate_items, observe_action_mask=True),
    _blocksworld("BlocksWorld-Build-v1", generate_targets),
    _craftext(),
]
