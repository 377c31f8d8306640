"""Validate a goal file (``craftext.goalfile``) against the real checkers and Craftax worlds.

    python -m craftext.validate FILE [--version classic|full] [--episodes-per-goal N] [--expert-steps S] [--metadata OUT.json]

Checks, all reported at once:

1. every record parses (file, line and field of each problem);
2. no goal appears twice in a split, no phrasing belongs to two different goals, and no goal is
   infeasible by the Craftax rules from an empty inventory (``infeasible``: an ordered craft and
   collection that contradict the recipes);
3. no goal fires at once: in ``N`` worlds per goal (reset, then one no-op step), its checker
   must not report success;
4. feasibility where the scripted expert plays the goal (``craftext.expert``: every scenario;
   achievements short of fighting, eating and sleeping): it plays each such goal in the ``N``
   worlds for at most ``S`` steps (``--expert-steps 0``: not played), and goals it never
   completes are reported;
5. phrasings that name a block or item their goal does not involve (``foreign_objects``, by the
   lexicon's unambiguous synonyms) are reported.

Prints a table per scenario (``--metadata``: also writes the counts by scenario and by level,
the command and the problems found as JSON) and exits 1 when a check of 1-3 fails (4 and 5 are
warnings: the expert is a sufficiency check, a goal it misses may still be feasible, and a
phrasing may name another object on purpose, as the v1 release's flavour clauses do).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections import Counter, defaultdict
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from craftext.dataset import Dataset
from craftext.expert import covers
from craftext.goalfile import GoalFileError, load_goals
from craftext.goals import Goal
from craftext.quality import foreign_objects, infeasible
from craftext.world import NOOP


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


def lexicon_problems(dataset: Dataset) -> list[str]:
    """A problem per phrasing that names an object its goal does not involve (``foreign_objects``)."""
    return [
        f"phrasing {text!r} of {e.goal.key()} names {', '.join(extra)}, which the goal does not involve"
        for e in dataset.entries
        for text in e.phrasings
        if (extra := foreign_objects(e.goal, text))
    ]


def playable(goal: Goal) -> bool:
    """Whether the scripted expert plays ``goal`` (it covers it) and the goal is feasible."""
    return covers(goal) and infeasible(goal) is None


def play(
    dataset: Dataset, classic: bool, worlds: int, expert_steps: int, seed: int = 0, quiet: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """(goals, worlds) bool arrays: whether a goal fired at reset + one no-op step in each of
    ``worlds`` worlds, and whether the scripted expert completed it there within ``expert_steps``
    steps (False for goals that are not ``playable`` and in worlds where the goal fired). One
    batched, jitted program; a progress bar over the expert's steps unless ``quiet`` (or the
    environment variable ``CI`` is true)."""
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
        if expert_steps == 0:  # the fire-at-once check only
            return fired, fired

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
    fired, completed = (np.asarray(x).reshape(goals, worlds) for x in run(keys, goal_ids, params))
    bar.close()
    return fired, completed & np.asarray([playable(e.goal) for e in dataset.entries])[:, None] & ~fired


COLUMNS = ("goals", "fire_at_once", "expert_plays", "expert_completes", "episodes_played", "episodes_completed", "phrasings", "foreign")
"""Counts of ``tally``: goals; goals that fired at once in some world; goals the expert plays
(``playable``) and completes in some world; episodes of played goals, and of those the expert
completed; phrasings, and phrasings naming objects their goal does not involve."""


def tally(dataset: Dataset, fired: np.ndarray, completed: np.ndarray, group: str = "scenario") -> dict[str, dict[str, int]]:
    """``COLUMNS`` per scenario (``group="scenario"``) or level (``"level"``) and for ``all``, from
    ``play``'s (goals, worlds) arrays."""
    rows: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(len(COLUMNS), int))
    for e, f, c in zip(dataset.entries, fired, completed):
        foreign = sum(bool(foreign_objects(e.goal, text)) for text in e.phrasings)
        plays = playable(e.goal)
        key = e.goal.scenario.name if group == "scenario" else e.level
        rows[key] += [1, f.any(), plays, c.any(), plays * c.size, c.sum(), len(e.phrasings), foreign]
    rows = dict(sorted(rows.items()))
    rows["all"] = sum(rows.values(), np.zeros(len(COLUMNS), int))
    return {name: dict(zip(COLUMNS, map(int, row))) for name, row in rows.items()}


def report(dataset: Dataset, fired: np.ndarray, completed: np.ndarray) -> str:
    """A Markdown table of ``tally`` per scenario and a total row."""
    lines = [
        "| scenario | goals | fire at once | expert plays | expert completes | completed / played | episodes completed | phrasings "
        "| naming other objects |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in tally(dataset, fired, completed).items():
        lines.append(
            f"| {name} | {r['goals']} | {r['fire_at_once']} | {r['expert_plays']} | {r['expert_completes']} "
            f"| {r['expert_completes'] / max(r['expert_plays'], 1):.0%} | {r['episodes_completed'] / max(r['episodes_played'], 1):.0%} "
            f"| {r['phrasings']} | {r['foreign']} |"
        )
    return "\n".join(lines)


def metadata(dataset: Dataset, fired: np.ndarray, completed: np.ndarray, command: str) -> dict:
    """What ``--metadata`` writes (a release's ``metadata.json``): ``tally`` by scenario and by
    level of ``play``'s arrays, the command, infeasible goals and goals that fired at once."""
    return {
        "command": command,
        "episodes_per_goal": fired.shape[1],
        "jax": jax.__version__,
        "infeasible_goals": sorted({e.goal.key() for e in dataset.entries if infeasible(e.goal)}),
        "fire_at_once": sorted({e.goal.key() for e, f in zip(dataset.entries, fired) if f.any()}),
        "scenario": tally(dataset, fired, completed, "scenario"),
        "level": tally(dataset, fired, completed, "level"),
    }


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m craftext.validate", description=__doc__.replace("``", ""), formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("file", type=Path)
    p.add_argument("--version", choices=("classic", "full"), default="classic", help="Craftax version of the goals (default classic)")
    p.add_argument("--episodes-per-goal", type=int, default=4, metavar="N", help="worlds (episodes) per goal (default 4)")
    p.add_argument("--expert-steps", type=int, default=300, help="step budget of the scripted expert (default 300; 0: checks 1-3 only)")
    p.add_argument("--metadata", type=Path, metavar="OUT", help="also write the counts by scenario and level as JSON to OUT")
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
    cache = os.environ.get("INSTRUCTWORLDS_JAX_CACHE", "").strip() or str(Path.home() / ".cache" / "instructworlds" / "jax")
    if not args.no_compile_cache and cache.lower() != "off":  # the suite's compilation cache, as every command uses it
        jax.config.update("jax_compilation_cache_dir", cache)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    worlds = args.episodes_per_goal
    if worlds < 1 or args.expert_steps < 0:
        sys.exit("error: --episodes-per-goal must be >= 1 and --expert-steps >= 0")
    classic = args.version == "classic"
    try:
        dataset = load_goals(args.file, classic)
    except GoalFileError as error:
        print("\n".join(error.problems))
        sys.exit(f"{args.file}: invalid ({len(error.problems)} problem(s))")
    problems = duplicates(dataset) + [f"goal {e.goal.key()} is infeasible: {why}" for e in dataset.entries if (why := infeasible(e.goal))]
    print(f"{args.file}: {len(dataset.entries)} goals, {len(dataset.texts())} phrasings; playing {worlds} worlds per goal ...", flush=True)
    fired, completed = play(dataset, classic, worlds, args.expert_steps, quiet=args.quiet)
    for e, f in zip(dataset.entries, fired):
        if f.any():
            problems.append(f"goal {e.goal.key()} ({e.split}) fires at reset or on the first no-op step")
    missed = [e.goal.key() for e, c in zip(dataset.entries, completed) if playable(e.goal) and not c.any() and args.expert_steps]
    print(report(dataset, fired, completed))
    if args.metadata:
        record = metadata(dataset, fired, completed, shlex.join(["python", "-m", "craftext.validate", *argv]))
        args.metadata.write_text(json.dumps({**record, "expert_steps": args.expert_steps}, indent=1) + "\n")
        print(f"wrote {args.metadata}")
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
