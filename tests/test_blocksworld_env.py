"""Semantics of BlocksWorld-BAP-v1 and BlocksWorld-Build-v1."""

import functools
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import blocksworld
from blocksworld.data import load_items
from blocksworld.grid import PICK, PLACE, STOP, colour_code, encode_action, to_grid
from blocksworld.metrics import item_counts
from blocksworld.replay import executable_order
from blocksworld.synthetic import generate_items, generate_targets

CORPUS = Path(__file__).parent / "fixtures" / "mdc" / "data"


@functools.cache
def _bap():
    items = load_items(CORPUS)["train"] + generate_items(12, seed=4)
    env, params = blocksworld.make("BlocksWorld-BAP-v1", items, max_tokens=32, observe_action_mask=True)
    return items, env, params, jax.jit(env.step), jax.jit(env.reset_to_item)


def test_random_feasible_play_keeps_120_blocks_and_incremental_f1_matches_metrics():
    items, env, params, step, reset_to = _bap()

    @jax.jit
    def play(key):
        keys = jax.random.split(key, len(items))
        _, state = jax.vmap(env.reset_to_item, in_axes=(0, None))(jnp.arange(len(items)), params)

        def body(state, k):
            mask = jax.vmap(env.action_mask, in_axes=(0, None))(state, params).at[:, STOP].set(False)
            action = jax.vmap(lambda kk, m: jax.random.choice(kk, m.shape[0], p=m / m.sum()))(jax.random.split(k, len(items)), mask)
            _, state, _, _, info = jax.vmap(env.step_env, in_axes=(0, 0, 0, None))(keys, state, action, params)
            total = (state.grid != 0).sum((1, 2, 3)) + state.inventory.sum(1)
            return state, (total, info["feasible"], info["f1"])

        return jax.lax.scan(body, state, jax.random.split(key, 20))

    state, (totals, feasible, f1) = play(jax.random.key(0))
    assert (np.asarray(totals) == 120).all()
    assert np.asarray(feasible).all()  # masked actions are always feasible
    starts = np.stack([to_grid(i.start) for i in items])
    golds = np.stack([to_grid(i.end) for i in items])
    counts = item_counts(starts, np.asarray(state.grid), golds)
    expected = np.where(counts[:, 0, 1] + counts[:, 0, 2] == 0, 1.0, 2 * counts[:, 0, 0] / np.maximum(counts[:, 0, 1] + counts[:, 0, 2], 1))
    np.testing.assert_allclose(np.asarray(f1[-1]), expected, atol=1e-6)


def test_gold_actions_score_one_at_stop():
    items, env, params, step, reset_to = _bap()
    for index in range(len(items)):
        _, state = reset_to(index, params)
        for action in executable_order(items[index]):
            _, state, reward, term, *_ = step(jax.random.key(0), state, encode_action(action), params)
            assert float(reward) == 0 and not bool(term)
        _, state, reward, term, *_ = step(jax.random.key(0), state, jnp.int32(STOP), params)
        assert bool(term) and float(reward) == pytest.approx(1.0)


def test_expert_builds_every_item_exactly_then_stops():
    items, env, params, step, reset_to = _bap()

    @jax.jit
    def demonstrate(index):
        _, state = env.reset_to_item(index, params)

        def body(state, _):
            action = env.expert_action(state, params)
            _, state, _, _, info = env.step_env(jax.random.key(0), state, action, params)
            return state, (action, info["feasible"])

        return jax.lax.scan(body, state, None, 60)

    for index in range(len(items)):
        state, (actions, feasible) = demonstrate(index)
        actions = np.asarray(actions)
        stop = int(np.argmax(actions == STOP))
        assert actions[stop] == STOP and np.asarray(feasible)[:stop].all()
        np.testing.assert_array_equal(state.grid, to_grid(items[index].end))
        assert bool(state.done) and stop >= int(params.num_reference[index])


def test_infeasible_actions_are_noops():
    items, env, params, step, reset_to = _bap()
    _, state = reset_to(1, params)  # item B: red at (0,1,0)
    red, blue = colour_code("red"), colour_code("blue")
    for action in [(PLACE, 3, 2, 3, red), (PLACE, 0, 1, 0, blue), (PICK, 4, 1, 4, red)]:  # floating, occupied, empty
        _, new, reward, *_, info = step(jax.random.key(0), state, encode_action(action), params)
        assert not bool(info["feasible"]) and np.array_equal(new.grid, state.grid)
        assert np.array_equal(new.inventory, state.inventory)
    empty = state.replace(inventory=state.inventory.at[blue - 1].set(0))
    _, new, *_, info = step(jax.random.key(0), empty, encode_action((PLACE, 1, 1, 0, blue)), params)
    assert not bool(info["feasible"]) and np.array_equal(new.grid, state.grid)


def test_time_limit_scores_what_was_built():
    items, env, params, step, reset_to = _bap()
    short = params.replace(max_steps_in_episode=1)
    _, state = reset_to(0, short)  # item A: place red at (0,1,0)
    _, state, reward, term, trunc, _ = env.step(jax.random.key(0), state, encode_action(items[0].actions[0]), short)
    assert bool(trunc) and not bool(term) and float(reward) == pytest.approx(1.0)


def test_build_rewards_telescope_to_the_final_match():
    targets = generate_targets(4, seed=2, simulator="shapes")
    env, params = blocksworld.make("BlocksWorld-Build-v1", targets, max_tokens=8)
    step = jax.jit(env.step)
    obs, state = env.reset_to_item(0, params)
    np.testing.assert_array_equal(obs.target, to_grid(targets[0].end))
    block = targets[0].end[0]
    total, wrong = 0.0, (*block[:3], block[3] % 6 + 1)
    _, state, reward, term, *_ = step(jax.random.key(0), state, encode_action((PLACE, *wrong)), params)
    total += float(reward)
    assert float(reward) == 0 and not bool(term)  # a wrong colour changes nothing of the match
    _, state, reward, *_ = step(jax.random.key(0), state, encode_action((PICK, *wrong)), params)
    total += float(reward)
    actions = targets[0].actions  # the simulated Builder's, with temporary supports
    for j, action in enumerate(actions):
        _, state, reward, term, *_ = step(jax.random.key(0), state, encode_action(action), params)
        total += float(reward)
        assert bool(term) == (j == len(actions) - 1)
    assert total == pytest.approx(1.0, abs=1e-5)


def test_make_validation():
    with pytest.raises(ValueError, match="Did you mean BlocksWorld-BAP-v1"):
        blocksworld.make("BlocksWorld-BAP-v2")
    with pytest.raises(ValueError, match="task"):
        blocksworld.BlocksWorld(blocksworld.Vocabulary([]), task="paint")
