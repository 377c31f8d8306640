"""Validate a goal file (``craftext.goalfile``) against the real checkers and Craftax worlds.

    python -m craftext.validate FILE [--version classic|full] [--worlds N] [--expert-steps S]

Checks, all reported at once:

1. every record parses (file, line and field of each problem);
2. no goal appears twice in a split, and no phrasing belongs to two different goals;
3. no goal fires at once: in ``N`` worlds per goal (reset, then one no-op step), its checker
   must not report success;
4. feasibility where a scripted expert exists (``craftext.expert``: achievement goals of wood,
   sapling, drink and table): the expert plays each such goal in the ``N`` worlds for at most
   ``S`` steps, and goals it never completes are reported.

Prints a table per scenario and exits 1 when a check of 1-3 fails (4 is reported: the expert is a
sufficiency check, a goal it misses may still be feasible).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from craftext.dataset import Dataset
from craftext.expert import covers
from craftext.goalfile import GoalFileError, load_goals
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
    problems += [f"phrasing {text!r} belongs to {len(keys)} goals: {', '.join(sorted(keys))}" for text, keys in owners.items() if len(keys) > 1]
    return problems


def play(dataset: Dataset, classic: bool, worlds: int, expert_steps: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(goals,) bool arrays: whether a goal fired at reset + one no-op step in any of ``worlds``
    worlds, and whether the scripted expert completed it in any of them within ``expert_steps``
    steps (False for goals the expert does not cover). One batched, jitted program."""
    import craftext

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
            action = jax.vmap(env.expert_action, in_axes=(0, None))(state, params)
            _, state, _, _, info = jax.vmap(env.step_env, in_axes=(0, 0, 0, None))(jax.vmap(jax.random.fold_in, in_axes=(0, None))(keys, t + 1),
                                                                                       state, action, params)
            return (state, done | info["success"]), None

        (_, completed), _ = jax.lax.scan(step, (state, fired), jnp.arange(expert_steps))
        return fired, completed

    fired, completed = (np.asarray(x).reshape(goals, worlds).any(1) for x in run(keys, goal_ids, params))
    covered = np.asarray([covers(e.goal) for e in dataset.entries])
    return fired, completed & covered & ~fired


def report(dataset: Dataset, fired: np.ndarray, completed: np.ndarray) -> str:
    """A Markdown table per scenario: goals, fired at once, covered by the expert, completed by it."""
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for e, f, c in zip(dataset.entries, fired, completed):
        row = rows[e.goal.scenario.name]
        row[0] += 1
        row[1] += int(f)
        row[2] += int(covers(e.goal))
        row[3] += int(c)
    lines = ["| scenario | goals | fire at once | expert covers | expert completes |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {name} | {g} | {f} | {cov} | {c} |" for name, (g, f, cov, c) in sorted(rows.items())]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m craftext.validate", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", type=Path)
    p.add_argument("--version", choices=("classic", "full"), default="classic", help="Craftax version of the goals (default classic)")
    p.add_argument("--worlds", type=int, default=4, help="worlds per goal (default 4)")
    p.add_argument("--expert-steps", type=int, default=150, help="step budget of the scripted expert (default 150)")
    args = p.parse_args(argv)
    if args.worlds < 1 or args.expert_steps < 1:
        sys.exit("error: --worlds and --expert-steps must be >= 1")
    classic = args.version == "classic"
    try:
        dataset = load_goals(args.file, classic)
    except GoalFileError as error:
        print("\n".join(error.problems))
        sys.exit(f"{args.file}: invalid ({len(error.problems)} problem(s))")
    problems = duplicates(dataset)
    print(f"{args.file}: {len(dataset.entries)} goals, {len(dataset.texts())} phrasings; playing {args.worlds} worlds per goal ...", flush=True)
    fired, completed = play(dataset, classic, args.worlds, args.expert_steps)
    problems += [f"goal {e.goal.key()} ({e.split}) fires at reset or on the first no-op step" for e, f in zip(dataset.entries, fired) if f]
    missed = [e.goal.key() for e, c in zip(dataset.entries, completed) if covers(e.goal) and not c]
    print(report(dataset, fired, completed))
    for key in missed:
        print(f"note: the scripted expert did not complete {key} in {args.worlds} worlds x {args.expert_steps} steps")
    for problem in problems:
        print(f"error: {problem}")
    if problems:
        sys.exit(f"{args.file}: invalid ({len(problems)} problem(s))")
    print(f"{args.file}: valid")


if __name__ == "__main__":
    main()
