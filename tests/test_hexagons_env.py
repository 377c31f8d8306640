"""Semantics of Hexagons-Paint-v1: rewards, instruction flow, context settings."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hexagons
from hexagons.env import STOP
from hexagons.metrics import action_scores
from hexagons.synthetic import generate

PROCEDURES = generate(16, seed=3)


@functools.cache
def _env(**kwargs):
    env, params = hexagons.make("Hexagons-Paint-v1", PROCEDURES, max_instructions=8, max_tokens=32, **kwargs)
    return env, params, jax.jit(env.step), jax.jit(env.reset)


def paint(tile, colour):
    return jnp.int32(tile * 8 + colour)


def test_gold_actions_score_one_and_advance_instructions():
    env, params, step, reset = _env()
    _, state = reset(jax.random.key(0), params)
    proc = PROCEDURES[int(state.procedure)]
    for t in range(1, proc.num_steps + 1):
        changed = np.flatnonzero(proc.boards[t] != proc.boards[t - 1])
        for tile in changed:
            obs, state, reward, term, *_ = step(jax.random.key(t), state, paint(tile, proc.boards[t, tile]), params)
            assert float(reward) == 0 and not bool(term)
        obs, state, reward, term, trunc, info = step(jax.random.key(t), state, jnp.int32(STOP), params)
        assert float(reward) == pytest.approx(1.0) and bool(info["instruction_finished"])
        assert bool(term) == (t == proc.num_steps)
        if not bool(term):
            assert int(obs.instruction_index) == t
            np.testing.assert_array_equal(obs.board, proc.boards[t])


def test_expert_paints_every_instruction_exactly():
    env, params, step, reset = _env()

    @jax.jit
    def demonstrate(procedure):
        _, state = env.reset_to_procedure(procedure, params)

        def body(state, _):
            _, state, _, _, info = env.step_env(jax.random.key(0), state, env.expert_action(state, params), params)
            return state, (info["instruction_finished"], info["exact_match"])

        return jax.lax.scan(body, state, None, 200)

    for index, proc in enumerate(PROCEDURES):
        state, (finished, exact) = demonstrate(index)
        finished = np.asarray(finished)
        assert bool(state.done) and finished.sum() == proc.num_steps
        assert (np.asarray(exact)[finished] == 1).all()
        np.testing.assert_array_equal(state.board, proc.boards[-1])


def test_incremental_f1_equals_recomputed_f1_under_random_play():
    env, params, step, reset = _env()
    rng = np.random.default_rng(0)
    checked = 0
    for episode in range(6):
        _, state = reset(jax.random.key(episode), params)
        start_board = np.asarray(state.board)
        for t in range(60):
            proc = PROCEDURES[int(state.procedure)]
            k = int(state.instruction)
            gold_before, gold_after = proc.boards[k], proc.boards[k + 1]
            changed = np.flatnonzero(gold_after != gold_before)
            if rng.random() < 0.1:
                action = STOP
            elif changed.size and rng.random() < 0.5:  # a gold-ish paint, sometimes with the wrong colour
                tile = int(rng.choice(changed))
                action = tile * 8 + int(gold_after[tile] if rng.random() < 0.7 else rng.integers(8))
            else:
                action = int(rng.integers(STOP))
            board_before_step = np.asarray(state.board)
            _, state, reward, term, trunc, info = step(jax.random.key(t), state, jnp.int32(action), params)
            if bool(info["instruction_finished"]):
                board_at_stop = board_before_step.copy()
                if action != STOP:
                    board_at_stop[action // 8] = action % 8
                expected = action_scores(gold_before, gold_after, start_board, board_at_stop)
                assert float(reward) == pytest.approx(float(expected.f1), abs=1e-6)
                assert float(info["exact_match"]) == float(expected.exact_match)
                checked += 1
                start_board = np.asarray(state.board)
            if bool(term | trunc):
                break
    assert checked >= 10


def test_paint_budget_ends_an_instruction():
    env, params, step, reset = _env(max_paints_per_instruction=3)
    _, state = reset(jax.random.key(1), params)
    for i in range(3):
        _, state, reward, term, trunc, info = step(jax.random.key(i), state, paint(i, 1 + i % 7), params)
    assert bool(info["instruction_finished"]) and int(state.paints) == 0


def test_oracle_board_starts_every_instruction_from_gold():
    env, params, step, reset = _env(oracle_board=True, history="full")
    _, state = reset(jax.random.key(2), params)
    proc = PROCEDURES[int(state.procedure)]
    obs, state, *_ = step(jax.random.key(0), state, paint(100, 6), params)  # a wrong paint
    obs, state, *_ = step(jax.random.key(1), state, jnp.int32(STOP), params)
    np.testing.assert_array_equal(obs.board, proc.boards[1])  # gold board, not the agent's
    assert obs.history.shape == (8, 32)
    np.testing.assert_array_equal(obs.history[0], params.tokens[int(state.procedure), 0])
    assert not np.asarray(obs.history[1:]).any()


def test_previous_instruction_history():
    env, params, step, reset = _env(history="previous")
    obs, state = reset(jax.random.key(3), params)
    assert obs.history.shape == (1, 32) and not np.asarray(obs.history).any()
    obs, state, *_ = step(jax.random.key(0), state, jnp.int32(STOP), params)
    np.testing.assert_array_equal(obs.history[0], params.tokens[int(state.procedure), 0])
    assert env.vocabulary.decode(np.asarray(obs.instruction)) != ""


def test_bad_configuration_and_oversized_data_are_rejected():
    with pytest.raises(ValueError, match="history"):
        hexagons.make("Hexagons-Paint-v1", PROCEDURES, history="all")
    with pytest.raises(ValueError, match="max_instructions=2"):
        hexagons.make("Hexagons-Paint-v1", PROCEDURES, max_instructions=2)
    with pytest.raises(ValueError, match="Did you mean Hexagons-Paint-v1"):
        hexagons.make("Hexagon-Paint-v1")
    with pytest.warns(UserWarning, match="truncated"):
        hexagons.make("Hexagons-Paint-v1", PROCEDURES, max_tokens=4)


def test_procedure_success_needs_every_instruction_exact():
    """An episode succeeds only when every instruction of its procedure is exact, not when one is."""
    import jax

    from hexagons.synthetic import generate

    env, params = hexagons.make("Hexagons-Paint-v1", generate(4, seed=3, kinds=("tile",)), max_steps_in_episode=200)
    step, expert = jax.jit(env.step_env), jax.jit(env.expert_action)

    def play(wrong_instruction):
        _, state = env.reset_to_procedure(0, params)
        exact, success = [], []
        for t in range(200):
            action = expert(state, params)
            if int(state.instruction) == wrong_instruction and int(action) != STOP:
                action = STOP  # stop this instruction before painting it
            _, state, _, done, info = step(jax.random.key(t), state, action, params)
            if bool(info["instruction_finished"]):
                exact.append(float(info["exact_match"]))
                success.append(bool(info["procedure_exact"]))
            if bool(done):
                return exact, success

    exact, success = play(wrong_instruction=-1)
    assert len(exact) >= 2 and all(e == 1.0 for e in exact) and success[-1] and not any(success[:-1])
    exact, success = play(wrong_instruction=0)
    assert exact[0] == 0.0 and all(e == 1.0 for e in exact[1:]) and not any(success)
