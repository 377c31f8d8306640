"""Validate a goal file (``craftext.goalfile``) against the real checkers and Craftax worlds.

    python -m craftext.validate FILE [--version classic|full] [--episodes-per-goal N] [--expert-steps S]

Checks, all reported at once:

1. every record parses (file, line and field of each problem);
2. no goal appears twice in a split, no phrasing belongs to two different goals, and no goal is
   infeasible by the Craftax rules from an empty inventory (``infeasible``: an ordered craft and
   collection that contradict the recipes);
3. no goal fires at once: in ``N`` worlds per goal (reset, then one no-op step), its checker
   must not report success;
4. feasibility where the scripted expert plays the goal (``craftext.expert``: every scenario;
   achievements short of fighting, eating and sleeping): it plays each such goal in the ``N``
   worlds for at most ``S`` steps, and goals it never completes are reported;
5. phrasings that name a block or item their goal does not involve (``foreign_objects``, by the
   lexicon's unambiguous synonyms) are reported.

Prints a table per scenario and exits 1 when a check of 1-3 fails (4 and 5 are warnings: the
expert is a sufficiency check, a goal it misses may still be feasible, and a phrasing may name
another object on purpose, as the shipped release's flavour clauses do).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from craftext import lexicon
from craftext.dataset import Dataset
from craftext.expert import CRAFTS, PICKAXE_TIER, PICKAXES, covers
from craftext.goalfile import GoalFileError, load_goals
from craftext.goals import Goal, Scenario
from craftext.world import ITEMS, NOOP


def duplicates(dataset: Dataset) -> list[str]:
    """Goals repeated within a split and phrasings shared by different goals."""
    problems = []
    for (split, key), count in Counter((e.split, e.goal.key()) for e in dataset.entries).items():
        if count > 1:
            problems.append(f"goal {key} appears {count} times in split {split}")
    owners: dict[str, set[str]] = defaultdict(set)
    for e in dataset.entries:
        for text in e.phrasings:
            owners[" ".join(text.lower().split())].add(e.goal.key())
    problems += [
        f"phrasing {text!r} belongs to {len(keys)} goals: {', '.join(sorted(keys))}" for text, keys in owners.items() if len(keys) > 1
    ]
    return problems


FAMILIES = ({"wood", "tree"}, {"plant", "sapling", "ripe_plant", "grass"}, {"water", "drink"}, {"crafting_table", "table"})
"""Names that stand for one thing in a goal (wood is chopped from trees, a sapling found in grass
and planted there, a drink taken from water)."""
CRAFTING = {
    "wood": {"crafting_table", "wood"},
    "stone": {"crafting_table", "wood", "stone"},
    "iron": {"crafting_table", "furnace", "wood", "stone", "coal", "iron"},
    "diamond": {"crafting_table", "furnace", "wood", "diamond"},
}
"""What making a tool of each material involves (its recipe and stations)."""


GRAMMAR = (
    r"(VERBS|LINE_WORDS|SQUARE_WORDS|CROSS_WORDS|SEQUENCE|WITHOUT|SIDES|NUMBERS|CELLS|UNITS|ORIENTATIONS|TIMES|ADVERBS|ADJECTIVES|POLITE)$"
)
"""The lexicon's lists of grammar words (verbs, shapes, counts, manners), not flavour."""


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    values = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
    return [s for v in values for s in _strings(v)]


def _words(text: str) -> str:
    """``text`` as lowercase words between single spaces, with a space at each end."""
    return f" {' '.join(re.findall(r'[a-z]+', text.lower()))} "


def _synonyms() -> list[tuple[str, str]]:
    """(phrase, object) for every name of a block or item in the lexicon that names only it and is
    not part of the grammar's other words ("track" of "track down", "wall" of a line), longest
    phrase first."""
    names = (lexicon.BLOCKS, lexicon.PLURALS, lexicon.ITEMS)
    grammar = " ".join(_words(s) for key, value in vars(lexicon).items() if re.search(GRAMMAR, key) for s in _strings(value))
    table: dict[str, set[str]] = {}
    for source in names:
        for name, words in source.items():
            for word in words:
                table.setdefault(_words(word), set()).add(name)
    unambiguous = [(word, owners.pop()) for word, owners in table.items() if len(owners) == 1 and word not in grammar]
    return sorted(unambiguous, key=lambda pair: -len(pair[0]))


_SYNONYMS = _synonyms()


def involved(goal: Goal) -> set[str]:
    """Names of the blocks and items a goal is about (arguments and achievement words, with
    ``FAMILIES`` and ``CRAFTING``)."""
    names = set()
    for key, value in goal.args:
        for v in value if isinstance(value, tuple) else (value,):
            if isinstance(v, str) and key not in ("side", "variant"):
                names.add(v)
                words = v.split("_")
                names.update(words)
                if words[0] == "make" and words[1] in CRAFTING:
                    names |= CRAFTING[words[1]]
    for family in FAMILIES:
        if names & family:
            names |= family
    return names


def foreign_objects(goal: Goal, text: str) -> list[str]:
    """Blocks or items a phrasing names (by an unambiguous lexicon synonym, whole words, longest
    first) that its goal does not involve."""
    text, found = _words(text), []
    for phrase, name in _SYNONYMS:
        if phrase in text:
            text = text.replace(phrase, " | ")
            found.append(name)
    goal_names = involved(goal)
    return sorted({name for name in found if name not in goal_names})


def lexicon_problems(dataset: Dataset) -> list[str]:
    """A problem per phrasing that names an object its goal does not involve (``foreign_objects``)."""
    return [
        f"phrasing {text!r} of {e.goal.key()} names {', '.join(extra)}, which the goal does not involve"
        for e in dataset.entries
        for text in e.phrasings
        if (extra := foreign_objects(e.goal, text))
    ]


def _materials(craft: str) -> set[str]:
    """Items that crafting ``craft`` needs collected first: its recipe, and what mining those needs."""
    recipe, _ = CRAFTS[craft]
    needed = {item for item, count in zip(ITEMS, recipe) if count}
    for item in list(needed):
        if PICKAXE_TIER.get(item, 0):
            needed |= _materials(PICKAXES[PICKAXE_TIER[item] - 1])
    return needed


def infeasible(goal: Goal) -> str | None:
    """Why a goal cannot be completed from the start of an episode (empty inventory) under the
    Craftax rules, or None: a ``CRAFT_ORDER`` whose craft needs its item collected first, or whose
    item needs the crafted pickaxe to be mined."""
    if goal.scenario != Scenario.CRAFT_ORDER:
        return None
    a = goal.arguments
    if a["craft"] not in CRAFTS:
        return None
    if a["before"] and a["item"] in _materials(a["craft"]):
        return f"{a['craft']} needs {a['item']} collected first, so it cannot come before collecting {a['item']}"
    if not a["before"] and a["craft"] in PICKAXES and PICKAXE_TIER.get(a["item"], 0) > PICKAXES.index(a["craft"]):
        return f"mining {a['item']} needs the pickaxe of {a['craft']} (or a better one), so it cannot be collected before {a['craft']}"
    return None


def playable(goal: Goal) -> bool:
    """Whether the scripted expert plays ``goal`` (it covers it) and the goal is feasible."""
    return covers(goal) and infeasible(goal) is None


def play(
    dataset: Dataset, classic: bool, worlds: int, expert_steps: int, seed: int = 0, quiet: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """(goals,) bool arrays: whether a goal fired at reset + one no-op step in any of ``worlds``
    worlds, and whether the scripted expert completed it in any of them within ``expert_steps``
    steps (False for goals that are not ``playable``). One batched, jitted program; a progress bar
    over the expert's steps unless ``quiet`` (or the environment variable ``CI`` is true)."""
    from tqdm.auto import tqdm

    import craftext

    bar = tqdm(
        total=expert_steps,
        desc="expert steps",
        unit="step",
        dynamic_ncols=True,
        disable=quiet or os.environ.get("CI", "").strip().lower() in ("true", "1"),
    )

    env, params = craftext.make("CrafText-Classic-Symbolic-v1" if classic else "CrafText-Symbolic-v1", dataset.pairs())
    goals = len(dataset.entries)
    goal_ids = jnp.repeat(jnp.arange(goals), worlds)
    keys = jax.random.split(jax.random.key(seed), goals * worlds)

    @jax.jit
    def run(keys, goal_ids, params):
        def start(key, goal):
            _, state = env.reset_env(key, params)
            state = env.set_goal(state, params.phrase_start[goal], params)
            _, state, _, _, info = env.step_env(jax.random.fold_in(key, 0), state, NOOP, params)
            return state, info["success"]

        state, fired = jax.vmap(start)(keys, goal_ids)

        def step(carry, t):
            state, done = carry
            if not bar.disable:
                jax.debug.callback(lambda: bar.update())
            action = jax.vmap(env.expert_action, in_axes=(0, None))(state, params)
            _, state, _, _, info = jax.vmap(env.step_env, in_axes=(0, 0, 0, None))(
                jax.vmap(jax.random.fold_in, in_axes=(0, None))(keys, t + 1), state, action, params
            )
            return (state, done | info["success"]), None

        (_, completed), _ = jax.lax.scan(step, (state, fired), jnp.arange(expert_steps))
        return fired, completed

    if not bar.disable:
        print(
            f"compiling {goals} goals x {worlds} worlds and {expert_steps} expert steps (minutes on a CPU the first time; "
            "XLA may log 'Very slow compile?' meanwhile: expected, not an error)",
            file=sys.stderr,
            flush=True,
        )
    fired, completed = (np.asarray(x).reshape(goals, worlds).any(1) for x in run(keys, goal_ids, params))
    bar.close()
    return fired, completed & np.asarray([playable(e.goal) for e in dataset.entries]) & ~fired


def report(dataset: Dataset, fired: np.ndarray, completed: np.ndarray) -> str:
    """A Markdown table per scenario: goals, fired at once, played by the expert (``playable``), completed by it,
    phrasings naming objects the goal does not involve; and a total row."""
    rows: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(6, int))
    for e, f, c in zip(dataset.entries, fired, completed):
        foreign = sum(bool(foreign_objects(e.goal, text)) for text in e.phrasings)
        rows[e.goal.scenario.name] += [1, f, playable(e.goal), c, len(e.phrasings), foreign]
    rows = dict(sorted(rows.items()))
    rows["all"] = sum(rows.values(), np.zeros(6, int))
    lines = [
        "| scenario | goals | fire at once | expert plays | expert completes | completed / played | phrasings | naming other objects |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [f"| {name} | {g} | {f} | {cov} | {c} | {c / max(cov, 1):.0%} | {p} | {o} |" for name, (g, f, cov, c, p, o) in rows.items()]
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m craftext.validate", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("file", type=Path)
    p.add_argument("--version", choices=("classic", "full"), default="classic", help="Craftax version of the goals (default classic)")
    p.add_argument("--episodes-per-goal", type=int, default=4, metavar="N", help="worlds (episodes) per goal (default 4)")
    p.add_argument("--worlds", type=int, dest="episodes_per_goal", help=argparse.SUPPRESS)  # the old spelling, for one release
    p.add_argument("--expert-steps", type=int, default=300, help="step budget of the scripted expert (default 300)")
    p.add_argument("--quiet", action="store_true", help="no progress bar (also when the environment variable CI is true)")
    p.add_argument(
        "--no-compile-cache",
        action="store_true",
        help="do not use JAX's persistent compilation cache "
        "(~/.cache/instructworlds/jax; INSTRUCTWORLDS_JAX_CACHE=DIR moves it, =off turns it off)",
    )
    return p


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    args = parser().parse_args(argv)
    if any(a.split("=")[0] == "--worlds" for a in argv):
        print("warning: --worlds is deprecated and will be removed in the next release; use --episodes-per-goal", file=sys.stderr)
    cache = os.environ.get("INSTRUCTWORLDS_JAX_CACHE", "").strip() or str(Path.home() / ".cache" / "instructworlds" / "jax")
    if not args.no_compile_cache and cache.lower() != "off":  # the suite's compilation cache, as every command uses it
        jax.config.update("jax_compilation_cache_dir", cache)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    worlds = args.episodes_per_goal
    if worlds < 1 or args.expert_steps < 1:
        sys.exit("error: --episodes-per-goal and --expert-steps must be >= 1")
    classic = args.version == "classic"
    try:
        dataset = load_goals(args.file, classic)
    except GoalFileError as error:
        print("\n".join(error.problems))
        sys.exit(f"{args.file}: invalid ({len(error.problems)} problem(s))")
    problems = duplicates(dataset) + [f"goal {e.goal.key()} is infeasible: {why}" for e in dataset.entries if (why := infeasible(e.goal))]
    print(f"{args.file}: {len(dataset.entries)} goals, {len(dataset.texts())} phrasings; playing {worlds} worlds per goal ...", flush=True)
    fired, completed = play(dataset, classic, worlds, args.expert_steps, quiet=args.quiet)
    problems += [f"goal {e.goal.key()} ({e.split}) fires at reset or on the first no-op step" for e, f in zip(dataset.entries, fired) if f]
    missed = [e.goal.key() for e, c in zip(dataset.entries, completed) if playable(e.goal) and not c]
    print(report(dataset, fired, completed))
    for key in missed:
        print(f"warning: the scripted expert did not complete {key} in {worlds} worlds x {args.expert_steps} steps")
    for problem in lexicon_problems(dataset):
        print(f"warning: {problem}")
    for problem in problems:
        print(f"error: {problem}")
    if problems:
        sys.exit(f"{args.file}: invalid ({len(problems)} problem(s))")
    print(f"{args.file}: valid")


if __name__ == "__main__":
    main()
