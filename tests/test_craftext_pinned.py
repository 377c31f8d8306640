"""The scripted expert and the checkers, pinned: a digest of the actions, checker memory and
success of every covered scenario in real Craftax worlds, so a rewrite of ``craftext.expert`` or
``craftext.checkers`` that changes any decision fails here. The digests were recorded on the CPU
with jax 0.10.2 and craftax 1.6.1; re-record them only when a dependency changes Craftax's own
dynamics (the world, not the expert)."""

from __future__ import annotations

import hashlib
import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import craftext
from craftext.goalfile import load_goals
from craftext.world import NOOP
from tests.test_craftext_expert import GOALS

STEPS = 120
WORLDS = 2
PINNED = {
    ("classic", False): "005dd2324ff8ade4d05ae0a3f92301a41e8628565599d4ee1475cbce7a026c4d",
    ("classic", True): "0f32028509b850009e8df8141db126ba658d40c694363fdac745a7585cc1907d",
    ("full", False): "b5370a76f60adc3c0573c3ad6dad567011c9928bd0be0d9572dbf641d1bc0ae8",
}


def trajectory_digest(tmp_path, classic: bool, sight: bool) -> str:
    """sha256 of the (goals, worlds, STEPS) actions, (.., 10) checker memory and successes of the
    expert playing ``GOALS`` (the uncovered one plays NOOP) from fixed keys."""
    path = tmp_path / "goals.jsonl"
    path.write_text("".join(json.dumps({"scenario": s, "args": a, "phrasings": [f"goal {i}"]}) + "\n" for i, (s, a) in enumerate(GOALS)))
    dataset = load_goals(path, classic=classic)
    env, params = craftext.make("CrafText-Classic-Symbolic-v1" if classic else "CrafText-Symbolic-v1", dataset.pairs())
    goal_ids = jnp.repeat(jnp.arange(len(GOALS)), WORLDS)
    keys = jax.random.split(jax.random.key(7), len(goal_ids))

    @jax.jit
    def play(keys, goal_ids):
        def start(key, goal):
            _, state = env.reset_env(key, params)
            return env.set_goal(state, params.phrase_start[goal], params)

        def step(state, t):
            action = jax.vmap(lambda s: env.expert_action(s, params, sight))(state)
            step_keys = jax.vmap(jax.random.fold_in, in_axes=(0, None))(keys, t)
            _, state, _, _, info = jax.vmap(env.step_env, in_axes=(0, 0, 0, None))(step_keys, state, action, params)
            return state, (action, state.memory, info["success"])

        return jax.lax.scan(step, jax.vmap(start)(keys, goal_ids), jnp.arange(STEPS))[1]

    actions, memory, success = jax.device_get(play(keys, goal_ids))
    assert (actions != NOOP).any() and success.any()  # the expert plays and completes something
    digest = hashlib.sha256()
    for part in (actions, memory, success):
        digest.update(np.ascontiguousarray(part).tobytes())
    return digest.hexdigest()


@pytest.mark.slow
@pytest.mark.parametrize("version,sight", list(PINNED))
def test_the_expert_and_the_checkers_play_as_pinned(tmp_path, version, sight):
    assert trajectory_digest(tmp_path, version == "classic", sight) == PINNED[version, sight]
