"""CrafText goals API, env semantics, full Craftax, text view."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import craftext
from craftext import dataset
from craftext.goals import ENCODING_SIZE, Goal, GoalError
from craftext.text import describe, facts
from tests.test_craftext_checkers import DO, NOOP, PLACE_STONE, STONE, TREE, field, put, right


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: Goal.line("enchantment_table_ice", 3), "cannot be placed"),
        (lambda: Goal.line("stone", 8), "size must be an int in 2..7"),
        (lambda: Goal.square("stone", 1), "size"),
        (lambda: Goal.cross("stone", 2, "star"), "cross variant"),
        (lambda: Goal.place_relative("stone", "fountain", "left", 1), "does not exist in Craftax-Classic"),
        (lambda: Goal.place_relative("stone", "water", "behind", 1), "side"),
        (lambda: Goal.place_relative("stone", "water", "left", 6), "distance"),
        (lambda: Goal.collect_then_place("ruby", 1, "stone"), "cannot be collected in Craftax-Classic"),
        (lambda: Goal.achievements([]), "1-3 distinct"),
        (lambda: Goal.achievements(["collect_wood"], forbidden="collect_wood"), "both required and forbidden"),
        (lambda: Goal.achievements(["enter_dungeon"]), "does not exist in Craftax-Classic"),
        (lambda: Goal.craft_order("collect_wood", "stone"), "make_"),
    ],
)
def test_invalid_goals_raise_at_construction(build, message):
    with pytest.raises(GoalError, match=message):
        build()


@pytest.mark.parametrize(
    "build, field",
    [
        (lambda: Goal.place_relative("stone", "water", ["left"], 1), "side"),
        (lambda: Goal.line(["stone"], 3), "block"),
        (lambda: Goal.achievements(None), "required"),
        (lambda: Goal.achievements("collect_wood"), "required"),
        (lambda: Goal.line("stone", 3, agent_built="no"), "agent_built"),
        (lambda: Goal.line("stone", 3.0), "size"),
        (lambda: Goal.line("stone", True), "size"),
        (lambda: Goal.achievements(["collect_wood"], forbidden=["place_stone"]), "forbidden"),
        (lambda: Goal("LINE", {"block": "stone", "size": 3}), "scenario"),
        (lambda: Goal("BUILD_LINE", {"block": "stone"}), "size"),
        (lambda: Goal("BUILD_LINE", {"block": "stone", "size": 3, "colour": "red"}), "colour"),
        (lambda: Goal("no_such_scenario", {}), "scenario"),
        (lambda: Goal.line("stone", 3, classic="yes"), "classic"),
    ],
)
def test_goal_arguments_of_the_wrong_type_raise_goal_error_naming_the_field(build, field):
    with pytest.raises(GoalError, match=field):
        build()


def test_goal_built_directly_encodes_like_the_constructors():
    direct = Goal(Goal.line("stone", 3).scenario, {"block": "stone", "size": 3, "variant": "straight", "agent_built": True})
    assert direct == Goal.line("stone", 3) and np.array_equal(direct.encode(), Goal.line("stone", 3).encode())
    assert direct.encode().any()


@pytest.mark.parametrize(
    "slots",
    [np.zeros(ENCODING_SIZE, int), np.full(ENCODING_SIZE, 99), np.full(ENCODING_SIZE, -1), np.zeros(3, int), np.arange(ENCODING_SIZE)],
)
def test_decoding_garbage_raises_goal_error(slots):
    with pytest.raises(GoalError):
        Goal.decode(slots)


def test_full_craftax_names_and_round_trip():
    goals = [
        Goal.achievements(["enter_dungeon", "defeat_necromancer"], ordered=True, classic=False),
        Goal.place_relative("furnace", "fountain", "north", 2, classic=False),
        Goal.collect_then_place("ruby", 2, "crafting_table", 1, classic=False),
        Goal.explore("chest", classic=False),
    ]
    for g in goals + [
        Goal.cross("plant", 3, "either"),
        Goal.time_place("furnace", True),
        Goal.collect_and_square("sapling", 2, "stone", 3),
    ]:
        encoded = g.encode()
        assert encoded.shape == (ENCODING_SIZE,) and encoded.dtype == np.int32
        assert Goal.decode(encoded, g.classic) == g
    assert goals[0].category == "Achievement" and Goal.line("stone", 2).category == "Building"


@functools.cache
def _env():
    pairs = [(Goal.achievements(["collect_wood"]), ["get wood", "chop wood"]), (Goal.line("stone", 3), ["three stones in a row"])]
    return craftext.make("CrafText-Classic-Symbolic-v1", pairs, max_tokens=8, max_steps_in_episode=4)


def test_make_registry_and_unknown_ids():
    assert set(craftext.REGISTERED_IDS) == {
        "CrafText-Classic-Symbolic-v1",
        "CrafText-Classic-Pixels-v1",
        "CrafText-Symbolic-v1",
        "CrafText-Pixels-v1",
    }
    with pytest.raises(ValueError, match="Did you mean CrafText-Classic-Symbolic-v1"):
        craftext.make("CrafText-Clasic-Symbolic-v1")
    env, params = craftext.make("CrafText-Classic-Symbolic-v1")  # shipped medium training set
    assert params.goals.shape[1] == ENCODING_SIZE and int(params.num_goals) == params.goals.shape[0] > 50
    with pytest.raises(ValueError, match="full Craftax"):
        env.make_params([(Goal.line("stone", 3, classic=False), ["x"])])


@pytest.mark.parametrize(
    "env_id",
    ["CrafText-Classic-Pixels-v1", pytest.param("CrafText-Pixels-v1", marks=pytest.mark.slow)],  # full Craftax draws its textures
)  # on first use: about 75 s on a fresh machine, so its view is checked in the slow tier
def test_pixel_views_are_uint8_images(env_id):
    """A pixel view's observation is the image as uint8 (a quarter of float32's bytes in a
    trajectory); its space says so; the agents read it as the [0, 1] image (traced, not compiled)."""
    from baselines.worlds import make_task

    env, params = craftext.make(env_id)
    obs, _ = jax.eval_shape(env.reset, jax.random.key(0), params)
    space = env.observation_space(params).spaces["world"]
    assert obs.world.dtype == jnp.uint8 and space.dtype == jnp.uint8 and obs.world.shape == space.shape
    assert (space.low, space.high) == (0, 255)
    task = make_task(env_id, dataset.load("easy", "train", classic="Classic" in env_id).pairs()[:2])
    seen = jax.eval_shape(task.observe, obs)
    assert seen.world.dtype == jnp.float32 and seen.world.shape == obs.world.shape
    assert float(task.observe(obs.replace(world=jnp.full(obs.world.shape, 255, jnp.uint8))).world.max()) == 1.0


def test_goal_draw_is_uniform_over_goals_then_phrasings():
    env, params = _env()
    reset = jax.jit(jax.vmap(env.reset_env, in_axes=(0, None)))
    obs, state = reset(jax.random.split(jax.random.key(0), 256), params)
    goal_share = np.bincount(np.asarray(state.goal_index), minlength=2) / 256
    assert abs(goal_share[0] - 0.5) < 0.1
    phrases = np.asarray(state.instruction)[np.asarray(state.goal_index) == 0]
    assert set(phrases.tolist()) == {0, 1}
    np.testing.assert_array_equal(np.asarray(obs.instruction), np.asarray(params.tokens)[np.asarray(state.instruction)])


def test_success_reward_termination_and_set_goal():
    # the checker tests' field has its own params; run the success path there, through env.step_env
    s = put(field("line 3"), [right(2), right(3)], STONE)
    from tests.test_craftext_checkers import _world

    env, params, step, _, set_goal = _world()
    obs, s2, reward, done, info = step(jax.random.key(0), s, jnp.int32(PLACE_STONE), params)
    assert bool(info["success"]) and bool(done) and float(reward) >= 1.0
    # set_goal mid-episode restarts the memory: collecting wood again is needed after the switch
    s = put(field("wood"), [right(1)], TREE, agent=False)
    _, s, _, done, info = step(jax.random.key(1), s, jnp.int32(DO), params)
    assert bool(info["success"])
    s = set_goal(s, 0, params)
    fresh = np.asarray(craftext.checkers.MEMORY_INIT).copy()
    fresh[craftext.checkers.WAS_OUT_OF_VIEW] = 1  # no block of the goal's explore slot in view
    assert np.array_equal(np.asarray(s.memory), fresh)
    _, s, _, done, info = step(jax.random.key(2), s, jnp.int32(NOOP), params)
    assert not bool(info["success"])


def test_truncation_and_auto_reset():
    env, params = _env()
    _, state = env.reset(jax.random.key(3), params)
    for t in range(4):
        obs, state, reward, term, trunc, info = env.step(jax.random.key(10 + t), state, NOOP, params)
    assert bool(trunc) and int(state.time) == 0  # auto-reset after the limit


@pytest.mark.slow
def test_full_craftax_structures_read_the_current_floor():
    goal = Goal.line("stone", 2, classic=False)
    from craftax.craftax_env import make_craftax_env_from_params

    world = make_craftax_env_from_params(classic=False, symbolic=True, auto_reset=False)
    p = world.default_params
    _, state = world.reset_env(jax.random.key(0), p)
    level = 1
    m = state.map.at[level].set(2)  # grass everywhere on floor 1
    inv = state.inventory.replace(stone=5)
    state = state.replace(
        map=m, player_level=jnp.int32(level), player_position=jnp.array([24, 24]), player_direction=jnp.int32(2), inventory=inv
    )
    progress = craftext.start(goal, state, classic=False)
    progress = progress.replace(placed=progress.placed.at[level, 24, 26].set(True))
    state = state.replace(map=state.map.at[level, 24, 26].set(STONE))
    step = jax.jit(world.step_env)
    _, after, *_ = step(jax.random.key(1), state, PLACE_STONE, p)
    assert int(after.map[level, 24, 25]) == STONE  # placed on floor 1
    success, progress = craftext.check(goal, progress, state, PLACE_STONE, after, classic=False)
    assert bool(success) and bool(progress.placed[level, 24, 25]) and not bool(progress.placed[0, 24, 25])


def test_full_craftax_explore_counts_only_lit_cells():
    """A block in a dark cell of the view is not seen (full Craftax hides cells with light <= 0.05)."""
    from craftax.craftax.constants import BlockType

    from craftext.checkers import WAS_OUT_OF_VIEW, initial_memory, observed_view
    from craftext.world import LIGHT_THRESHOLD, Frame, version

    diamond = BlockType.DIAMOND.value
    floor_map = jnp.full((48, 48), 2).at[20, 22].set(diamond)
    goal = jnp.asarray(Goal.explore("diamond", classic=False).encode())

    def frame(light_at_diamond):
        light = jnp.ones((48, 48)).at[20, 22].set(light_at_diamond)
        return Frame(
            floor_map,
            light,
            jnp.array([20, 20]),
            jnp.array([20, 21]),
            jnp.zeros(8, jnp.int32),
            jnp.zeros(67, bool),
            jnp.float32(1.0),
            jnp.int32(0),
        )

    full = version(False)
    assert diamond in np.asarray(observed_view(frame(1.0), full.view))
    assert diamond not in np.asarray(observed_view(frame(LIGHT_THRESHOLD / 2), full.view))
    assert int(initial_memory(goal, frame(1.0), full)[WAS_OUT_OF_VIEW]) == 0
    assert int(initial_memory(goal, frame(0.0), full)[WAS_OUT_OF_VIEW]) == 1


def test_text_view():
    s = field("wood").world
    s = s.replace(map=s.map.at[32, 34].set(TREE))
    text = describe(s)
    assert "row 32, column 32" in text and "facing east" in text
    assert "tree 2 steps east" in text and "Inventory: 5 stone, 5 wood, 3 sapling." in text
    f = facts(s)
    assert ("you", "has", "wood") in f and ("wood", "amount", "5") in f
    assert ("tree", "nearest direction", "east") in f and ("tree", "nearest distance", "2") in f
    assert set(f) <= set(facts(s, scope="true"))  # this map has nothing outside the view that is nearer
