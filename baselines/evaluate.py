"""Evaluate a trained agent of every world: three policies in the same fixed worlds, with intervals.

    python -m baselines.evaluate RUN                    # the suite's protocol, as the run's own evaluation
    python -m baselines.evaluate RUN --protocol paper   # CrafText Table 2: every instruction, 50 worlds each

``RUN`` is a run folder of ``python -m baselines`` (its latest checkpoint), ``python -m
baselines.bc`` or ``baselines.bc.dagger``, whose policy a compiled evaluator plays in thousands of
worlds at once, or of any other agent kind (``baselines.worlds.agents``: its ``config.json`` names
its ``kind`` and its ``world``), which plays on the host one step at a time through the agent
protocol (``--step-by-step`` plays the first kinds that way too). ``--world SETTING=VALUE``
evaluates it in its world with a setting changed (a CrafText agent of data version v1 on v2's
splits, or on another level). The results go to ``--out`` (default
``runs/evaluations/<run>-<protocol>``, never the run folder, which may be committed):
``evaluation.{json,md,png}``.

* ``agent``: the trained agent with each episode's own instruction;
* ``shuffled``: the same agent shown the instruction of *another* goal of the split (a blind
  control: the world and the checker still follow the episode's own goal);
* ``random``: uniform over the feasible actions;
* ``expert`` (``--with-expert``): the world's scripted expert (``Task.expert``) in the same worlds, the
  ceiling each category's rate stands against.

``agent - shuffled`` is what the language buys. Every goal of a split gets ``episodes`` complete
episodes, each in a world of its own (``world_keys``: episode ``j`` of unit ``u`` uses
``fold_in(fold_in(key, u), j)``; every split folds its name into ``key``), so no two units (goals,
or instructions under the paper protocol) share a world while the three policies play the same
ones; where a goal has several phrasings, its episodes take them in turn. Each world scores an episode
with its own metrics (``Task.score``: value and count per step, summed over the episode); a goal's
rate is ``sum(value) / sum(count)`` over its episodes and a split's rate is the mean over goals,
so goals with more phrasings do not weigh more. An episode that has not ended after ``max_steps``
steps is scored as ended there (a CrafText timeout is a failure).

Protocols (``protocols``): ``suite`` averages over goals, with the run's own episodes per goal
and episode limit; a world family may add its own (its ``Protocols`` facet): CrafText's
``paper`` is the paper's Table 2 protocol: every instruction of a split
is a unit of its own (``evaluation_units``), 50 worlds each, Craftax's 10,000-step episode limit
and sampled actions, success averaged over instructions, by category and level. An episode loop
stops as soon as every episode of its chunk has ended.

On the host (``play_on_host``) the same units, episodes and scores are played by ``World``
sessions: episode ``j`` of unit ``u`` starts from ``host_seed`` (distinct per unit and episode,
shared by the policies), and the blind control shows the agent each observation relabelled with
another goal's instruction (``Task.relabel``; a world without it gets no blind control). The
worlds are not the compiled evaluator's, so the two ways give different draws of the same rates.

Every rate carries a 95% interval (``success_ci``; ``gap_ci`` for agent - shuffled): a two-level
percentile bootstrap (``resampled_rates``) that draws the split's goals with replacement and then
each drawn goal's episodes (its worlds) with replacement, 2,000 times. The draws depend only on
the shapes and a fixed seed, so the policies, evaluated in the same worlds, are resampled in pairs.

The compiled evaluator takes the network parameters, env params and embedding tables as
arguments, so splits of the same shapes (CrafText: ``make_params(capacity=...)``) share one
compilation. In a multi-process run (``jax.distributed``) the episode chunks (of a size that does
not depend on the processes) are dealt out to the processes and their sums gathered, so every
process returns the same result as one process would.
"""

from __future__ import annotations

import argparse
import json
import zlib
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np

from baselines import worlds
from baselines.configs import NetworkConfig
from baselines.networks import ActorCritic
from baselines.plots import POLICY_NAMES
from baselines.ppo import policy_inputs, tables
from baselines.results import held_out_label
from baselines.worlds import cli, distributed
from baselines.worlds.session import World
from baselines.worlds.task import Task

if TYPE_CHECKING:
    from baselines.worlds.agents import Agent

POLICIES = ("agent", "shuffled", "random", "expert")
CONTROLS = POLICIES[:3]
"""What every evaluation plays: the agent and its two controls; ``expert`` (the world's scripted
expert, ``Task.expert``, in the same worlds: the ceiling beside each category) on request."""


def shuffled_texts(text_goal: np.ndarray, seed: int = 0) -> np.ndarray:
    """(num_texts,) text id -> the text shown in its place by the blind control: the same-rank
    phrasing (or instruction step) of another goal, by a goal permutation without fixed points.
    A split with one goal has nothing to swap with and is returned unchanged."""
    text_goal = np.asarray(text_goal)
    goals = np.unique(text_goal)
    if len(goals) < 2:
        return np.arange(len(text_goal), dtype=np.int32)
    order = np.random.default_rng(seed).permutation(goals)
    other = dict(zip(order, np.roll(order, -1)))
    members = {g: np.flatnonzero(text_goal == g) for g in goals}
    rank = np.zeros(len(text_goal), np.int64)
    for ids in members.values():
        rank[ids] = np.arange(len(ids))
    return np.asarray([members[other[g]][r % len(members[other[g]])] for g, r in zip(text_goal, rank)], np.int32)


def _on_this_process(tree):
    """Parameters replicated over several processes as this process's copy (an evaluation chunk
    runs on one local device)."""
    return jax.tree.map(lambda x: x.addressable_data(0) if isinstance(x, jax.Array) and not x.is_fully_addressable else x, tree)


UNITS = ("goal", "instruction")
"""What a split's rate is a mean over (``evaluation_units``)."""


def evaluation_units(task: Task, unit: str = "goal") -> tuple[list[np.ndarray], list[dict]]:
    """The units of ``task`` a split's rate averages over: (text ids of each unit, its label).
    ``goal``: a goal's episodes take its phrasings in turn (goals with more phrasings do not weigh
    more); ``instruction``: every non-empty text is a unit of its own, labelled as its goal with the
    key ``"goal key | text"`` (the CrafText paper's per-instruction mean)."""
    goal_texts = [np.flatnonzero(task.text_goal == g) for g in range(len(task.goals))]
    if unit == "goal":
        return goal_texts, list(task.goals)
    if unit != "instruction":
        raise ValueError(f"unit {unit!r}: expected one of {UNITS}")
    texts = [t for ids in goal_texts for t in ids if task.texts[t]]
    labels = [{**task.goals[task.text_goal[t]], "key": f"{task.goals[task.text_goal[t]]['key']} | {task.texts[t]}"} for t in texts]
    return [np.asarray([t]) for t in texts], labels


def world_keys(key: jax.Array, units: int, episodes: int) -> jax.Array:
    """(units * episodes,) keys, unit-major: episode ``j`` of unit ``u`` plays in the world of
    ``fold_in(fold_in(key, u), j)``, so no two units share a world and adding episodes or units
    keeps the worlds already drawn."""
    per_unit = jax.vmap(lambda u: jax.random.fold_in(key, u))(jnp.arange(units))
    return jax.vmap(lambda k: jax.vmap(lambda j: jax.random.fold_in(k, j))(jnp.arange(episodes)))(per_unit).reshape(-1)


def split_key(key: jax.Array, split: str) -> jax.Array:
    """``key`` with the split's name folded in: the worlds of one split are not another's."""
    return jax.random.fold_in(key, zlib.crc32(split.encode()) & 0x7FFFFFFF)


def episode_plan(
    unit_texts: Sequence[np.ndarray], key: jax.Array, episodes: int, policies: Sequence[str] = CONTROLS
) -> tuple[np.ndarray, np.ndarray, jax.Array]:
    """The episodes of one evaluation, policy-major, then unit, then episode: (P*U*N,) text ids
    (a unit's phrasings in turn), (P*U*N,) policy ids and (P*U*N,) world keys (``world_keys``,
    the same for every policy)."""
    one = np.asarray([t[j % len(t)] for t in unit_texts for j in range(episodes)], np.int32)
    policy_ids = np.repeat(np.asarray([POLICIES.index(p) for p in policies], np.int32), len(one))
    return np.tile(one, len(policies)), policy_ids, jnp.tile(world_keys(key, len(unit_texts), episodes), (len(policies), 1)).reshape(-1)


def chunk_size(episodes: Sequence[int], limit: int) -> int:
    """Episodes per compiled call shared by evaluations of ``episodes`` episodes each (e.g. the
    splits of a run): at most ``limit``, the size that pads the fewest episodes in all (the larger
    on a tie), so that one compilation serves them all."""
    candidates = {max(1, min(limit, n)) for n in episodes}
    return min(candidates, key=lambda b: (sum(-(-n // b) * b for n in episodes), -b))


class Evaluator:
    """Runs episodes of a world with one network, ``batch`` episodes per call (the last chunk
    padded); compiled once per (batch, shapes)."""

    def __init__(self, task: Task, network: ActorCritic, batch: int = 256):
        self.task, self.network, self.batch = task, network, batch
        self._run = jax.jit(self._episodes)

    def _episodes(self, params, env_params, instructions, plans, text_map, keys, texts, policies, greedy, max_steps):
        """(E,) episode keys, text ids and policy ids -> metric -> ((E,) value sums, (E,) count sums).
        Steps until every episode has ended or ``max_steps`` (a traced int) have run, whichever
        comes first."""
        task, e = self.task, texts.shape[0]
        obs, state = jax.vmap(task.start, in_axes=(0, 0, None))(keys, texts, env_params)
        totals = {name: (jnp.zeros(e), jnp.zeros(e)) for name in task.metrics}
        carry0 = (obs, state, self.network.initial_hidden(e), jnp.ones(e, bool), jnp.zeros(e, bool), totals)

        def step(t, carry):
            obs, state, hidden, first, finished, totals = carry
            key_act, key_random, key_env = jnp.moveaxis(jax.vmap(lambda k: jax.random.split(jax.random.fold_in(k, t), 3))(keys), 1, 0)
            inputs = policy_inputs(
                task,
                instructions,
                plans,
                jax.tree.map(lambda x: x[None], obs),
                first[None],
                show=lambda text: jnp.where(policies == POLICIES.index("shuffled"), text_map[text], text),
            )
            hidden, pi, _ = self.network.apply(params, hidden, *inputs)
            logits, mask = pi.logits[0], inputs[-1][0]
            sampled = jax.vmap(jax.random.categorical)(key_act, logits)
            uniform = jax.vmap(jax.random.categorical)(key_random, jnp.where(mask, 0.0, -jnp.inf))
            action = jnp.where(policies == POLICIES.index("random"), uniform, jnp.where(greedy, logits.argmax(-1), sampled))
            if task.expert is not None:  # computed only in chunks that hold expert episodes
                expert = policies == POLICIES.index("expert")
                scripted = jax.lax.cond(
                    expert.any(), lambda: jax.vmap(task.expert, in_axes=(0, None))(state, env_params).astype(action.dtype), lambda: action
                )
                action = jnp.where(expert, scripted, action)
            obs, state, _, terminated, info = jax.vmap(task.env.step_env, in_axes=(0, 0, 0, None))(key_env, state, action, env_params)
            scores = task.score(info, terminated | (t == max_steps - 1))
            totals = {
                name: (v + jnp.where(finished, 0.0, scores[name][0]), c + jnp.where(finished, 0.0, scores[name][1]))
                for name, (v, c) in totals.items()
            }
            return t + 1, (obs, state, hidden, jnp.zeros(e, bool), finished | terminated, totals)

        def running(carry):
            t, (*_, finished, _) = carry
            return (t < max_steps) & ~finished.all()

        _, carry = jax.lax.while_loop(running, lambda carry: step(*carry), (jnp.int32(0), carry0))
        return carry[5]

    def evaluate(
        self,
        params,
        task: Task,
        instruction_table: np.ndarray,
        plan_table: np.ndarray | None,
        key,
        episodes: int,
        max_steps: int,
        policies: tuple[str, ...] = CONTROLS,
        greedy: bool = False,
        shuffle_seed: int = 0,
        table_rows: int | None = None,
        unit: str = "goal",
    ) -> dict[str, dict]:
        """policy -> summary (``summarize``) over ``task``'s goals or instructions (``unit``, see
        ``evaluation_units``; a split of the world this evaluator was built for), ``episodes``
        episodes per unit, all policies in the same worlds. instruction_table / plan_table:
        (len(task.texts), E) embeddings; ``table_rows`` pads them (and the text map) so that splits
        of one capacity share one compilation."""
        goal_texts, labels = evaluation_units(task, unit)
        texts, policy_ids, keys = episode_plan(goal_texts, key, episodes, policies)
        rows = max(table_rows or 0, len(task.texts))
        text_map = jnp.asarray(
            np.concatenate([shuffled_texts(task.text_goal, shuffle_seed), np.arange(len(task.texts), rows, dtype=np.int32)])
        )

        def padded(table):
            return None if table is None else jnp.asarray(np.pad(np.asarray(table, np.float32), ((0, rows - len(table)), (0, 0))))

        instructions, plans = padded(instruction_table), padded(plan_table)
        params = _on_this_process(params)
        processes, rank = jax.process_count(), jax.process_index()
        batch = self.batch  # not a function of the processes: the same chunks, the same numbers
        sums: dict[str, list] = defaultdict(list)
        for i, s in enumerate(range(0, len(texts), batch)):  # chunk i runs on process i % processes; the others add zeros
            chunk, ids, k = texts[s : s + batch], policy_ids[s : s + batch], keys[s : s + batch]
            pad = batch - len(chunk)
            if i % processes != rank:
                for name in task.metrics:
                    sums[name].append(np.zeros((2, batch - pad)))
                continue
            chunk, ids = np.pad(chunk, (0, pad), mode="edge"), np.pad(ids, (0, pad), mode="edge")
            k = jnp.concatenate([k, jnp.repeat(k[-1:], pad, 0)]) if pad else k
            out = self._run(
                params,
                task.params,
                instructions,
                plans,
                text_map,
                k,
                jnp.asarray(chunk),
                jnp.asarray(ids),
                jnp.bool_(greedy),
                jnp.int32(max_steps),
            )
            for name, (value, count) in out.items():
                sums[name].append(np.stack([np.asarray(value), np.asarray(count)])[:, : batch - pad])
        totals = {name: np.concatenate(parts, 1) for name, parts in sums.items()}
        if processes > 1:
            from jax.experimental import multihost_utils

            distributed.barrier("evaluated this process's chunks")
            totals = {name: np.asarray(multihost_utils.process_allgather(t)).sum(0) for name, t in totals.items()}
        totals = {name: t.reshape(2, len(policies), len(goal_texts), episodes) for name, t in totals.items()}
        return policy_summaries(task, totals, policies, labels, unit)


def policy_summaries(
    task: Task, totals: dict[str, np.ndarray], policies: Sequence[str], labels: Sequence[dict], unit: str
) -> dict[str, dict]:
    """metric -> (2, policies, units, episodes) value / count sums -> policy -> ``summarize``; the
    policies played the same worlds, so their bootstrap draws are paired, and the agent's summary
    gains ``gap_ci`` (agent - shuffled) when both played."""
    value, count = totals[task.metrics[0]]
    draws = [resampled_rates(value[i], count[i]) for i in range(len(policies))]  # paired: the same worlds, the same draws
    summaries = {
        policy: summarize(task, {name: t[:, i] for name, t in totals.items()}, labels, unit, draws[i]) for i, policy in enumerate(policies)
    }
    if "agent" in summaries and "shuffled" in summaries:
        summaries["agent"]["gap_ci"] = percentile_interval(draws[policies.index("agent")] - draws[policies.index("shuffled")])
    return summaries


def host_seed(split: str, unit: int, episode: int) -> int:
    """The ``World`` seed of episode ``episode`` of unit ``unit`` of ``split`` when an agent plays
    on the host (``--step-by-step``): distinct for every (unit, episode) of a split (each below 65,536),
    the same for every policy, and unchanged when units or episodes are added."""
    if not (0 <= unit < 2**16 and 0 <= episode < 2**16):
        raise ValueError(f"unit {unit}, episode {episode}: the host evaluation plays at most 65,536 of each per split")
    return (zlib.crc32(split.encode()) + (episode << 16) + unit) % 2**32


def play_on_host(
    world: World,
    agent: Agent,
    unit_texts: Sequence[np.ndarray],
    episodes: int,
    max_steps: int,
    policies: Sequence[str] = CONTROLS,
    shuffle_seed: int = 0,
    quiet: bool = False,
) -> dict[str, np.ndarray]:
    """metric -> (2, policies, units, episodes) value / count sums of ``world`` played one step at a
    time: ``agent`` (``baselines.worlds.agents.Agent``) with each observation as it comes
    (``agent``) or showing another goal's instruction (``shuffled``: ``World.relabel`` to
    ``shuffled_texts``, at every step), uniform over the feasible actions (``random``) or the
    world's expert (``expert``). Episode ``j`` of unit ``u`` plays in the world of ``host_seed``
    for every policy; a unit's episodes take its texts in turn. An episode stops when it
    terminates or after ``max_steps`` steps (its last step scored as its end)."""
    task = world.task
    shown = shuffled_texts(task.text_goal, shuffle_seed)
    totals = {name: np.zeros((2, len(policies), len(unit_texts), episodes)) for name in task.metrics}
    with cli.progress(total=len(policies) * len(unit_texts) * episodes, desc=world.split, unit="episode", silent=quiet) as bar:
        for p, policy in enumerate(policies):
            for u, texts in enumerate(unit_texts):
                for j in range(episodes):
                    seed = host_seed(world.split, u, j)
                    obs, state = world.start(int(texts[j % len(texts)]), seed)
                    agent.reset(seed)
                    rng = np.random.default_rng(seed)
                    for t in range(max_steps):
                        if policy == "agent":
                            action = agent.act(obs, t)
                        elif policy == "shuffled":
                            action = agent.act(world.relabel(obs, int(shown[int(task.observe(obs).text)])), t)
                        else:
                            action = world.scripted(policy, obs, state, rng)
                        out = world.step(state, action, seed, t, last=t == max_steps - 1)
                        for name, (value, count) in out.scores.items():
                            totals[name][:, p, u, j] += (float(value), float(count))
                        obs, state = out.obs, out.state
                        if out.terminated:
                            break
                    bar.update()
    return totals


def evaluate_agent_splits(
    run: Path,
    spec: Mapping,
    names: Sequence[str],
    episodes: int,
    max_steps: int,
    greedy: bool,
    unit: str,
    expert: bool,
    quiet: bool,
    seen: set[str],
) -> tuple[dict[str, dict], str]:
    """(split -> policy -> summary, the agent's name): the agent of run folder ``run``
    (``load_agent``) and its controls played on the host (``play_on_host``) in each split of
    ``spec``'s world; without ``World.relabel`` the blind control is left out, with a note.
    ``seen``: the training split's texts (the agent's ``texts_in_train``)."""
    from baselines.worlds.agents import load_agent

    results: dict[str, dict] = {}
    name = ""
    for split in names:
        world = World(spec, split)
        agent = load_agent(run, world, greedy=greedy)
        name = agent.name
        policies = [p for p in CONTROLS if p != "shuffled" or world.task.relabel is not None]
        if "shuffled" not in policies:
            print(f"{world.env_id} cannot show an observation another instruction (Task.relabel): no blind control", flush=True)
        if expert and world.task.expert is not None:
            policies.append("expert")
        unit_texts, labels = evaluation_units(world.task, unit)
        totals = play_on_host(world, agent, unit_texts, episodes, max_steps, policies, quiet=quiet)
        results[split] = policy_summaries(world.task, totals, policies, labels, unit)
        results[split]["agent"]["texts_in_train"] = texts_in(world.task.texts, seen)
        _print_split(split, results[split], world.task.metrics, unit, episodes)
    return results, name


def _print_split(split: str, by_policy: dict[str, dict], metrics: Sequence[str], unit: str, episodes: int) -> None:
    """One line per policy of a split's results."""
    for policy, summary in by_policy.items():
        others = "".join(f", {name} {summary[name]:.3f}" for name in metrics[1:])
        print(
            f"{split:<18} {policy:<9} {metrics[0]} {summary['success']:.3f}{others} over {summary['goals']} {unit}s x {episodes} episodes",
            flush=True,
        )


def evaluate_splits(
    spec: Mapping,
    splits: Mapping[str, tuple[list, dict]],
    trained: Task,
    network: ActorCritic,
    params,
    network_config: NetworkConfig,
    seed: int,
    episodes: int,
    max_steps: int,
    greedy: bool = False,
    planner: Callable[[str], list[str]] | None = None,
    plans: str = "retrieval",
    batch: int = 256,
    quiet: bool = False,
    unit: str = "goal",
    expert: bool = False,
) -> dict[str, dict]:
    """split -> policy -> summary: the three policies (and with ``expert`` the world's scripted
    expert, where it has one) on each of ``splits`` (name -> what
    ``baselines.worlds.split_episodes`` returned) of ``spec``'s world, for a network of
    ``network_config`` trained on ``trained`` (the reference of PPO-T+'s retrieval planner, unless
    ``plans`` is ``oracle`` or a ``planner`` is given); ``episodes`` per ``unit`` (goal or
    instruction, ``evaluation_units``), at most ``max_steps`` steps each, keys from the training
    ``seed``, in chunks of at most ``batch`` episodes, one size for every split (``chunk_size``),
    dealt out to the processes of a multi-process run. Where the family pads splits to common
    shapes (``Evaluation.shared_settings``, a facet of the family), they share one compilation. Prints one line per split
    and policy, after announcing the first compilation unless ``quiet``."""
    family = worlds.family_of(spec["env"])
    share = family.evaluation.shared_settings
    settings = share([episodes for episodes, _ in splits.values()]) if share else {}
    tasks = {split: worlds.spec_task(spec, split_episodes, **settings) for split, split_episodes in splits.items()}
    shared_rows = max(len(task.texts) for task in tasks.values()) if settings else None
    policies = CONTROLS + (("expert",) if expert and trained.expert is not None else ())
    sizes = [len(evaluation_units(task, unit)[0]) * episodes * len(policies) for task in tasks.values()]
    evaluator = Evaluator(trained, network, chunk_size(sizes, batch))
    key = jax.random.key(10_000 + seed)
    seen = set(trained.texts)
    results: dict[str, dict] = {}
    for i, (split, task) in enumerate(tasks.items()):
        rows = shared_rows or len(task.texts)
        embeddings = tables(network_config, task, planner=planner, reference=trained, plans=plans)
        announce = cli.compiling(f"the three-policy evaluator of {spec['env']} and its {split} split", quiet) if i == 0 else nullcontext()
        with announce:
            results[split] = evaluator.evaluate(
                params,
                task,
                *embeddings,
                split_key(key, split),
                episodes,
                max_steps,
                policies=policies,
                greedy=greedy,
                table_rows=rows,
                unit=unit,
            )
        results[split]["agent"]["texts_in_train"] = texts_in(task.texts, seen)
        _print_split(split, results[split], task.metrics, unit, episodes)
    return results


def texts_in(texts: Sequence[str], seen: set[str]) -> float:
    """The share of the distinct non-empty ``texts`` found word for word in ``seen`` (a split's
    instructions that the training split also has: how held out the split is)."""
    distinct = {t for t in texts if t}
    return sum(t in seen for t in distinct) / max(len(distinct), 1)


RESAMPLES = 2000
"""Bootstrap resamples behind every interval."""


def resampled_rates(value: np.ndarray, count: np.ndarray, resamples: int = RESAMPLES, seed: int = 0) -> np.ndarray:
    """(goals, episodes) value and count sums -> (resamples,) split rates (mean over goals of
    sum(value) / sum(count)), each over goals drawn with replacement and, within every drawn goal,
    its episodes drawn with replacement. The draws depend only on the shape and ``seed``."""
    goals, episodes = value.shape
    rng = np.random.default_rng(seed)
    rates = []
    for size in np.diff(np.r_[0:resamples:250, resamples]):  # 250 resamples at a time bound the memory
        g = rng.integers(0, goals, (size, goals))[..., None]
        e = rng.integers(0, episodes, (size, goals, episodes))
        rates.append((value[g, e].sum(-1) / np.maximum(count[g, e].sum(-1), 1)).mean(-1))
    return np.concatenate(rates)


def percentile_interval(draws: np.ndarray) -> list[float]:
    """The central 95% of bootstrap draws, [low, high]."""
    return [float(v) for v in np.percentile(draws, [2.5, 97.5])]


def summarize(
    task: Task, totals: dict[str, np.ndarray], labels: Sequence[dict] | None = None, unit: str = "goal", draws: np.ndarray | None = None
) -> dict:
    """metric -> (2, units, episodes) value / count sums -> the split's summary: ``success`` (the
    world's headline metric, ``task.metrics[0]``: CrafText success, Hexagons and blocks-world exact
    match) with ``success_ci`` (its 95% bootstrap interval, ``resampled_rates``), each other
    metric's mean over units of its per-unit rate, ``episodes``, ``goals`` (the number of units),
    ``unit``, ``groups`` (one per value of each label the units carry besides ``key``: a
    ``category`` by its value, any other label as ``name:value``, such as CrafText's
    ``level:medium``; success, its interval and unit count) and
    ``per_goal`` success (per unit, keyed by label ``key``). ``labels``: one per unit
    (``evaluation_units``; default ``task.goals``); ``draws``: the headline's ``resampled_rates``
    where the caller has them already."""
    labels = list(task.goals if labels is None else labels)
    rates = {name: t[0].sum(1) / np.maximum(t[1].sum(1), 1) for name, t in totals.items()}
    success = rates[task.metrics[0]]
    headline = totals[task.metrics[0]]
    groups: dict[str, list[int]] = defaultdict(list)
    for i, label in enumerate(labels):
        for name, value in label.items():
            if name != "key" and value not in (None, ""):  # a category by its value, any other label as name:value
                groups[str(value) if name == "category" else f"{name}:{value}"].append(i)
    num_goals, episodes = headline.shape[1:]
    summary = {
        "success": float(success.mean()),
        "success_ci": percentile_interval(resampled_rates(headline[0], headline[1]) if draws is None else draws),
        "episodes": int(num_goals * episodes),
        "goals": int(num_goals),
        "unit": unit,
    }
    summary.update({name: float(r.mean()) for name, r in rates.items() if name != task.metrics[0]})
    summary["groups"] = {
        name: {
            "success": float(success[ids].mean()),
            "ci": percentile_interval(resampled_rates(headline[0][ids], headline[1][ids])),
            "goals": len(ids),
        }
        for name, ids in sorted(groups.items())
    }
    summary["per_goal"] = {label["key"]: float(rate) for rate, label in zip(success, labels)}
    return summary


def gap(by_policy: dict[str, dict]) -> float | None:
    """agent - shuffled success: what the instruction buys (None without both policies)."""
    if "agent" not in by_policy or "shuffled" not in by_policy:
        return None
    return by_policy["agent"]["success"] - by_policy["shuffled"]["success"]


def table(
    splits: dict[str, dict[str, dict]], labels: dict[str, str] | None = None, group_order: tuple[str, ...] = (), headline: str = "success"
) -> str:
    """Markdown: rows split x policy (then the gap agent - shown another instruction), columns the headline metric
    (``summarize``'s ``success``, shown under its own name ``headline``: CrafText success, Hexagons
    and blocks-world exact match), the world's other metrics and the goals' label groups
    (``Task.goals``: for CrafText the paper's Table 2 categories, in ``group_order``, and the
    levels)."""
    labels = {**POLICY_NAMES, **(labels or {})}
    summaries = [s for by_policy in splits.values() for s in by_policy.values()]
    fixed = ("success", "success_ci", "gap_ci", "episodes", "goals", "unit", "groups", "per_goal", "texts_in_train")
    extra = [k for k in summaries[0] if k not in fixed] if summaries else []
    unit = summaries[0].get("unit", "goal") if summaries else "goal"
    named = {g for s in summaries for g in s["groups"]}
    everywhere = {g for g in named if all(s["groups"].get(g, {}).get("goals") == s["goals"] for s in summaries)}
    groups = sorted(
        named - everywhere,  # a group of every unit repeats the headline
        key=lambda g: (":" in g, group_order.index(g) if g in group_order else 0, g),
    )
    header = ["split", "policy", headline, *extra, *(g.partition(":")[2] or g for g in groups), f"{unit}s x episodes"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * 2 + "---:|" * (len(header) - 2)]

    def group_cell(group: dict) -> str:
        interval = " [{:.2f}, {:.2f}]".format(*group["ci"]) if "ci" in group else ""
        return f"{group['success']:.2f}{interval} ({group['goals']})"

    for split, by_policy in splits.items():
        name = held_out_label(split, by_policy.get("agent", {}).get("texts_in_train"))
        for policy, s in by_policy.items():
            cells = [
                f"{s['success']:.3f}" + (" [{:.3f}, {:.3f}]".format(*s["success_ci"]) if "success_ci" in s else ""),
                *(f"{s[k]:.3f}" for k in extra),
                *(group_cell(s["groups"][g]) if g in s["groups"] else "–" for g in groups),
                f"{s['goals']} x {s['episodes'] // max(s['goals'], 1)}",
            ]
            lines.append("| " + " | ".join([name, labels.get(policy, policy), *cells]) + " |")
        difference = gap(by_policy)
        if difference is not None:
            interval = by_policy["agent"].get("gap_ci")
            cell = f"**{difference:+.3f}**" + (" [{:+.3f}, {:+.3f}]".format(*interval) if interval else "")
            lines.append("| " + " | ".join([split, "**agent - another instruction**", cell, *[""] * (len(header) - 3)]) + " |")
    common = f"; every {unit} is {', '.join(g.partition(':')[2] or g for g in sorted(everywhere))}" if everywhere else ""
    return "\n".join(lines) + (
        f"\n\n{headline}: mean over {unit}s of the per-{unit} rate, [95% bootstrap interval over {unit}s and their episodes, "
        f"{RESAMPLES:,} resamples]; group cells: {headline} [interval] (number of {unit}s){common}."
    )


def save(
    splits: dict[str, dict[str, dict]], out: Path, meta: dict, labels: dict[str, str] | None = None, group_order: tuple[str, ...] = ()
) -> str:
    """Write ``evaluation.json`` (``{"meta", "splits", "gap"}``) and ``evaluation.md`` under ``out``;
    returns the Markdown table (``table``). ``meta`` gains ``suite``, the suite's release."""
    from baselines import __version__

    meta = {**meta, "suite": __version__}
    out.mkdir(parents=True, exist_ok=True)
    markdown = table(splits, labels, group_order, meta.get("success_metric", "success"))
    gaps = {split: gap(by_policy) for split, by_policy in splits.items()}
    cli.write_atomic(out / "evaluation.json", json.dumps({"meta": meta, "splits": splits, "gap": gaps}, indent=1))
    cli.write_atomic(out / "evaluation.md", f"{_heading(meta)}\n\n{markdown}\n")
    return markdown


def _heading(meta: dict) -> str:
    """The opening of ``evaluation.md``: a title and the run's settings as a list (``meta``)."""
    title = f"# Evaluation: {meta.get('env', 'run')}" + (f", {meta['policy']}" if meta.get("policy") else "")
    shown = {k: v for k, v in meta.items() if v not in (None, "", False, 0, 0.0) and not isinstance(v, (dict, list))}
    return title + "\n\n" + "\n".join(f"- {k.replace('_', ' ')}: `{v}`" for k, v in shown.items())


def protocols_of(family: worlds.WorldFamily) -> Mapping[str, Mapping]:
    """The family's own evaluation protocols (its ``Protocols`` facet; none without one)."""
    found = family.facet(worlds.Protocols)
    return found.named if found else {}


SUITE = {"about": "per goal, with the run's own episodes per goal and episode limit", "unit": "goal"}
"""The suite's protocol; a family's own (its ``Protocols`` facet) may add others."""


def protocols() -> dict[str, str]:
    """Protocol name -> what it is: ``suite`` and those of every registered world family."""
    return {
        "suite": SUITE["about"],
        **{name: f"{family.name}: {p['about']}" for family in worlds.families() for name, p in protocols_of(family).items()},
    }


EVALUATION_FILES = ("evaluation.json", "evaluation.md", "evaluation.png")
BATCHED_KINDS = ("ppo", "bc", "dagger")
"""Run kinds whose policy the compiled evaluator plays, thousands of worlds at once; an agent of
another kind (``baselines.worlds.agents``) plays on the host, one step at a time."""


def world_changes(pairs: Sequence[str], spec: Mapping) -> dict:
    """``SETTING=VALUE`` pairs (``--world``) -> the world settings to evaluate with instead of the
    run's ``spec`` (``data_version=v2``, ``level=hard``); ValueError names a pair that is not a
    setting of the run's world or not one of its values."""
    known = worlds.settings()
    changes = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        name = name.strip().replace("-", "_")
        if name not in known or not equals:
            raise ValueError(f"--world {pair!r}: use SETTING=VALUE with a world setting ({', '.join(known)})")
        setting = known[name]
        if setting.choices and value not in setting.choices:
            raise ValueError(f"--world {pair!r}: {name} is one of {', '.join(setting.choices)}")
        try:
            changes[name] = type(setting.default)(value)
        except ValueError:
            raise ValueError(f"--world {pair!r}: {name} takes a {type(setting.default).__name__}") from None
    worlds.check_spec({**spec, **changes}, changes)
    return changes


def evaluate_run(args: argparse.Namespace) -> Path:
    """``python -m baselines.evaluate``: the three policies on the splits of a trained run under
    ``args.protocol``; returns the folder written."""
    from baselines import plots
    from baselines.worlds.agents import agent_kind, run_folder_kind
    from baselines.worlds.checkpoints import run_world

    run = Path(args.run)
    kind = run_folder_kind(run)
    stepwise = args.step_by_step or kind not in BATCHED_KINDS
    if stepwise:
        agent_kind(run)  # refused here, before anything is built, if the run holds no agent
    saved_world = run_world(run)
    spec = {**worlds.world_spec(saved_world), **saved_world}  # settings a run folder leaves out: their defaults
    evaluated = {**spec, **world_changes(args.world, spec)}
    family = worlds.family_of(spec["env"])
    protocols = protocols_of(family)
    if args.protocol != "suite" and args.protocol not in protocols:
        raise ValueError(f"--protocol {args.protocol}: {run} is a {family.name} run, whose protocols are suite, {', '.join(protocols)}")
    protocol = SUITE if args.protocol == "suite" else protocols[args.protocol]
    own = json.loads((run / "evaluation.json").read_text()) if (run / "evaluation.json").is_file() else {"meta": {}, "splits": {}}
    episodes = args.episodes or protocol.get("episodes") or own["meta"].get("episodes_per_goal", 8)
    max_steps = args.max_steps or protocol.get("max_steps") or spec["max_episode_steps"]
    greedy = args.greedy or protocol.get("greedy", own["meta"].get("eval_mode") == "greedy")
    names = args.splits.split(",") if args.splits else list(own["splits"]) or worlds.eval_splits(spec)
    worlds.check_splits(evaluated, names, "--splits")
    for name, value in (("--episodes", episodes), ("--max-steps", max_steps), ("--batch", args.batch)):
        if value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")
    out = cli.evaluation_folder(
        args.out or Path("runs") / "evaluations" / f"{run.resolve().name}-{args.protocol}", run, EVALUATION_FILES, args.overwrite
    )
    saved = json.loads((run / "config.json").read_text())
    trained = worlds.spec_task(spec, saved.get("world", {}).get("split", "train"))
    unit, mode = protocol["unit"], "greedy" if greedy else "sample"
    if stepwise:
        results, policy = evaluate_agent_splits(
            run, evaluated, names, episodes, max_steps, greedy, unit, args.with_expert, args.quiet, set(trained.texts)
        )
        seed, label = None, f"agent ({policy}, {mode}, step by step)"
    else:
        from baselines.ppo import load_policy, tables, trained_run

        policy_run = trained_run(run)
        embeddings = tables(policy_run.network, trained, plans=policy_run.planner)
        network, params = load_policy(run, policy_run.network, trained, *embeddings)
        splits = {name: worlds.split_episodes(evaluated, name) for name in names}
        results = evaluate_splits(
            evaluated,
            splits,
            trained,
            network,
            params,
            policy_run.network,
            policy_run.seed,
            episodes,
            max_steps,
            greedy,
            batch=args.batch,
            quiet=args.quiet,
            plans=policy_run.planner,
            unit=unit,
            expert=args.with_expert,
        )
        trainer = {"bc": "BC ", "dagger": "aggregated DAgger "}.get(kind, "")
        policy, seed = policy_run.network.policy, policy_run.seed
        label = f"agent ({trainer}{policy}, {mode})"
    meta = {
        **evaluated,
        "policy": policy,
        "success_metric": trained.metrics[0],
        "protocol": args.protocol,
        "unit": unit,
        f"episodes_per_{unit}": episodes,
        "max_steps": max_steps,
        "eval_mode": mode,
        "played": "step by step" if stepwise else "compiled",
        "seed": seed,
        "command": args.command_line,
        "trained_by": own["meta"].get("command") or saved.get("command_line"),
        "device": str(jax.devices()[0]),
        "jax": jax.__version__,
    }
    print("\n" + save(results, out, meta, {"agent": label}, family.evaluation.group_order))
    print(f"picture: {plots.evaluation_bars(out)}", flush=True)
    return out


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m baselines.evaluate", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "run",
        type=Path,
        help="run folder of python -m baselines (its latest checkpoint), baselines.bc, baselines.bc.dagger or another agent kind",
    )
    known = protocols()
    p.add_argument(
        "--protocol",
        choices=tuple(known),
        default="suite",
        help="; ".join(f"{name} ({about})" for name, about in known.items()) + " (default suite)",
    )
    p.add_argument("--episodes", type=int, help="episodes (worlds) per goal or instruction (default: the protocol's, else the run's)")
    p.add_argument("--max-steps", type=int, help="episode limit in steps (default: the protocol's, else the run's --max-episode-steps)")
    p.add_argument("--splits", help="comma-separated splits (default: those the run evaluated, else the world's evaluation splits)")
    p.add_argument("--greedy", action="store_true", help="the agent plays its most likely action (default: the protocol's, else the run's)")
    p.add_argument("--batch", type=int, default=256, help="episodes run at once (default 256)")
    p.add_argument(
        "--step-by-step",
        action="store_true",
        help="play the agent one step at a time on the host through the agent protocol (baselines.worlds.agents), as "
        "episodes record does; the only way for agents of kinds other than ppo, bc and dagger, and much slower",
    )
    p.add_argument(
        "--with-expert",
        action="store_true",
        help="also play the world's scripted expert in the same worlds, where it has one (the ceiling beside each category; "
        "the one of the run's --expert setting where the world has that setting)",
    )
    p.add_argument(
        "--world",
        action="append",
        default=[],
        metavar="SETTING=VALUE",
        help="evaluate in the run's world with a setting changed, e.g. data_version=v2 or level=hard (repeatable; "
        "the evaluation's meta records the settings used)",
    )
    cli.add_out(p, "folder for evaluation.{json,md,png} (default runs/evaluations/<run>-<protocol>)")
    cli.add_run_options(p)
    return p


def main(argv: list[str] | None = None) -> None:
    cli.run(parser(), evaluate_run, argv)


if __name__ == "__main__":
    main()
