"""The environment contract (DESIGN.md) checked on every world in ``tests/worlds.py``."""

from __future__ import annotations

import dataclasses

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import blocksworld
import craftext
import hexagons
import hexagons.synthetic
from tests.worlds import WORLDS

ROLLOUT = 12


class Compiled:
    """Jitted reset/step/rollout of one world, built once and shared by every test."""

    def __init__(self, case):
        self.case = case
        self.env, self.params = case.make()
        self.other_params = case.other_params(self.env)
        env = self.env
        self.step_traces = 0

        def counted_step(key, state, action, params):
            self.step_traces += 1
            return env.step(key, state, action, params)

        self.reset1 = jax.jit(env.reset)
        self.step1 = jax.jit(counted_step)
        self.resetN = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
        self.stepN = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))
        self.mask = jax.jit(jax.vmap(env.action_mask, in_axes=(0, None)))
        self.contains = jax.jit(jax.vmap(env.observation_space(self.params).contains))

        def rollout(key, params, num_envs):
            """Random actions for ROLLOUT steps: per-step (obs, reward, terminated, truncated)."""
            key_reset, key_act, key_step = jax.random.split(key, 3)
            obs, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(key_reset, num_envs), params)
            actions = jax.random.randint(key_act, (ROLLOUT, num_envs), 0, env.num_actions)
            keys = jax.random.split(key_step, (ROLLOUT, num_envs))

            def body(state, xs):
                k, a = xs
                obs, state, r, term, trunc, _ = jax.vmap(env.step, in_axes=(0, 0, 0, None))(k, state, a, params)
                return state, (obs, r, term, trunc)

            _, out = jax.lax.scan(body, state, (keys, actions))
            return out

        self.rollout = jax.jit(rollout, static_argnums=2)
        self.random_states = None  # _random_states


@pytest.fixture(scope="module", params=WORLDS, ids=lambda c: c.name)
def world(request) -> Compiled:
    return Compiled(request.param)


def _bits(leaf):
    return jax.random.key_data(leaf) if jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key) else leaf


def _equal(a, b) -> bool:
    return all(np.array_equal(_bits(x), _bits(y)) for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True))


def test_jit_vmap_step_over_many_envs(world):
    many = world.case.many  # every batched call of these tests has this size: one compilation per world
    keys = jax.random.split(jax.random.key(0), many)
    _, state = world.resetN(keys, world.params)
    actions = jax.random.randint(jax.random.key(1), (many,), 0, world.env.num_actions)
    obs, state, reward, term, trunc, info = world.stepN(keys, state, actions, world.params)
    for leaf in (reward, term, trunc):
        assert leaf.shape == (many,)
    assert all(leaf.shape[0] == many for leaf in jax.tree.leaves(obs))
    assert np.isfinite(np.asarray(reward)).all()


def test_same_key_same_trajectory_and_other_key_differs(world):
    a = world.rollout(jax.random.key(1), world.params, 8)
    b = world.rollout(jax.random.key(1), world.params, 8)
    c = world.rollout(jax.random.key(2), world.params, 8)
    assert _equal(a, b)
    assert not _equal(a[0], c[0])


def test_batched_equals_unbatched(world):
    n, many = 4, world.case.many  # the first n of a batch, one by one
    keys = jax.random.split(jax.random.key(3), many)
    obs_b, state_b = world.resetN(keys, world.params)
    for t in range(6):
        step_keys = jax.random.split(jax.random.key(100 + t), many)
        actions = jax.random.randint(jax.random.key(200 + t), (many,), 0, world.env.num_actions)
        out_b = world.stepN(step_keys, state_b, actions, world.params)
        state_b = out_b[1]
        if t == 0:
            singles = [world.reset1(keys[i], world.params) for i in range(n)]
            states = [s for _, s in singles]
        outs = [world.step1(step_keys[i], states[i], actions[i], world.params) for i in range(n)]
        states = [o[1] for o in outs]
        for i, single in enumerate(outs):
            assert _equal(jax.tree.map(lambda x, i=i: x[i], out_b), single)


def test_one_trace_per_shape_and_across_datasets(world):
    _, state = world.reset1(jax.random.key(4), world.params)
    before = world.step_traces
    for params in (world.params, world.other_params, world.params):
        for a in (0, 1, world.env.num_actions - 1):
            world.step1(jax.random.key(a), state, jnp.int32(a), params)
    assert world.step_traces - before <= 1


def test_chex_assert_max_traces(world):
    env = world.env
    chex.clear_trace_counter()  # the counter is keyed by code, shared by every parametrisation

    @jax.jit
    @chex.assert_max_traces(n=1)
    def step(key, state, action, params):
        return env.step(key, state, action, params)

    _, state = world.reset1(jax.random.key(5), world.params)
    for a in range(3):
        step(jax.random.key(a), state, jnp.int32(a), world.params)
    step(jax.random.key(9), state, jnp.int32(0), world.other_params)


def test_observations_inside_observation_space(world):
    obs, *_ = world.rollout(jax.random.key(6), world.params, 8)
    flat = jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), obs)
    assert bool(jnp.all(world.contains(flat)))
    assert world.env.observation_space(world.params).contains(jax.tree.map(lambda x: x[0, 0], obs))


def test_auto_reset_on_truncation(world):
    short = world.params.replace(max_steps_in_episode=2)
    _, state = world.reset1(jax.random.key(7), short)
    stop = world.env.num_actions - 1
    obs, state, _, _, trunc, info = world.step1(jax.random.key(8), state, jnp.int32(0), short)
    assert not bool(trunc) and int(state.time) == 1
    obs, state, _, term, trunc, info = world.step1(jax.random.key(9), state, jnp.int32(stop - 1), short)
    assert bool(term) or bool(trunc)
    assert int(state.time) == 0
    assert "final_observation" in info


def test_infeasible_actions_are_masked_noops(world):
    if not world.case.masked_actions_leave_state:
        pytest.skip(
            f"{world.case.name}: a masked action is a no-op for the player while the world moves on "
            "(test_analytic_mask_matches_the_counterfactual_definition checks it)"
        )
    many = world.case.many
    keys = jax.random.split(jax.random.key(10), many)
    obs, state = world.resetN(keys, world.params)
    mask = np.asarray(world.mask(state, world.params))
    assert mask.shape == (many, world.env.num_actions) and mask.any(axis=1).all()
    infeasible = np.argmin(mask, axis=1)  # first masked action per world
    assert not mask[np.arange(many), infeasible].any(), "every world needs an infeasible action for this test"
    obs2, state2, reward, term, trunc, _ = world.stepN(keys, state, jnp.asarray(infeasible), world.params)
    assert _equal(state2.replace(time=state.time), state)
    assert _equal(obs2, obs)
    assert not np.asarray(reward).any() and not np.asarray(term).any()


def test_vmap_over_params_compiles_once(world):
    traces = []

    def step(key, state, action, params):
        traces.append(1)
        return world.env.step(key, state, action, params)

    batched = jax.jit(jax.vmap(step, in_axes=(0, 0, 0, 0)))
    params2 = jax.tree.map(lambda a, b: jnp.stack([a, b]), world.params, world.other_params)
    params2 = params2.replace(max_steps_in_episode=jnp.array([5, 50]))
    _, state = world.resetN(jax.random.split(jax.random.key(11), world.case.many), world.params)
    state = jax.tree.map(lambda x: x[:2], state)
    keys = jax.random.split(jax.random.key(12), 2)
    for a in range(3):
        out = batched(keys, state, jnp.full(2, a, jnp.int32), params2)
    params3 = params2.replace(max_steps_in_episode=jnp.array([7, 70]))
    batched(keys, out[1], jnp.zeros(2, jnp.int32), params3)
    assert len(traces) == 1


OUT_OF_RANGE = (-1, -693, "num_actions", 2**31 - 1)


def test_out_of_range_actions_are_noops(world):
    n, many = world.env.num_actions, world.case.many
    actions = [n if a == "num_actions" else a for a in OUT_OF_RANGE] * (many // len(OUT_OF_RANGE))
    keys = jnp.stack([jax.random.key(13)] * many)
    _, state = world.resetN(keys, world.params)
    out = world.stepN(keys, state, jnp.asarray(actions, jnp.int32), world.params)
    if world.case.noop is None:
        assert _equal(out[1].replace(time=state.time), state), "an out-of-range action changed the world"
        assert not np.asarray(out[2]).any() and not np.asarray(out[3]).any()
    else:
        noop = world.stepN(keys, state, jnp.full(len(actions), world.case.noop, jnp.int32), world.params)
        assert _equal(out[:5], noop[:5]), "an out-of-range action is not played as NOOP"


def test_finished_episode_is_absorbing(world):
    step_env = jax.jit(world.env.step_env)
    _, state = world.reset1(jax.random.key(14), world.params)
    finished = state.replace(done=jnp.bool_(True))
    for a in (0, world.env.num_actions - 1):
        obs, after, reward, terminated, info = step_env(jax.random.key(15 + a), finished, jnp.int32(a), world.params)
        assert _equal(after, finished) and float(reward) == 0.0 and bool(terminated)


def test_params_of_other_shapes_are_rejected_naming_the_field(world):
    arrays = [
        f.name
        for f in dataclasses.fields(world.params)
        if isinstance(getattr(world.params, f.name), jax.Array) and getattr(world.params, f.name).ndim >= 1
    ]
    assert arrays
    for name in arrays:
        value = getattr(world.params, name)
        bad = world.params.replace(**{name: jnp.pad(value, [(0, 0)] * (value.ndim - 1) + [(0, 1)])})
        with pytest.raises(ValueError, match=r"EnvParams\.\w+ has shape"):
            jax.jit(world.env.reset)(jax.random.key(0), bad)


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: hexagons.make(None), "unknown"),
        (lambda: blocksworld.make(None), "unknown"),
        (lambda: craftext.make(None), "unknown"),
        (lambda: hexagons.make("Hexagons-Paint-v1", max_paints_per_instruction=0), "max_paints_per_instruction"),
        (lambda: hexagons.make("Hexagons-Paint-v1", max_steps_in_episode=0), "max_steps_in_episode"),
        (lambda: hexagons.make("Hexagons-Paint-v1", max_tokens=0), "max_tokens"),
        (lambda: hexagons.make("Hexagons-Paint-v1", max_paints_per_instruction=2.5), "max_paints_per_instruction"),
        (lambda: hexagons.make("Hexagons-Paint-v1")[0].make_params(hexagons.synthetic.generate(2), paints=3), "unknown setting"),
        (lambda: blocksworld.make("BlocksWorld-BAP-v1", max_tokens=0), "max_tokens"),
        (lambda: blocksworld.make("BlocksWorld-BAP-v1", max_steps_in_episode=0), "max_steps_in_episode"),
        (lambda: craftext.make("CrafText-Classic-Symbolic-v1", max_tokens=0), "max_tokens"),
        (lambda: craftext.make("CrafText-Classic-Symbolic-v1", max_steps_in_episode=0), "max_steps_in_episode"),
        (lambda: craftext.make("CrafText-Classic-Symbolic-v1", craftax_reward_scale=float("nan")), "craftax_reward_scale"),
    ],
)
def test_bad_construction_arguments_raise_naming_them(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_blocks_params_from_an_env_with_more_tokens_are_rejected():
    from blocksworld.synthetic import generate_items

    items = generate_items(4, seed=0)
    env, _ = blocksworld.make("BlocksWorld-BAP-v1", items, max_tokens=32)
    _, params128 = blocksworld.make("BlocksWorld-BAP-v1", items, max_tokens=128)
    with pytest.raises(ValueError, match=r"EnvParams\.dialogue"):
        env.reset(jax.random.key(0), params128)


def _random_states(world):
    """(states, keys): states after 12 random feasible actions each (no reset), 32 of them (4 for a
    world of more than 2,000 actions); made once per world and shared by the tests."""
    if world.random_states is None:
        world.random_states = _play_randomly(world, 4 if world.env.num_actions > 2000 else 32, 12)
    return world.random_states


def _play_randomly(world, num_envs: int, steps: int, seed: int = 20):
    env = world.env

    @jax.jit
    def run(key):
        k_reset, k_act = jax.random.split(key)
        _, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(k_reset, num_envs), world.params)

        def body(state, k):
            mask = jax.vmap(env.action_mask, in_axes=(0, None))(state, world.params)
            action = jax.random.categorical(k, jnp.where(mask, 0.0, -jnp.inf), axis=-1)
            return jax.vmap(env.step_env, in_axes=(0, 0, 0, None))(jax.random.split(k, num_envs), state, action, world.params)[1], None

        return jax.lax.scan(body, state, jax.random.split(k_act, steps))[0]

    return run(jax.random.key(seed)), jax.random.split(jax.random.key(seed + 1), num_envs)


def _first_per_package(cases) -> list:
    firsts: dict = {}
    for case in cases:
        firsts.setdefault(case.name.split("-")[0], case)
    return list(firsts.values())


@pytest.fixture(scope="module", params=_first_per_package(WORLDS), ids=lambda c: c.name)
def one_world(request) -> Compiled:
    """One case per world package: its graph and masks do not depend on the case's settings."""
    return Compiled(request.param)


def test_kg_is_canonical_vmappable_and_verbalised(one_world):
    world = one_world
    env = world.env
    states, _ = _random_states(world)
    graphs = jax.jit(jax.vmap(env.kg, in_axes=(0, None)))(states, world.params)
    one = jax.jit(env.kg)(jax.tree.map(lambda x: x[-1], states), world.params)
    assert _equal(one, jax.tree.map(lambda x: x[-1], graphs))
    schema = env.kg_schema
    entities, relations = len(schema["entities"]), len(schema["relations"])
    assert all(schema["entities"]) and len(set(schema["entities"])) == entities
    g = jax.tree.map(np.asarray, graphs)
    for i in range(len(g["valid"])):
        valid = g["valid"][i]
        assert not g["overflow"][i] and valid.any() and (valid == (np.arange(valid.size) < valid.sum())).all()
        key = (g["subject"][i] * relations + g["relation"][i]) * entities + g["object"][i]
        assert (np.diff(key[valid]) > 0).all(), "valid facts in strictly increasing (subject, relation, object) order"
        assert not (g["subject"][i][~valid].any() or g["relation"][i][~valid].any() or g["object"][i][~valid].any())
        assert (g["object"][i][valid] < entities).all() and (g["relation"][i][valid] < relations).all()
    host = jax.tree.map(lambda x: x[0], g)
    for style in ("summary", "grid", "triples"):
        assert env.verbalise(host, style).strip()
    assert len(env.verbalise(host, "triples").splitlines()) == int(host["valid"].sum())
    with pytest.raises(ValueError, match="scope"):
        env.kg(jax.tree.map(lambda x: x[0], states), world.params, "everything")


def test_analytic_mask_matches_the_counterfactual_definition(one_world):
    """An action is valid when stepping it (same key) changes the agent's part of the state
    differently from NOOP (CrafText) or changes the state at all (grid worlds, whose infeasible
    actions leave it as it is). Checked on every action of random states."""
    world = one_world
    env = world.env
    states, keys = _random_states(world)
    mask = np.asarray(jax.jit(jax.vmap(env.action_mask, in_axes=(0, None)))(states, world.params))
    if world.case.noop is not None:

        def every(key, state):  # the definition itself, stepping every action
            def step(k, w, a):
                return env.craftax.step_env(k, w, a, world.params.craftax)[1]

            return craftext.kg.counterfactual_valid(step, key, state.world, jnp.arange(env.num_actions))

        exact = np.asarray(jax.jit(jax.vmap(every))(keys, states))
        labels = np.asarray(jax.jit(jax.vmap(env.valid_actions, in_axes=(0, 0, None)))(keys, states, world.params))
        np.testing.assert_array_equal(labels, mask)  # the records' label is what the observation predicts, never a hidden draw
        extra = mask & ~exact
        assert not (exact & ~mask).any(), "the analytic mask hides an action that changes the world"
        facing_grass = (
            np.asarray(
                jax.vmap(lambda s: s.world.map[tuple(s.world.player_position + craftext.world.FACING[s.world.player_direction])])(states)
            )
            == 2
        )
        assert not extra[:, np.arange(env.num_actions) != 5].any() and facing_grass[extra[:, 5]].all(), (
            "only DO facing grass (a sapling with probability 0.1) may be allowed without changing anything"
        )
        return

    @jax.jit
    def changes(key, state):
        def one(action):
            after = env.step_env(key, state, action, world.params)[1]
            return jnp.stack(
                [jnp.any(a != b) for a, b in zip(jax.tree.leaves(after.replace(time=state.time)), jax.tree.leaves(state))]
            ).any()

        return jax.vmap(one)(jnp.arange(env.num_actions))

    exact = np.stack([np.asarray(changes(keys[i], jax.tree.map(lambda x: x[i], states))) for i in range(mask.shape[0])])
    np.testing.assert_array_equal(mask, exact)
    assert (jax.jit(jax.vmap(env.valid_actions, in_axes=(0, 0, None)))(keys, states, world.params) == mask).all()
