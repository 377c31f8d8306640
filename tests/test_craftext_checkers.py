"""Every scenario checker on hand-built Craftax-Classic states, driven by real Craftax steps.

The world is a grass field with the player at (32, 32) and no mobs; blocks are put on the map by
hand (flagged as agent-placed or not), then the agent's own PLACE / DO / MAKE actions trigger the
checkers. One compiled step serves every case (goals are switched with ``set_goal``).
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
from craftax.craftax_classic.constants import BlockType

from craftext.env import CrafText
from craftext.goals import Goal
from craftext.tokenizer import Vocabulary

GRASS, STONE, TABLE, WATER, TREE, DIAMOND, PLANT, RIPE_PLANT = (
    BlockType[n].value for n in ("GRASS", "STONE", "CRAFTING_TABLE", "WATER", "TREE", "DIAMOND", "PLANT", "RIPE_PLANT")
)
NOOP, LEFT, RIGHT, UP, DOWN, DO = 0, 1, 2, 3, 4, 5
PLACE_STONE, PLACE_TABLE, PLACE_PLANT, MAKE_WOOD_PICKAXE = 7, 8, 10, 11
FACE_LEFT, FACE_RIGHT, FACE_UP, FACE_DOWN = 1, 2, 3, 4
P = (32, 32)

GOALS = {
    "wood": Goal.achievements(["collect_wood"]),
    "stone not wood": Goal.achievements(["place_stone"], forbidden="collect_wood"),
    "wood then stone": Goal.achievements(["collect_wood", "place_stone"], ordered=True),
    "line 3": Goal.line("stone", 3),
    "line 3 natural": Goal.line("stone", 3, agent_built=False),
    "line 3 diagonal": Goal.line("stone", 3, "diagonal"),
    "line 7": Goal.line("stone", 7),
    "square 2": Goal.square("stone", 2),
    "square 3": Goal.square("stone", 3),
    "plus 1": Goal.cross("stone", 1, "plus"),
    "x 1": Goal.cross("stone", 1, "x"),
    "plus 2": Goal.cross("stone", 2, "plus"),
    "stone 2 left of water": Goal.place_relative("stone", "water", "left", 2),
    "stone 2 right of water": Goal.place_relative("stone", "water", "right", 2),
    "stone 1 west of water": Goal.place_relative("stone", "water", "west", 1),
    "stone left of table": Goal.place_relative("stone", "crafting_table", "left", 1),
    "2 wood then table": Goal.collect_then_place("wood", 2, "crafting_table"),
    "table then 2 wood": Goal.place_then_collect("crafting_table", 1, "wood", 2),
    "pickaxe before stone": Goal.craft_order("make_wood_pickaxe", "stone", before=True),
    "pickaxe after stone": Goal.craft_order("make_wood_pickaxe", "stone", before=False),
    "line and place": Goal.line_and_place("stone", 2, "straight", "stone", "water", "down", 1),
    "wood then line": Goal.collect_then_line("wood", 1, "stone", 2),
    "wood and square": Goal.collect_and_square("wood", 1, "stone", 2),
    "stone at night": Goal.time_place("stone", night=True),
    "stone by day": Goal.time_place("stone", night=False),
    "find diamond": Goal.explore("diamond"),
    "find ripe plant": Goal.explore("ripe_plant"),
    "find plant": Goal.explore("plant"),
    "plant by day": Goal.time_place("plant", night=False),
    "line 3 plant": Goal.line("plant", 3),
}
NAMES = list(GOALS)


@functools.cache
def _world():
    vocabulary = Vocabulary.from_texts(NAMES)
    env = CrafText(vocabulary, max_tokens=8)
    params = env.make_params([(g, [name]) for name, g in GOALS.items()])
    return env, params, jax.jit(env.step_env), jax.jit(env.reset_env), jax.jit(env.set_goal)


def field(goal: str, facing: int = FACE_RIGHT, timestep: int = 0):
    """A grass world, no mobs, player at (32, 32), rich inventory, the goal set."""
    env, params, _, reset, set_goal = _world()
    _, state = reset(jax.random.key(0), params)
    w = state.world
    no_mobs = lambda mobs: mobs.replace(mask=jnp.zeros_like(mobs.mask))  # noqa: E731
    w = w.replace(
        map=jnp.full_like(w.map, GRASS),
        mob_map=jnp.zeros_like(w.mob_map),
        zombies=no_mobs(w.zombies),
        cows=no_mobs(w.cows),
        skeletons=no_mobs(w.skeletons),
        arrows=no_mobs(w.arrows),
        player_position=jnp.array(P, jnp.int32),
        player_direction=jnp.int32(facing),
        inventory=w.inventory.replace(wood=5, stone=5, sapling=3),  # below the cap of 9
        timestep=jnp.int32(timestep),
    )
    return set_goal(state.replace(world=w), NAMES.index(goal), params)


def put(state, cells, block, agent=True):
    rows, cols = np.array(cells).T
    world = state.world.replace(map=state.world.map.at[rows, cols].set(block))
    return state.replace(world=world, placed=state.placed.at[rows, cols].set(agent))


def grow(state, cell, age):
    """Register the plant at ``cell`` as growing (slot 0) with ``age``; it ripens at 600."""
    w = state.world
    w = w.replace(
        growing_plants_positions=w.growing_plants_positions.at[0].set(jnp.array(cell, jnp.int32)),
        growing_plants_age=w.growing_plants_age.at[0].set(age),
        growing_plants_mask=w.growing_plants_mask.at[0].set(True),
    )
    return state.replace(world=w)


def act(state, *actions):
    """Run actions; True if the checker fired on any of them."""
    _, params, step, _, _ = _world()
    fired = False
    for i, action in enumerate(actions):
        _, state, _, _, info = step(jax.random.key(100 + i), state, jnp.int32(action), params)
        fired |= bool(info["success"])
    return state, fired


def right(n):
    return (P[0], P[1] + n)


# ------------------------------------------------------------------ achievements
def test_achievement_required_forbidden_and_ordered():
    s = put(field("wood"), [right(1)], TREE, agent=False)
    assert act(s, NOOP)[1] is False and act(s, DO)[1] is True

    s = put(field("stone not wood"), [right(1)], TREE, agent=False)
    s, fired = act(s, DO)  # collects wood: the forbidden achievement
    assert not fired and not act(s, PLACE_STONE)[1]
    assert act(field("stone not wood"), PLACE_STONE)[1]

    s = put(field("wood then stone"), [right(1)], TREE, agent=False)
    assert act(s, DO, PLACE_STONE)[1]  # wood (tree -> grass), then a stone on that cell
    s = put(field("wood then stone"), [(P[0] - 1, P[1])], TREE, agent=False)
    assert not act(s, PLACE_STONE, UP, DO)[1]  # wrong order


# ------------------------------------------------------------------ lines
def test_line_positive_and_near_misses():
    assert act(put(field("line 3"), [right(2), right(3)], STONE), PLACE_STONE)[1]
    assert not act(put(field("line 3"), [right(2)], STONE), PLACE_STONE)[1]  # one block short
    assert not act(put(field("line 3"), [right(2), right(3)], TABLE), PLACE_STONE)[1]  # wrong block
    assert not act(put(field("line 3"), [right(2), (P[0] + 1, P[1] + 3)], STONE), PLACE_STONE)[1]  # not in a row
    natural = put(field("line 3"), [right(2), right(3)], STONE, agent=False)
    assert not act(natural, PLACE_STONE)[1]  # present, but not built by the agent
    assert act(put(field("line 3 natural"), [right(2), right(3)], STONE, agent=False), PLACE_STONE)[1]


def test_line_diagonal_vertical_and_window_edge():
    diagonal = [(P[0] + 1, P[1] + 2), (P[0] + 2, P[1] + 3)]
    assert act(put(field("line 3 diagonal"), diagonal, STONE), PLACE_STONE)[1]
    assert not act(put(field("line 3"), diagonal, STONE), PLACE_STONE)[1]
    vertical = [(P[0] + 1, P[1] + 1), (P[0] + 2, P[1] + 1)]
    assert act(put(field("line 3"), vertical, STONE), PLACE_STONE)[1]
    far = [right(n) for n in range(2, 8)]  # the line reaches 6 cells beyond the placed one
    assert act(put(field("line 7"), far, STONE), PLACE_STONE)[1]
    assert not act(put(field("line 7"), far[:-1], STONE), PLACE_STONE)[1]


def test_nothing_fires_at_reset_even_with_structures_present():
    s = put(field("plus 1"), [(31, 40), (32, 39), (32, 40), (32, 41), (33, 40)], STONE, agent=True)
    assert not act(s, NOOP)[1]


# ------------------------------------------------------------------ squares and crosses
def test_squares():
    above = [(P[0] - 1, P[1] + 1), (P[0] - 1, P[1] + 2), right(2)]
    assert act(put(field("square 2"), above, STONE), PLACE_STONE)[1]
    assert not act(put(field("square 2"), above[:2], STONE), PLACE_STONE)[1]
    # 3 x 3 with the placed cell in the middle of its left edge
    cells = [(P[0] + dr, P[1] + 1 + dc) for dr in (-1, 0, 1) for dc in (0, 1, 2) if (dr, dc) != (0, 0)]
    assert act(put(field("square 3"), cells, STONE), PLACE_STONE)[1]
    assert not act(put(field("square 3"), cells[:-1], STONE), PLACE_STONE)[1]
    assert not act(put(field("square 2"), above, STONE, agent=False), PLACE_STONE)[1]


def test_crosses():
    plus = [(P[0] - 1, P[1] + 2), right(2), right(3), (P[0] + 1, P[1] + 2)]  # centre (32, 34), placed left arm
    assert act(put(field("plus 1"), plus, STONE), PLACE_STONE)[1]
    assert not act(put(field("plus 1"), plus[:-1], STONE), PLACE_STONE)[1]
    assert not act(put(field("x 1"), plus, STONE), PLACE_STONE)[1]
    x = [(P[0] + 1, P[1] + 2), (P[0], P[1] + 3), (P[0] + 2, P[1] + 1), (P[0] + 2, P[1] + 3)]  # centre (33, 34)
    assert act(put(field("x 1"), x, STONE), PLACE_STONE)[1]
    assert not act(put(field("plus 1"), x, STONE), PLACE_STONE)[1]
    arm2 = [(P[0] + dr, P[1] + 3 + dc) for dr, dc in ((0, 0), (0, 1), (0, 2), (-1, 0), (-2, 0), (1, 0), (2, 0), (0, -1))]
    assert act(put(field("plus 2"), [c for c in arm2 if c != right(1)], STONE), PLACE_STONE)[1]


# ------------------------------------------------------------------ relative placement
def test_place_relative_side_distance_and_target_placed_last():
    water = put(field("stone 2 left of water"), [right(3)], WATER, agent=False)
    assert act(water, PLACE_STONE)[1]  # stone at column 33 = water column 35 - 2
    wrong_side = put(field("stone 2 right of water"), [right(3)], WATER, agent=False)
    assert not act(wrong_side, PLACE_STONE)[1]
    wrong_distance = put(field("stone 1 west of water"), [right(3)], WATER, agent=False)
    assert not act(wrong_distance, PLACE_STONE)[1]
    assert act(put(field("stone 1 west of water"), [right(2)], WATER, agent=False), PLACE_STONE)[1]
    # target placed last: the agent's stone already stands left of where the table goes
    s = put(field("stone left of table", facing=FACE_UP), [(P[0] - 1, P[1] - 1)], STONE)
    assert act(s, PLACE_TABLE)[1]
    s = put(field("stone left of table", facing=FACE_UP), [(P[0] - 1, P[1] - 1)], STONE, agent=False)
    assert not act(s, PLACE_TABLE)[1]


# ------------------------------------------------------------------ conditional goals
def _two_trees(goal):
    return put(field(goal), [right(1)], TREE, agent=False)


def _collect_two_wood(state):
    state, fired = act(state, DO)
    state = put(state, [right(1)], TREE, agent=False)
    state, fired2 = act(state, DO)
    return state, fired or fired2


def test_collect_then_place_and_place_then_collect():
    s, fired = _collect_two_wood(_two_trees("2 wood then table"))
    assert not fired and act(s, PLACE_TABLE)[1]
    s, _ = act(field("2 wood then table"), PLACE_TABLE)  # placed before collecting: does not count
    s = put(s, [(P[0] + 1, P[1])], TREE, agent=False)
    s, fired = act(s, DOWN, DO)
    s = put(s, [(P[0] + 1, P[1])], TREE, agent=False)
    s, fired2 = act(s, DO)
    assert not (fired or fired2)

    s, fired = act(field("table then 2 wood"), PLACE_TABLE)
    assert not fired
    s = put(s, [(P[0] + 1, P[1])], TREE, agent=False)
    s, fired = act(s, DOWN, DO)
    assert not fired
    s = put(s, [(P[0] + 1, P[1])], TREE, agent=False)
    assert act(s, DO)[1]


def test_craft_before_or_after_collecting():
    def setup(goal):
        return put(field(goal), [(P[0] - 1, P[1])], TABLE, agent=False)

    s = put(setup("pickaxe before stone"), [right(1)], STONE, agent=False)
    s, fired = act(s, MAKE_WOOD_PICKAXE)
    assert not fired and act(s, DO)[1]  # mine the stone with the new pickaxe
    s = put(setup("pickaxe after stone"), [right(1)], STONE, agent=False)
    s, fired = act(s, MAKE_WOOD_PICKAXE)
    assert not fired and not act(s, DO)[1]


def test_combinations():
    s = put(field("line and place", facing=FACE_UP), [(P[0] - 2, P[1])], WATER, agent=False)
    s = put(s, [(P[0] - 1, P[1] + 1)], STONE)
    assert act(s, PLACE_STONE)[1]  # the stone below the water also completes the 2-line
    s, fired = act(put(field("wood then line"), [right(2)], STONE), PLACE_STONE)
    assert not fired  # a line before collecting does not count
    s = put(field("wood then line"), [right(1)], TREE, agent=False)
    s = put(s, [right(2)], STONE)
    assert act(s, DO, PLACE_STONE)[1]
    square = [(P[0] - 1, P[1] + 1), (P[0] - 1, P[1] + 2), right(2)]
    s, fired = act(put(field("wood and square"), square, STONE), PLACE_STONE)
    assert not fired
    s = put(s, [(P[0] + 1, P[1])], TREE, agent=False)
    assert act(s, DOWN, DO)[1]


# ------------------------------------------------------------------ time and exploring
def test_time_of_day_placement():
    assert act(field("stone at night", timestep=208), PLACE_STONE)[1]
    assert not act(field("stone at night", timestep=0), PLACE_STONE)[1]
    assert act(field("stone by day", timestep=0), PLACE_STONE)[1]


def test_explore_needs_the_block_to_come_into_view():
    s = field("find diamond")
    s, fired = act(s, NOOP)
    assert not fired
    assert act(put(s, [(P[0] + 2, P[1] + 3)], DIAMOND, agent=False), NOOP)[1]
    _, params, _, _, set_goal = _world()
    in_view_from_start = put(field("find diamond"), [(P[0] + 2, P[1] + 3)], DIAMOND, agent=False)
    in_view_from_start = set_goal(in_view_from_start, NAMES.index("find diamond"), params)
    assert not act(in_view_from_start, NOOP, NOOP)[1]


def test_explore_counts_a_block_seen_on_the_first_step_after_the_goal_is_set():
    # the goal was set on an empty field; the diamond appears before the first step
    assert act(put(field("find diamond"), [(P[0] + 2, P[1] + 3)], DIAMOND, agent=False), NOOP)[1]


def test_explore_ripe_plant_is_distinct_from_plant():
    ripe = [(P[0] + 2, P[1] + 3)]
    assert act(put(field("find ripe plant"), ripe, RIPE_PLANT, agent=False), NOOP)[1]
    assert not act(put(field("find ripe plant"), ripe, PLANT, agent=False), NOOP)[1]
    assert act(put(field("find plant"), ripe, RIPE_PLANT, agent=False), NOOP)[1]  # a ripe plant is a plant


def test_a_plant_ripening_during_a_failed_place_is_not_a_placement():
    s = grow(put(field("plant by day"), [right(1)], PLANT, agent=False), right(1), 599)
    s, fired = act(s, PLACE_PLANT)  # the plant is solid: placing fails, and it ripens this step
    assert int(s.world.map[right(1)]) == RIPE_PLANT
    assert not fired and not bool(s.placed[right(1)])
    assert act(field("plant by day"), PLACE_PLANT)[1]  # a real placement on grass


def test_agent_placed_flag_survives_ripening_and_eating():
    # a vertical line of planted saplings through the faced cell; the faced one ripens and is eaten
    above = (P[0] - 1, P[1] + 1)
    s = grow(put(field("line 3 plant"), [right(1), above], PLANT), right(1), 599)
    s, fired = act(s, NOOP)
    assert int(s.world.map[right(1)]) == RIPE_PLANT and bool(s.placed[right(1)]) and not fired
    s, fired = act(s, DO)  # eat it: ripe plant -> sapling
    assert int(s.world.map[right(1)]) == PLANT and bool(s.placed[right(1)]) and not fired
    s, fired = act(s, DOWN, LEFT, RIGHT)  # walk round to face the cell below the line
    assert tuple(np.asarray(s.world.player_position)) == (P[0] + 1, P[1]) and not fired
    s, fired = act(s, PLACE_PLANT)
    assert fired  # the third planted sapling completes the line


def test_mining_a_placed_block_clears_its_flag():
    s = put(field("wood"), [right(1)], STONE)
    s = s.replace(world=s.world.replace(inventory=s.world.inventory.replace(wood_pickaxe=1)))
    s, _ = act(s, DO)  # mine the agent's stone
    assert int(s.world.map[right(1)]) != STONE and not bool(s.placed[right(1)])


def test_goal_fields_and_memory_read_their_slots_by_name():
    from craftext.checkers import MEMORY_INIT, Memory
    from craftext.goals import GoalFields
    from craftext.world import version

    v = version(True)
    fields = GoalFields.of(Goal.line_and_place("stone", 4, "diagonal", "plant", "water", "south", 2).encode())
    assert (fields.structure_block, fields.structure_size, fields.structure_variant) == (v.blocks["stone"], 4, 1)
    assert (fields.place_object, fields.place_target, fields.place_side, fields.place_distance) == (
        v.blocks["plant"],
        v.blocks["water"],
        3,
        2,
    )
    assert list(fields.required) == [-1, -1, -1] and fields.explore_block == -1
    ordered = GoalFields.of(Goal.achievements(["collect_wood", "place_stone"], forbidden="collect_drink", ordered=True).encode())
    assert list(ordered.required) == [v.achievements["collect_wood"], v.achievements["place_stone"], -1]
    assert (ordered.forbidden, ordered.ordered) == (v.achievements["collect_drink"], 1)
    batch = np.stack([Goal.explore("water").encode(), Goal.time_place("stone", night=True).encode()])
    assert GoalFields.of(batch).explore_block.tolist() == [v.blocks["water"], -1] and GoalFields.of(batch).night.tolist() == [0, 1]

    memory = jnp.arange(10, dtype=jnp.int32)
    named = Memory.of(memory)
    assert (int(named.t_collected), int(named.collected), named.t_achievements.tolist(), int(named.was_out_of_view)) == (2, 4, [5, 6, 7], 9)
    assert named.encode().tolist() == list(range(10)) and Memory.of(jnp.asarray(MEMORY_INIT)).encode().dtype == jnp.int32
