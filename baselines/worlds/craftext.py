"""The CrafText family: Craftax worlds with instructions (``craftext``), as the suite uses them.

Splits are the dataset's (``train``, ``test_paraphrased``, ``test_new_objects``) of one level,
release and data version, or of a goal file of your own (``--goals-file``), filtered by ``--goals``. Evaluation
splits share one compilation: their goal tables are padded to one capacity.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import craftext
from baselines.worlds.base import (
    EFFICIENCY,
    EPISODE_LIMIT,
    HUMAN_LIKE,
    IRRELEVANT,
    PROGRESS,
    Benchmark,
    Evaluation,
    ExpertGap,
    Presets,
    Protocols,
    Questions,
    Reference,
    References,
    Setting,
    WorldFamily,
)

if TYPE_CHECKING:
    from baselines.worlds.task import PlacedCells, Task

SPLITS = ("train", "test_paraphrased", "test_new_objects")
EXPERT_SIGHTS = ("map", "view")
"""What the scripted expert reads (``craftext.expert``): the whole map or the agent's view."""
CATEGORIES = ("Conditional", "Building", "Localization", "Achievement", "Combo")
"""The paper's Table 2 columns, the order of the category groups in evaluation tables."""
GROUNDING_GOALS = (
    "required=collect_wood),required=collect_sapling),required=collect_drink),required=place_table),"
    "-ACHIEVEMENTS(forbidden=None,ordered=False,required=collect_wood)"
)
"""Goals that demand conflicting behaviour: collect a sapling / a drink, place a table, or collect
wood while never doing one of the others (17 goals of the full release's easy training split). The
plain "collect wood" goal is left out: wood is the first step of nearly every behaviour (random play
gets it half the time), so it cannot tell whether an agent read its instruction."""


def craftext_task(
    env_id: str = "CrafText-Classic-Symbolic-v1",
    pairs: Sequence | None = None,
    level: str = "medium",
    split: str = "train",
    expert: str = "map",
    **settings,
) -> Task:
    """CrafText on ``pairs`` of (Goal, phrasings) (default: the shipped ``level`` / ``split``);
    ``expert``: what the scripted expert reads (``EXPERT_SIGHTS``)."""
    import functools

    import jax.numpy as jnp
    import numpy as np

    from baselines.worlds.task import Observed, Task, all_feasible
    from craftext import dataset
    from craftext.expert import covers
    from craftext.generator import level as goal_level
    from craftext.placed import symbolic_map

    if pairs is None:
        pairs = dataset.load(level, split, classic=craftext.REGISTERED_IDS[env_id][0]).pairs()
    env, params = craftext.make(env_id, list(pairs), **settings)
    texts = tuple(t for _, phrasings in pairs for t in phrasings)
    text_goal = np.asarray([g for g, (_, phrasings) in enumerate(pairs) for _ in phrasings], np.int32)
    goals = tuple({"key": goal.key(), "category": goal.category, "level": goal_level(goal)} for goal, _ in pairs)

    def observe(obs) -> Observed:
        world = obs.world.astype(jnp.float32) / 255.0 if env.pixels else obs.world.astype(jnp.float32)  # pixels: uint8
        return Observed(world, obs.instruction_index, all_feasible(env.num_actions))

    def start(key, text, params):
        state = env.set_goal(env.reset_env(key, params)[1], text, params)
        return env.get_obs(state, params), state

    return Task(
        name=env_id,
        env=env,
        params=params,
        texts=texts,
        text_goal=text_goal,
        goals=goals,
        observe=observe,
        start=start,
        success=lambda info: info["success"],
        reset_ratio=16,
        expert=functools.partial(env.expert_action, sight=expert == "view") if all(covers(g) for g, _ in pairs) else None,
        relabel=lambda obs, text, params: obs.replace(
            instruction=params.tokens[text], instruction_index=text, goal_index=params.phrase_goal[text]
        ),
        goal_objects=tuple(g for g, _ in pairs),
        map_shape=symbolic_map(env),
        placed_cells=placed_cells(env),
    )


def placed_cells(env) -> PlacedCells | None:
    """``Task.placed_cells`` of a CrafText env: ``craftext.placed.marker`` (Classic's symbolic view;
    None for pixels and full Craftax)."""
    from baselines.worlds.task import PlacedCells
    from craftext.placed import marker

    found = marker(env)
    return None if found is None else PlacedCells(*found)


def goal_terms(spec: str) -> list[str]:
    """A goal filter split at the commas outside parentheses, so a whole goal key is one term:
    ``"required=collect_wood),-ACHIEVEMENTS(forbidden=None,ordered=False,required=collect_wood)"``
    -> ``["required=collect_wood)", "-ACHIEVEMENTS(forbidden=None,ordered=False,required=collect_wood)"]``."""
    terms, depth, current = [], 0, ""
    for char in spec:
        if char == "," and depth == 0:
            terms.append(current)
            current = ""
            continue
        depth = max(0, depth + (char == "(") - (char == ")"))
        current += char
    return [t.strip() for t in terms + [current] if t.strip()]


def split_pairs(spec: Mapping, split: str) -> tuple[list, dict]:
    """(Goal, phrasings) pairs of one split: of ``level`` / ``release`` (or of the goal file
    ``goals_file``, all levels) filtered by ``goals``. Raises ValueError."""
    from craftext import dataset

    classic = craftext.REGISTERED_IDS[spec["env"]][0]
    if spec["goals_file"]:
        from craftext.goalfile import split_pairs as file_pairs

        pairs = file_pairs(spec["goals_file"], classic, split)
    else:
        pairs = dataset.load(spec["level"], split, classic=classic, release=spec["release"], data_version=spec["data_version"]).pairs()
    if spec["goals"]:
        terms = goal_terms(spec["goals"])
        wanted, unwanted = [t for t in terms if not t.startswith("-")], [t[1:] for t in terms if t.startswith("-")]
        pairs = [(g, p) for g, p in pairs if any(w in g.key() for w in wanted) and not any(u in g.key() for u in unwanted)]
    if not pairs:
        raise ValueError(f"no {spec['level']} goals in the {split} split match goals={spec['goals']!r}")
    return pairs, {"expert": spec["expert"]}


def goal_file_splits(spec: Mapping) -> tuple[str, ...]:
    """The splits of the goal file ``goals_file`` (all of ``SPLITS`` without one), after
    validating all of it; ValueError naming file, line and field."""
    if not spec["goals_file"]:
        return SPLITS
    from craftext.goalfile import GoalFileError, load_goals

    try:
        present = {e.split for e in load_goals(spec["goals_file"], craftext.REGISTERED_IDS[spec["env"]][0]).entries}
    except GoalFileError as error:
        raise ValueError(f"--goals-file {error}") from None
    return tuple(s for s in SPLITS if s in present)


def shared_capacity(splits: list[list]) -> dict:
    """Task settings that pad every split's goal table to one capacity (one compilation)."""
    return {"capacity": (max(len(pairs) for pairs in splits), max(sum(len(t) for _, t in pairs) for pairs in splits))}


def expert_gap(pairs: list) -> str | None:
    """Why the scripted expert (``craftext.expert``) cannot demonstrate these goals, or None."""
    from craftext.expert import covers

    uncovered = [goal.key() for goal, _ in pairs if not covers(goal)]
    if not uncovered:
        return None
    return (
        f"the scripted expert (craftext.expert) does not play {uncovered[0]} (and {len(uncovered) - 1} more goals): "
        "it does not fight, eat or sleep; it plays every goal of --level medium"
    )


def _benchmark_make(env_id: str) -> tuple[Any, Any]:
    """CrafText with every goal of the full release's medium training split."""
    from craftext import dataset

    return craftext.make(env_id, dataset.load("medium", "train", classic=craftext.REGISTERED_IDS[env_id][0], release="full").pairs())


def _bare_craftax() -> tuple[Any, Any]:
    """The real Craftax Classic world (symbolic, no auto-reset) behind the gymnax interface."""
    from craftext.env import BareCraftax

    env = BareCraftax(classic=True)
    return env, env.default_params


CRAFTAX_LIKE = Benchmark(
    reset_ratio=16,
    max_cpu_envs=1024,
    step_budget=2**15,
    max_steps=64,
    quick=False,
    kg_envs=256,
    profile_envs=256,
    published=(
        ("CrafText-Classic-Symbolic-v1", 9_100, "CrafText paper, official CrafText, V100"),
        ("Craftax-Classic-Symbolic (bare)", 44_630, "CrafText paper, Craftax Classic, V100"),
    ),
)
"""Worlds whose reset generates a whole Craftax map: optimistic resets (ratio 16, the CrafText
paper's setting), fewer envs and shorter scans on a CPU."""

FAMILY = WorldFamily(
    name="CrafText",
    ids=tuple(craftext.REGISTERED_IDS),
    make=_benchmark_make,
    task=craftext_task,
    episodes=split_pairs,
    splits=SPLITS,
    data_splits=goal_file_splits,
    settings=(
        EPISODE_LIMIT,
        Setting("level", "medium", "CrafText level (the default of craftext.make too)", ("easy", "medium", "hard")),
        Setting("release", "default", "CrafText dataset release", ("default", "full")),
        Setting(
            "data_version",
            "v1",
            "CrafText dataset version: v1 (the paper's goals and phrasings) or v2 (no infeasible goal, no phrasing naming an "
            "object its goal does not involve)",
            ("v1", "v2"),
        ),
        Setting(
            "goals",
            "",
            "CrafText: comma-separated substrings of goal keys to keep, a leading '-' drops the goals that match "
            "instead (e.g. 'required=collect_wood),-forbidden=eat_cow'; a whole key, commas and all, is one term)",
        ),
        Setting(
            "expert",
            "map",
            "CrafText: what the scripted expert of demonstrations and --imitation-coef labels reads: the whole map, or only "
            "the agent's view (blocks and cows out of view unknown; it explores straight on), which an agent can imitate",
            EXPERT_SIGHTS,
        ),
        Setting(
            "goals_file",
            "",
            "CrafText: a goal file of your own (craftext.goalfile: JSON lines or YAML; check it with "
            "python -m craftext.validate FILE); its splits replace the shipped dataset's, all levels",
        ),
    ),
    aliases={"craftext": "CrafText-Classic-Symbolic-v1"},
    facets=(
        Evaluation(splits=SPLITS, group_order=CATEGORIES, shared_settings=shared_capacity),
        ExpertGap(expert_gap),
        Presets(
            {
                "quick": {
                    "release": "full",
                    "level": "easy",
                    "goals": GROUNDING_GOALS,
                    "max_episode_steps": 150,
                    "total_timesteps": 240_000,
                    "lr": 6e-4,
                    "imitation_coef": 1.0,
                    "eval_episodes": 8,
                },
                "grounding": {
                    "release": "full",
                    "level": "easy",
                    "goals": GROUNDING_GOALS,
                    "max_episode_steps": 150,
                    "total_timesteps": 2_000_000,
                    "eval_episodes": 16,
                },
                "level": {},
                "paper": {
                    "env": "CrafText-Classic-Pixels-v1",
                    "level": "medium",
                    "max_episode_steps": 10_000,
                    "encoder": "hashed-768",
                    "paper": True,
                    "eval_episodes": 50,
                },
            }
        ),
        Questions(
            direct=(("completed", "Did this player complete the instruction?"),),
            comparative=(
                PROGRESS,
                EFFICIENCY,
                IRRELEVANT,
                ("safety", "Which player kept itself safer (health, food, drink, enemies)?"),
                HUMAN_LIKE,
            ),
        ),
        dataclasses.replace(CRAFTAX_LIKE, ids=("CrafText-Classic-Symbolic-v1",)),
        References(
            {"Craftax-Classic-Symbolic (bare)": Reference(_bare_craftax, CRAFTAX_LIKE, compared_with="CrafText-Classic-Symbolic-v1")}
        ),
        Protocols(
            {
                "paper": {
                    "about": "the paper's Table 2: every instruction a unit with 50 worlds, Craftax's 10,000-step limit, "
                    "sampled actions, success averaged over instructions",
                    "unit": "instruction",
                    "episodes": 50,
                    "max_steps": 10_000,
                    "greedy": False,
                }
            }
        ),
    ),
)
"""The CrafText registry entry. Presets of ``python -m baselines``: ``quick`` (the main job: PPO
with imitation of the scripted expert, 240k steps), ``grounding`` (the same goal set, plain PPO at
a larger budget), ``level`` (a whole level), ``paper`` (the paper's training setup: Classic
pixels, medium level, Craftax's 10,000-step episodes, a 768-d frozen encoder, 50 evaluation
episodes per instruction)."""
