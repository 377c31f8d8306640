"""Evaluation protocol for CrafText agents: success rate per split, category and level.

Every goal of a split gets ``episodes`` complete episodes, each in its own world (fixed seeds:
episode ``i`` uses ``fold_in(key, i)``) and with the goal's phrasings in turn. An episode succeeds
if the checker fires before death or the ``max_steps`` limit; timeouts count as failures (the
official evaluation only counted episodes that ended within 2,000 steps). Success rates are
averaged per goal first, then over goals (not over strings), so goals with more phrasings do not
weigh more. Policies: ``greedy`` (argmax), ``sample`` or ``random`` (uniform over feasible actions),
all through one compiled function
(agent and random episodes share a batch).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from baselines.networks import ActorCritic
from baselines.ppo import policy_inputs
from baselines.tasks import Task

MODES = {"greedy": 0, "sample": 1, "random": 2}
COLUMNS = ("Conditional", "Building", "Localization", "Achievement", "Combo")


@dataclass
class Evaluator:
    """Runs episodes of one task's goals with one network; compiled once per (task, batch)."""

    task: Task
    network: ActorCritic
    instruction_table: np.ndarray
    plan_table: np.ndarray | None = None
    batch: int = 256

    def __post_init__(self):
        self._run = jax.jit(self._episodes, static_argnums=(4,))

    def _episodes(self, params, keys, texts, mode, max_steps: int):
        """(E,) keys, text ids and mode ids -> (E,) success flags; episodes run without resets."""
        env, env_params, task = self.task.env, self.task.params, self.task
        instructions = jnp.asarray(self.instruction_table)
        plans = None if self.plan_table is None else jnp.asarray(self.plan_table)

        def start(key, text):
            _, state = env.reset_env(key, env_params)
            state = env.set_goal(state, text, env_params)
            return env.get_obs(state, env_params), state

        obs, state = jax.vmap(start)(keys, texts)
        e = texts.shape[0]
        carry0 = (obs, state, self.network.initial_hidden(e), jnp.ones(e, bool), jnp.zeros(e, bool), jnp.zeros(e, bool), keys[0])

        def step(carry, _):
            obs, state, hidden, first, finished, succeeded, key = carry
            key, key_act, key_random, key_env = jax.random.split(key, 4)
            inputs = policy_inputs(task, instructions, plans, jax.tree.map(lambda x: x[None], obs), first[None])
            hidden, pi, _ = self.network.apply(params, hidden, *inputs)
            logits = pi.logits[0]
            uniform = jnp.where(inputs[-1][0], 0.0, -1e9)
            action = jnp.select([mode == 0, mode == 1], [logits.argmax(-1), pi.sample(seed=key_act)[0]],
                                jax.random.categorical(key_random, uniform))
            obs, state, _, terminated, info = jax.vmap(env.step_env, in_axes=(0, 0, 0, None))(jax.random.split(key_env, e), state, action, env_params)
            succeeded = succeeded | (task.success(info) & ~finished)
            finished = finished | terminated
            return (obs, state, hidden, jnp.zeros(e, bool), finished, succeeded, key), None

        carry, _ = jax.lax.scan(step, carry0, None, max_steps)
        return carry[5]

    def success(self, params, key, episodes: int, max_steps: int, modes: tuple[str, ...] = ("greedy",)) -> dict[str, np.ndarray]:
        """mode -> (num_goals, episodes) bool: did episode j of goal g succeed. Every mode plays the
        same worlds (episode j of goal g has the same seed), all in one batch."""
        goal_texts = [np.flatnonzero(self.task.text_goal == g) for g in range(len(self.task.goals))]
        one = np.asarray([t[j % len(t)] for t in goal_texts for j in range(episodes)], np.int32)
        texts = np.tile(one, len(modes))
        mode_ids = np.repeat(np.asarray([MODES[m] for m in modes], np.int32), len(one))
        seeds = np.tile(np.arange(len(one)), len(modes))
        keys = jax.vmap(lambda i: jax.random.fold_in(key, i))(jnp.asarray(seeds))
        batch = min(self.batch, len(texts))
        out = []
        for s in range(0, len(texts), batch):
            chunk, m, k = texts[s:s + batch], mode_ids[s:s + batch], keys[s:s + batch]
            pad = batch - len(chunk)
            chunk, m = np.pad(chunk, (0, pad), mode="edge"), np.pad(m, (0, pad), mode="edge")
            k = jnp.concatenate([k, jnp.repeat(k[-1:], pad, 0)]) if pad else k
            out.append(np.asarray(self._run(params, k, jnp.asarray(chunk), jnp.asarray(m), max_steps))[:batch - pad])
        flags = np.concatenate(out).reshape(len(modes), len(goal_texts), episodes)
        return dict(zip(modes, flags))


def summarize(task: Task, success: np.ndarray) -> dict:
    """Per-goal rates -> mean over goals per category, per level and in total, with goal counts."""
    per_goal = success.mean(1)
    groups: dict[str, list[float]] = defaultdict(list)
    for rate, label in zip(per_goal, task.goals):
        groups[label.get("category", "all")].append(rate)
        groups[f"level:{label.get('level', 'all')}"].append(rate)
        groups["Total"].append(rate)
    summary = {name: {"success_rate": float(np.mean(v)), "goals": len(v)} for name, v in sorted(groups.items())}
    summary["per_goal"] = {label["key"]: float(rate) for rate, label in zip(per_goal, task.goals)}
    return summary


def table(results: dict[str, dict[str, dict]]) -> str:
    """Markdown in the paper's Table 2 layout: rows split x policy, columns categories and Total."""
    levels = sorted({k for by_policy in results.values() for s in by_policy.values() for k in s if k.startswith("level:")})
    header = ["split", "policy", *COLUMNS, "Total", *(lv.removeprefix("level:") for lv in levels)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * 2 + "---:|" * (len(header) - 2)]
    for split, by_policy in results.items():
        for policy, s in by_policy.items():
            cells = [f"{s[c]['success_rate']:.2f} ({s[c]['goals']})" if c in s else "–" for c in (*COLUMNS, "Total", *levels)]
            lines.append("| " + " | ".join([split, policy, *cells]) + " |")
    return "\n".join(lines) + "\n\nCells: success rate over goals (number of goals)."


def save(results: dict, out: Path, meta: dict) -> str:
    """Write ``evaluation.json`` and ``evaluation.md`` under ``out``; returns the Markdown table."""
    out.mkdir(parents=True, exist_ok=True)
    markdown = table(results)
    (out / "evaluation.json").write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    (out / "evaluation.md").write_text(f"{meta}\n\n{markdown}\n")
    return markdown
