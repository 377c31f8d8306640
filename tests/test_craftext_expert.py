"""The scripted CrafText expert (``craftext.expert``) completes goals of every scenario in real
Craftax worlds, through ``craftext.validate.play`` (one batched program)."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import pytest
from craftax.craftax_classic.constants import BlockType

import craftext
from craftext import Goal, quality, validate
from craftext.goalfile import load_goals
from craftext.quality import foreign_objects

GOALS = [
    ("ACHIEVEMENTS", {"required": ["collect_stone"], "forbidden": None, "ordered": False}),
    ("ACHIEVEMENTS", {"required": ["collect_wood", "place_furnace"], "forbidden": "collect_drink", "ordered": True}),
    ("BUILD_LINE", {"block": "stone", "size": 3, "variant": "straight", "agent_built": True}),
    ("BUILD_SQUARE", {"block": "crafting_table", "size": 2, "agent_built": True}),
    ("BUILD_CROSS", {"block": "stone", "arm": 1, "variant": "plus", "agent_built": True}),
    ("PLACE_RELATIVE", {"obj": "crafting_table", "target": "tree", "side": "up", "distance": 1}),
    ("COLLECT_THEN_PLACE", {"item": "wood", "count": 3, "obj": "furnace", "place_count": 2}),
    ("PLACE_THEN_COLLECT", {"obj": "plant", "place_count": 1, "item": "coal", "count": 1}),
    ("CRAFT_ORDER", {"craft": "make_wood_pickaxe", "item": "stone", "before": True}),
    ("COLLECT_AND_SQUARE", {"item": "coal", "count": 1, "block": "stone", "size": 2, "agent_built": True}),
    ("TIME_PLACE", {"obj": "stone", "night": False}),
    ("EXPLORE", {"block": "water"}),
    ("ACHIEVEMENTS", {"required": ["eat_plant"], "forbidden": None, "ordered": False}),  # not covered: the expert does not eat
]


@pytest.mark.slow
def test_the_expert_completes_every_scenario_it_covers(tmp_path):
    path = tmp_path / "goals.jsonl"
    path.write_text("".join(json.dumps({"scenario": s, "args": a, "phrasings": [f"goal {i}"]}) + "\n" for i, (s, a) in enumerate(GOALS)))
    dataset = load_goals(path, classic=True)
    fired, completed = validate.play(dataset, classic=True, worlds=2, expert_steps=200)
    assert not fired.any()
    assert completed[:-1].any(1).all(), [e.goal.key() for e, c in zip(dataset.entries[:-1], completed) if not c.any()]  # in some world
    assert not completed[-1].any()  # uncovered goals are not played (NOOP) and count as not completed
    assert fired.shape == completed.shape == (13, 2)
    table = validate.report(dataset, fired, completed)
    assert f"| all | 13 | 0 | 12 | 12 | 100% | {completed.sum() / 24:.0%} | 13 | 0 |" in table
    by_level = validate.tally(dataset, fired, completed, "level")  # a goal file's goals are levelled by the generator's rule
    assert sum(r["goals"] for name, r in by_level.items() if name != "all") == by_level["all"]["goals"] == 13
    assert by_level["all"]["episodes_played"] == 24 and by_level["all"]["episodes_completed"] == completed.sum()


def test_phrasings_naming_objects_their_goal_does_not_involve_are_flagged(tmp_path):
    goal = Goal.place_relative("stone", "water", "left", 1)
    assert foreign_objects(goal, "Put a rock one tile left of the tree.") == ["tree"]
    assert foreign_objects(goal, "put a rock one tile left of the pond") == []
    assert foreign_objects(Goal.explore("iron"), "track down some iron ore") == []  # "track" of "track down" is grammar, not a path
    assert foreign_objects(Goal.achievements(["make_iron_pickaxe"]), "forge an iron pick by the furnace, with coal and timber") == []
    assert foreign_objects(Goal.line("stone", 3), "build a line of three furnaces near the lava") == ["furnace", "lava"]


def test_orders_the_recipes_contradict_are_infeasible():
    assert "needs wood collected first" in quality.infeasible(Goal.craft_order("make_wood_pickaxe", "wood", before=True))
    assert "needs coal collected first" in quality.infeasible(Goal.craft_order("make_iron_sword", "coal", before=True))
    assert "mining stone needs the pickaxe" in quality.infeasible(Goal.craft_order("make_wood_pickaxe", "stone", before=False))
    for feasible in (
        Goal.craft_order("make_wood_pickaxe", "stone", before=True),
        Goal.craft_order("make_iron_pickaxe", "diamond", before=True),
        Goal.craft_order("make_stone_sword", "stone", before=False),
        Goal.line("stone", 3),
    ):
        assert quality.infeasible(feasible) is None, feasible.key()


@pytest.mark.slow
def test_a_wandering_expert_never_steps_into_lava(tmp_path):
    """Craftax lets a player walk into lava (and die): with lava on three sides and nothing in
    reach, every wander heading (it changes every 8 steps) turns to the one open side."""
    path = tmp_path / "goals.jsonl"
    path.write_text(json.dumps({"scenario": "EXPLORE", "args": {"block": "diamond"}, "phrasings": ["find a diamond"]}) + "\n")
    env, params = craftext.make("CrafText-Classic-Symbolic-v1", load_goals(path, classic=True).pairs())
    _, state = env.reset_env(jax.random.key(0), params)
    state = env.set_goal(state, params.phrase_start[0], params)
    r, c = (int(x) for x in state.world.player_position)
    ground = state.world.map.at[r - 2 : r + 3, c - 2 : c + 3].set(BlockType.LAVA.value)
    ground = ground.at[r, c].set(BlockType.GRASS.value).at[r, c + 1 : c + 3].set(BlockType.GRASS.value)  # open: right
    no_zombies = state.world.zombies.replace(mask=jnp.zeros_like(state.world.zombies.mask))
    state = state.replace(world=state.world.replace(map=ground, zombies=no_zombies))
    actions = jax.jit(jax.vmap(lambda t: env.expert_action(state.replace(world=state.world.replace(timestep=t)), params)))(jnp.arange(64))
    assert set(actions.tolist()) == {2}, actions  # 2: right


def test_a_sighted_expert_walks_to_a_tree_only_once_it_is_in_view(tmp_path):
    """The map-reading expert heads for a tree 6 columns away; the one limited to the agent's view
    (9 columns: 4 either side) keeps walking the way it faces until the tree comes into view."""
    path = tmp_path / "goals.jsonl"
    wood = {"required": ["collect_wood"], "forbidden": None, "ordered": False}
    path.write_text(json.dumps({"scenario": "ACHIEVEMENTS", "args": wood, "phrasings": ["get wood"]}) + "\n")
    env, params = craftext.make("CrafText-Classic-Symbolic-v1", load_goals(path, classic=True).pairs())
    _, state = env.reset_env(jax.random.key(0), params)
    state = env.set_goal(state, params.phrase_start[0], params)
    r, c = (int(x) for x in state.world.player_position)
    no_zombies = state.world.zombies.replace(mask=jnp.zeros_like(state.world.zombies.mask))
    no_cows = state.world.cows.replace(mask=jnp.zeros_like(state.world.cows.mask))
    grass = jnp.full_like(state.world.map, BlockType.GRASS.value)
    state = state.replace(world=state.world.replace(zombies=no_zombies, cows=no_cows, player_direction=jnp.int32(1)))  # facing left

    def actions(tree_column: int) -> tuple[int, int]:
        world = state.world.replace(map=grass.at[r, c + tree_column].set(BlockType.TREE.value))
        placed = state.replace(world=world)
        return int(env.expert_action(placed, params)), int(env.expert_action(placed, params, sight=True))

    assert actions(6) == (2, 1)  # the map expert moves right, towards the tree; the sighted one on, left
    assert actions(4) == (2, 2)  # in view: both move towards it


@pytest.mark.slow
def test_a_tired_expert_walls_itself_in_to_sleep_and_mines_its_way_out(tmp_path):
    """At energy 2 beside a stone mass the expert digs a two-cell pocket, steps back, closes the way
    in with a stone and sleeps where no zombie can reach it; awake (energy 9) it mines the stone."""
    path = tmp_path / "goals.jsonl"
    path.write_text(json.dumps({"scenario": "EXPLORE", "args": {"block": "diamond"}, "phrasings": ["find a diamond"]}) + "\n")
    env, params = craftext.make("CrafText-Classic-Symbolic-v1", load_goals(path, classic=True).pairs())
    _, state = env.reset_env(jax.random.key(0), params)
    state = env.set_goal(state, params.phrase_start[0], params)
    world = state.world
    r, c = (int(x) for x in world.player_position)
    ground = jnp.full_like(world.map, BlockType.GRASS.value).at[r - 3 : r + 4, c + 2 : c + 7].set(BlockType.STONE.value)
    world = world.replace(
        map=ground,
        zombies=world.zombies.replace(mask=jnp.zeros_like(world.zombies.mask)),
        cows=world.cows.replace(mask=jnp.zeros_like(world.cows.mask)),
        inventory=world.inventory.replace(wood_pickaxe=1, stone=1),
        player_energy=jnp.int32(2),
    )
    state = state.replace(world=world)

    def step(state, t):
        action = env.expert_action(state, params)
        _, state, _, _, _ = env.step_env(jax.random.fold_in(jax.random.key(1), t), state, action, params)
        w = state.world
        return state, (w.is_sleeping, w.player_position, w.player_energy, w.map[r, c + 1])

    _, (sleeping, position, energy, entrance) = jax.jit(lambda s: jax.lax.scan(step, s, jnp.arange(120)))(state)
    asleep = int(jnp.argmax(sleeping))
    assert sleeping.any() and asleep < 12, sleeping  # B (c + 1) -> dig A (c + 2) -> dig S (c + 3) -> in, back onto A, stone on B
    assert position[asleep].tolist() == [r, c + 2] and int(entrance[asleep]) == BlockType.STONE.value
    woke = asleep + int(jnp.argmin(sleeping[asleep:]))
    assert woke > asleep and int(energy[woke]) == 9, energy
    assert int(entrance[-1]) == BlockType.PATH.value  # mined on the way out
