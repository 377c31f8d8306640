"""Aggregated DAgger: a policy that learns the world's expert's action in the states it visits itself.

Each iteration the student plays ``num_envs`` worlds for ``num_steps`` steps (the expert's action
instead of its own with probability ``expert_play``, decaying linearly to 0 over
``expert_rounds`` rounds), and the world's expert (``Task.expert``) labels every visited state. The new states
are first scored (cross entropy of the label and top-1 agreement, per goal category: held out,
since nothing has trained on them yet), then join a replay of up to ``replay_steps`` states (the
oldest leave first), and ``updates`` minibatches of ``batch_segments`` segments drawn uniformly
from the whole replay train the student (the cross entropy of the expert's action; Adam at a
constant rate, never annealed). New worlds start goals in proportion to the student's smoothed
failure rate on them (``goal_probabilities``), so practice goes where the student fails.

The replay holds segments: the ``num_steps`` consecutive states of one world in one iteration,
with the GRU's carry at the segment's start as the rollout computed it (the "stored state" of
recurrent replay), features as float16. A run keeps each iteration's segments in
``replay/<iteration>.npz`` while they are in the replay, so ``--resume`` continues from the last
checkpoint with the same result as one sitting.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import struct
from jax import Array

from baselines.bc.config import NETWORK
from baselines.configs import NetworkConfig, trainer_config
from baselines.networks import task_network
from baselines.ppo import policy_inputs
from baselines.worlds import cli
from baselines.worlds.checkpoints import Checkpoints, RunFolder
from baselines.worlds.task import Task
from baselines.worlds.wrappers import vector_env


@dataclass(frozen=True)
class DaggerConfig:
    """network: the student (``NetworkConfig``, BC's by default); iterations: rollout-and-training
    rounds; num_envs x num_steps: states labelled per round;
    replay_steps: states the replay keeps (rounded down to whole rounds); updates: minibatches per
    round; batch_segments: segments (num_steps states each) per minibatch; lr: Adam's constant rate;
    expert_play: DAgger's beta at the first round, decaying linearly to 0 over expert_rounds rounds
    (a schedule that does not depend on ``iterations``, so a run grown with ``--resume`` is the
    longer run);
    failure_floor: the weight a goal keeps when the student never fails it; smoothing: how much of a
    goal's episode counts carries to the next round; reset_ratio: fresh worlds per step are
    num_envs // reset_ratio (world generation is the costly part of a CrafText step)."""

    network: NetworkConfig = field(default_factory=lambda: NETWORK)
    iterations: int = 256
    num_envs: int = 64
    num_steps: int = 64
    replay_steps: int = 1 << 20
    updates: int = 32
    batch_segments: int = 16
    lr: float = 3e-4
    max_grad_norm: float = 1.0
    expert_play: float = 0.3
    expert_rounds: int = 128
    failure_floor: float = 0.1
    smoothing: float = 0.9
    reset_ratio: int = 4
    seed: int = 0

    @property
    def capacity(self) -> int:
        """Segments the replay holds: whole rounds of ``num_envs``, at least one round."""
        return max(1, self.replay_steps // (self.num_steps * self.num_envs)) * self.num_envs

    def validate(self) -> None:
        """Raise ValueError naming the bad field."""
        self.network.validate()
        for name in ("iterations", "num_envs", "num_steps", "replay_steps", "updates", "batch_segments", "expert_rounds", "reset_ratio"):
            if getattr(self, name) < 1:
                raise ValueError(f"DaggerConfig.{name} must be >= 1, got {getattr(self, name)}")
        if not (math.isfinite(self.lr) and self.lr > 0) or not (math.isfinite(self.max_grad_norm) and self.max_grad_norm > 0):
            raise ValueError(f"DaggerConfig.lr and max_grad_norm must be finite numbers > 0, got {self.lr}, {self.max_grad_norm}")
        for name in ("expert_play", "failure_floor", "smoothing"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"DaggerConfig.{name} must be in [0, 1], got {getattr(self, name)}")

    def beta(self, iteration: int) -> float:
        """The expert's share of the rollout steps in round ``iteration`` (0-based)."""
        return self.expert_play * max(0.0, 1.0 - iteration / self.expert_rounds)


class GoalStarts:
    """``task.env`` whose fresh worlds start a text drawn from given probabilities: its params are
    ``(task.params, probabilities)`` with (num_texts,) probabilities over ``task.texts``."""

    def __init__(self, task: Task):
        self.task = task

    def __getattr__(self, name: str) -> Any:
        return getattr(self.task.env, name)

    def reset_env(self, key: Array, params: tuple[Any, Array]):
        world_params, probabilities = params
        key_text, key_world = jax.random.split(key)
        text = jax.random.choice(key_text, probabilities.shape[0], p=probabilities)
        return self.task.start(key_world, text, world_params)

    def step_env(self, key: Array, state: Any, action: Array, params: tuple[Any, Array]):
        return self.task.env.step_env(key, state, action, params[0])

    def is_truncated(self, state: Any, params: tuple[Any, Array]) -> Array:
        return self.task.env.is_truncated(state, params[0])


def goal_probabilities(task: Task, tries: np.ndarray, wins: np.ndarray, floor: float) -> np.ndarray:
    """(num_texts,) start probabilities: each goal weighted by the student's failure rate on it,
    ``1 - (wins + 1) / (tries + 2)``, plus ``floor``, shared equally by the goal's texts."""
    goal = np.asarray(task.text_goal)
    weight = 1.0 - (wins + 1.0) / (tries + 2.0) + floor
    texts_of_goal = np.bincount(goal, minlength=len(weight))
    p = weight[goal] / texts_of_goal[goal]
    return (p / p.sum()).astype(np.float32)


def categories(task: Task) -> tuple[tuple[str, ...], np.ndarray]:
    """(category names, (num_goals,) category index of each goal): the goals' ``category`` labels
    (one category, ``all``, for a world without them)."""
    labels = [g.get("category", "all") for g in task.goals]
    names = tuple(dict.fromkeys(labels))
    return names, np.asarray([names.index(label) for label in labels], np.int32)


@struct.dataclass
class Segments:
    """(T, B) states of B worlds, time-major: world (T, B, *F) features, text (T, B) int32 ids,
    mask (T, B, A) bool, reset (T, B) bool (the state starts an episode), label (T, B) int32 expert
    actions, hidden (B, H) the GRU carry before the first state."""

    world: Array
    text: Array
    mask: Array
    reset: Array
    label: Array
    hidden: Array


@struct.dataclass
class Rollout:
    """The worlds between rounds: vector env state, its observation, (B,) episode-start flags and
    the GRU carry."""

    env_state: Any
    obs: Any
    reset: Array  # (B,) bool: ``obs`` starts an episode
    hidden: Array


class Replay:
    """Segments on the host, in slots ``[round % rounds] * num_envs + world``: the oldest round
    leaves first. Features are kept as float16."""

    def __init__(self, capacity: int, num_envs: int, example: Segments):
        self.capacity, self.num_envs, self.size = capacity, num_envs, 0
        self.data = {
            name: np.zeros(
                (capacity,) + (value.shape[:1] + value.shape[2:] if name != "hidden" else value.shape[1:]),
                np.float16 if name in ("world", "hidden") else value.dtype,
            )
            for name, value in dataclasses.asdict(example).items()
        }

    def add(self, round_index: int, segments: dict[str, np.ndarray]) -> None:
        """Store one round's segments (numpy, time-major as ``Segments``)."""
        start = round_index % (self.capacity // self.num_envs) * self.num_envs
        for name, value in segments.items():
            self.data[name][start : start + self.num_envs] = value if name == "hidden" else np.swapaxes(value, 0, 1)
        self.size = min(self.capacity, self.size + self.num_envs)

    def sample(self, rng: np.random.Generator, batches: int, size: int) -> Segments:
        """(batches,) minibatches of ``size`` segments drawn uniformly, time-major: world (batches, T, size, *F)."""
        ids = rng.integers(0, self.size, (batches, size))
        out = {name: value[ids] for name, value in self.data.items()}
        return Segments(**{name: value if name == "hidden" else np.swapaxes(value, 1, 2) for name, value in out.items()})


def replay_file(run: Path, round_index: int) -> Path:
    """Where a run keeps the segments of round ``round_index``."""
    return run / "replay" / f"{round_index:06d}.npz"


class Dagger:
    """Aggregated DAgger of a ``baselines.networks`` policy on ``task`` (see the module docstring)."""

    def __init__(self, config: DaggerConfig, task: Task, instruction_table: np.ndarray):
        config.validate()
        if task.expert is None:
            raise ValueError(f"DAgger needs the world's expert; {task.name} has none (Task.expert)")
        self.config, self.task = config, task
        self.instructions = jnp.asarray(instruction_table, jnp.float32)
        self.network = task_network(config.network, task)
        self.optimizer = optax.chain(optax.clip_by_global_norm(config.max_grad_norm), optax.adam(config.lr))
        self.env = vector_env(GoalStarts(task), config.num_envs, min(config.reset_ratio, task.reset_ratio))
        self.category_names, category = categories(task)
        self.goal_category = jnp.asarray(category)
        self.text_goal = jnp.asarray(task.text_goal, jnp.int32)

    def init(self, key: Array, probabilities: Array) -> tuple[Any, Any, Rollout]:
        """(params, optimizer state, worlds) of a fresh run."""
        key_net, key_env = jax.random.split(key)
        obs, env_state = self.env.reset(key_env, (self.task.params, probabilities))
        reset = jnp.ones(self.config.num_envs, bool)
        hidden = self.network.initial_hidden(self.config.num_envs)
        one = jax.tree.map(lambda x: x[None, :1], obs)
        params = self.network.init(key_net, hidden[:1], *policy_inputs(self.task, self.instructions, None, one, reset[None, :1]))
        return params, self.optimizer.init(params), Rollout(env_state, obs, reset, hidden)

    def collect(self, params, rollout: Rollout, key: Array, beta: Array, probabilities: Array) -> tuple[Rollout, Segments, dict]:
        """One round: (worlds after it, its segments, episode counts per goal: ``tries`` and ``wins`` (num_goals,))."""
        world_params = (self.task.params, probabilities)

        def step(carry, key):
            rollout = carry
            key_act, key_mix, key_env = jax.random.split(key, 3)
            obs = jax.tree.map(lambda x: x[None], rollout.obs)
            inputs = policy_inputs(self.task, self.instructions, None, obs, rollout.reset[None])
            hidden, pi, _ = self.network.apply(params, rollout.hidden, *inputs)
            label = jax.vmap(self.task.expert, in_axes=(0, None))(rollout.env_state, self.task.params)
            own = pi.sample(seed=key_act)[0]
            played = jnp.where(jax.random.uniform(key_mix, own.shape) < beta, label, own)
            next_obs, env_state, _, terminated, truncated, info = self.env.step(key_env, rollout.env_state, played, world_params)
            seen = jax.vmap(self.task.observe)(rollout.obs)
            record = {
                "world": seen.world.astype(jnp.float16),
                "text": seen.text,
                "mask": seen.mask,
                "reset": rollout.reset,
                "label": label,
                "ended": terminated | truncated,
                "success": self.task.success(info),
            }
            return Rollout(env_state, next_obs, terminated | truncated, hidden), record

        start_hidden = rollout.hidden
        rollout, record = jax.lax.scan(step, rollout, jax.random.split(key, self.config.num_steps))
        goal = self.text_goal[record["text"]]
        num_goals = len(self.task.goals)
        counts = {
            "tries": jnp.zeros(num_goals).at[goal].add(record["ended"].astype(jnp.float32)),
            "wins": jnp.zeros(num_goals).at[goal].add((record["ended"] & record["success"]).astype(jnp.float32)),
        }
        segments = Segments(record["world"], record["text"], record["mask"], record["reset"], record["label"], start_hidden)
        return rollout, segments, counts

    def _sums(self, params, segments: Segments) -> tuple[Array, Array]:
        """(T, B) negative log-likelihood of the labels and whether the most likely action is the label."""
        world = segments.world.astype(jnp.float32)
        inputs = (world, self.instructions[segments.text], None, segments.reset, segments.mask)
        _, pi, _ = self.network.apply(params, segments.hidden.astype(jnp.float32), *inputs)
        return -pi.log_prob(segments.label), pi.logits.argmax(-1) == segments.label

    def score(self, params, segments: Segments) -> dict[str, Array]:
        """Held-out metrics of a round's segments: ``loss`` and ``agreement`` over every state, and
        (num_categories,) ``category_loss`` / ``category_agreement``."""
        nll, agree = self._sums(params, segments)
        category = self.goal_category[self.text_goal[segments.text]]
        count = jnp.zeros(len(self.category_names)).at[category].add(1.0)
        return {
            "loss": nll.mean(),
            "agreement": agree.mean(),
            "category_loss": jnp.zeros_like(count).at[category].add(nll) / jnp.maximum(count, 1.0),
            "category_agreement": jnp.zeros_like(count).at[category].add(agree.astype(jnp.float32)) / jnp.maximum(count, 1.0),
        }

    def train(self, params, opt_state, batches: Segments) -> tuple[Any, Any, dict[str, Array]]:
        """One gradient step per minibatch of ``batches`` (leading (updates,) axis, then time-major);
        returns the mean training loss and agreement of the minibatches."""

        def loss(params, segments):
            nll, agree = self._sums(params, segments)
            return nll.mean(), agree.mean()

        grad = jax.value_and_grad(loss, has_aux=True)

        def step(carry, segments):
            params, opt_state = carry
            (nll, agree), grads = grad(params, segments)
            updates, opt_state = self.optimizer.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), (nll, agree)

        (params, opt_state), (nll, agree) = jax.lax.scan(step, (params, opt_state), batches)
        return params, opt_state, {"train_loss": nll.mean(), "train_agreement": agree.mean()}


DEFAULT_OUT = "runs/dagger/default"
FLAG_HELP = {
    "iterations": "rounds of rollout, labelling and training",
    "num_envs": "worlds the student plays each round",
    "num_steps": "steps per world and round (one replay segment)",
    "replay_steps": "states the replay keeps, the oldest round leaving first",
    "updates": "minibatches trained each round",
    "batch_segments": "segments per minibatch",
    "lr": "Adam's learning rate, constant",
    "max_grad_norm": "gradient clipping (global norm)",
    "expert_play": "share of the first round's steps the expert plays (DAgger's beta)",
    "expert_rounds": "rounds over which --expert-play decays linearly to 0",
    "failure_floor": "weight a goal keeps when the student never fails it",
    "smoothing": "share of a goal's episode counts carried to the next round",
    "reset_ratio": "worlds per fresh world generated each step",
}
"""Help of the ``DaggerConfig`` flags."""


def _network(args, init_from: Path | None, env_id: str) -> NetworkConfig:
    """The student's network on world ``env_id``: ``--init-from``'s (a flag that contradicts it is
    refused, naming both), else BC's defaults with the flags."""
    from baselines.ppo import trained_run

    given = {name: getattr(args, name) for name in ("policy", "encoder", "layer_size", "world_encoder", "placed_channel")}
    given = {name: value for name, value in given.items() if value is not None}
    if init_from is None:
        return dataclasses.replace(NETWORK, env_id=env_id, **given)
    saved = trained_run(init_from).network
    if saved.env_id != env_id:
        raise ValueError(f"--init-from {init_from} was trained on {saved.env_id}, not {env_id} (--env)")
    clash = [f"--{k.replace('_', '-')} {v!r} (the run's: {getattr(saved, k)!r})" for k, v in given.items() if getattr(saved, k) != v]
    if clash:
        raise ValueError(f"--init-from {init_from}: its network differs: " + "; ".join(clash))
    return saved


def _state(params, opt_state, rollout: Rollout, tries: np.ndarray, wins: np.ndarray, round_index: int) -> dict:
    """What a checkpoint holds after ``round_index`` rounds."""
    rounds = np.asarray(round_index, np.int32)
    return {"params": params, "opt_state": opt_state, "rollout": rollout, "tries": tries, "wins": wins, "round": rounds}


def _restore(folder: RunFolder, checkpoints: Checkpoints, state: dict) -> dict:
    """The latest readable checkpoint of the run in ``folder`` in the structure of ``state``; replay
    files written after it are dropped (this command wrote them)."""
    found = checkpoints.latest(state)
    if found is None:
        raise ValueError(f"--resume: {folder.path} has no checkpoint to continue from")
    step, _, state = found
    for path in sorted((folder.path / "replay").glob("*.npz")):
        if int(path.stem) >= step:
            path.unlink()
    return state


class _Settings(NamedTuple):
    """A DAgger run's settings: the checked ``--out``, config, world spec, ``--init-from``,
    evaluation (episodes per goal, splits or None for the world's) and rounds between checkpoints."""

    out: Path
    config: DaggerConfig
    spec: dict
    init_from: Path | None
    eval_episodes: int
    eval_names: list[str] | None
    every: int


def _settings(args) -> _Settings:
    """A new run's settings from the flags, a resumed one's from its ``config.json`` (``--iterations``
    may grow it); ValueError naming a bad flag, before anything is built."""
    from baselines import worlds
    from baselines.configs import saved_run

    out = cli.check_out(args.out, kind="dagger", default=DEFAULT_OUT, overwrite=args.overwrite, resume=args.resume, can_resume=True)
    saved = saved_run(out) if args.resume else {}
    if args.resume:
        config = trainer_config(DaggerConfig, saved["dagger"], saved["network"], str(out / "config.json"))
        config = dataclasses.replace(config, iterations=args.iterations or config.iterations)
        spec, init_from = saved["world"], None
    else:
        spec = worlds.spec_from_args(args)
        values = {f.name: getattr(args, f.name) for f in dataclasses.fields(DaggerConfig) if getattr(args, f.name, None) is not None}
        init_from = args.init_from
        config = DaggerConfig(**values, network=_network(args, init_from, spec["env"]))
        config.validate()
    saved_evaluation = saved.get("evaluation", {})
    eval_episodes = args.eval_episodes or saved_evaluation.get("episodes") or 8
    eval_names = args.eval_splits.split(",") if args.eval_splits else saved_evaluation.get("splits")
    if eval_episodes < 1:
        raise ValueError(f"--eval-episodes must be >= 1, got {eval_episodes}")
    every = max(1, config.iterations // 20) if args.checkpoint_every is None else args.checkpoint_every
    if every < 1:
        raise ValueError(f"--checkpoint-every must be >= 1, got {every}")
    if eval_names:
        worlds.check_splits(spec, eval_names, "--eval-splits")
    return _Settings(out, config, spec, init_from, eval_episodes, eval_names, every)


def run(args) -> None:
    from baselines import worlds
    from baselines.configs import run_record
    from baselines.ppo import tables
    from baselines.worlds.checkpoints import trained_params

    checked, config, spec, init_from, eval_episodes, eval_names, every = _settings(args)
    folder = RunFolder.open(checked, kind="dagger", overwrite=args.overwrite, resume=args.resume, can_resume=True)
    out = folder.path  # an overwrite's new folder, beside the old one until it is finished
    train_split = worlds.split_episodes(spec, "train")
    task = worlds.spec_task(spec, train_split)
    dagger = Dagger(config, task, tables(config.network, task)[0])
    evaluation = {"episodes": eval_episodes, "splits": eval_names}
    folder.write_config(
        run_record(
            "dagger", {**spec, "split": "train"}, config.network, config, {"init_from": str(init_from or "")}, evaluation, args.command_line
        )
    )
    num_goals = len(task.goals)
    uniform = goal_probabilities(task, np.zeros(num_goals), np.zeros(num_goals), 1.0)
    print(
        f"aggregated DAgger of {config.network.policy} on {task.name}: {num_goals} goals, {config.iterations} rounds of "
        f"{config.num_envs} worlds x {config.num_steps} steps, replay of {config.capacity * config.num_steps:,} states, "
        f"{config.updates} minibatches of {config.batch_segments} segments a round, lr {config.lr:g}",
        flush=True,
    )
    with cli.compiling(f"aggregated DAgger rounds of {task.name} ({config.num_envs} x {config.num_steps})", args.quiet):
        params, opt_state, rollout = jax.jit(dagger.init)(jax.random.key(config.seed), jnp.asarray(uniform))
        collect = jax.jit(dagger.collect).lower(params, rollout, jax.random.key(0), jnp.float32(0), jnp.asarray(uniform)).compile()
        _, example, _ = jax.eval_shape(dagger.collect, params, rollout, jax.random.key(0), jnp.float32(0), jnp.asarray(uniform))
        score = jax.jit(dagger.score)
        train = jax.jit(dagger.train)
    if init_from is not None:
        params = trained_params(init_from, params)
        opt_state = dagger.optimizer.init(params)
        print(f"student initialised from {init_from}", flush=True)
    state = _state(params, opt_state, rollout, np.zeros(num_goals, np.float32), np.zeros(num_goals, np.float32), 0)
    replay = Replay(config.capacity, config.num_envs, example)
    rounds_kept = config.capacity // config.num_envs
    checkpoints = folder.checkpoints(keep=2)
    if args.resume:
        state = _restore(folder, checkpoints, state)
        for r in range(max(0, int(state["round"]) - rounds_kept), int(state["round"])):
            with np.load(replay_file(out, r)) as saved_round:
                replay.add(r, dict(saved_round))
        held = replay.size * config.num_steps
        print(f"resumed from {checkpoints.folder} at round {int(state['round'])}: {held:,} states in the replay", flush=True)
    (out / "replay").mkdir(exist_ok=True)
    key = jax.random.key(config.seed + 1)
    params, opt_state, rollout = state["params"], state["opt_state"], state["rollout"]
    tries, wins = np.asarray(state["tries"]), np.asarray(state["wins"])
    began = time.perf_counter()
    with (
        folder.metrics("round", int(state["round"]) if args.resume else None) as log,
        cli.progress(total=config.iterations, initial=int(state["round"]), desc="DAgger", unit="round", silent=args.quiet) as bar,
    ):
        for r in range(int(state["round"]), config.iterations):
            round_began = time.perf_counter()
            probabilities = goal_probabilities(task, tries, wins, config.failure_floor)
            rollout, segments, counts = collect(params, rollout, jax.random.fold_in(key, r), jnp.float32(config.beta(r)), probabilities)
            held = jax.device_get(score(params, segments))
            segments = {name: np.asarray(value) for name, value in dataclasses.asdict(segments).items()}
            replay.add(r, segments)
            buffer = io.BytesIO()
            np.savez(buffer, **segments)
            cli.write_atomic(replay_file(out, r), buffer.getvalue())
            batches = replay.sample(np.random.default_rng([config.seed, r]), config.updates, config.batch_segments)
            params, opt_state, trained = train(params, opt_state, batches)
            counts = jax.device_get(counts)
            tries, wins = config.smoothing * tries + counts["tries"], config.smoothing * wins + counts["wins"]
            row = _round_row(config, dagger, r, replay, counts, held, jax.device_get(trained), time.perf_counter() - round_began)
            log(row)
            bar.update()
            bar.set_postfix_str(
                f"held-out agreement {row['heldout_agreement']:.3f}  loss {row['heldout_loss']:.3f}  success {row['success_rate']:.3f}",
                refresh=False,
            )
            if (r + 1) % every == 0 or r + 1 == config.iterations:
                checkpoints.save(r + 1, _state(params, opt_state, rollout, tries, wins, r + 1))
                for path in (out / "replay").glob("*.npz"):  # rounds out of the replay at this checkpoint
                    if int(path.stem) < r + 1 - rounds_kept:
                        path.unlink()
    checkpoints.close()
    print(f"{config.iterations} rounds done in {time.perf_counter() - began:.0f} s this session", flush=True)
    _evaluate(args, folder, dagger, params, spec, train_split, eval_episodes, eval_names)


def _round_row(
    config: DaggerConfig, dagger: Dagger, r: int, replay: Replay, counts: dict, held: dict, trained: dict, seconds: float
) -> dict:
    """The ``metrics.jsonl`` row of round ``r`` (0-based)."""
    episodes = float(counts["tries"].sum())
    return {
        "round": r + 1,
        "env_steps": (r + 1) * config.num_envs * config.num_steps,
        "replay_states": replay.size * config.num_steps,
        "expert_play": config.beta(r),
        "passes": config.updates * config.batch_segments / config.num_envs,  # draws per labelled state
        "episodes": episodes,
        "success_rate": float(counts["wins"].sum()) / max(episodes, 1.0),
        "heldout_loss": float(held["loss"]),
        "heldout_agreement": float(held["agreement"]),
        **{f"heldout_agreement/{c}": float(v) for c, v in zip(dagger.category_names, held["category_agreement"])},
        **{f"heldout_loss/{c}": float(v) for c, v in zip(dagger.category_names, held["category_loss"])},
        **{k: float(v) for k, v in trained.items()},
        "round_seconds": seconds,
    }


def _evaluate(args, folder: RunFolder, dagger: Dagger, params, spec: dict, train_split, eval_episodes: int, eval_names) -> None:
    """The trained student's params, its three-policy evaluation and pictures, and the folder finished."""
    from baselines import evaluate, plots, worlds
    from baselines.worlds.checkpoints import save_params

    config, task = dagger.config, dagger.task
    save_params(folder.path, params)
    split_names = eval_names or worlds.eval_splits(spec)
    splits = {name: train_split if name == "train" else worlds.split_episodes(spec, name) for name in split_names}
    results = evaluate.evaluate_splits(
        spec, splits, task, dagger.network, params, config.network, config.seed, eval_episodes, spec["max_episode_steps"], quiet=args.quiet
    )
    meta = {
        **spec,
        "policy": f"aggregated DAgger {config.network.policy}",
        "success_metric": task.metrics[0],
        "episodes_per_goal": eval_episodes,
        "eval_mode": "sample",
        "seed": config.seed,
        "command": args.command_line,
        "device": str(jax.devices()[0]),
        "jax": jax.__version__,
    }
    labels = {"agent": f"agent (aggregated DAgger {config.network.policy}, sample)"}
    print("\n" + evaluate.save(results, folder.path, meta, labels, worlds.family_of(spec["env"]).evaluation.group_order))
    print(plots.finish_run(folder.path, plots.dagger_curve), flush=True)


def parser() -> argparse.ArgumentParser:
    from baselines.bc.config import POLICIES
    from baselines.configs import WORLD_ENCODERS
    from baselines.worlds import add_world_arguments

    p = argparse.ArgumentParser(prog="python -m baselines.bc.dagger", description=__doc__.split("\n\n")[0])
    add_world_arguments(p, split=False)
    cli.add_out(p, "run folder", default=DEFAULT_OUT)
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint (--iterations may grow it)")
    p.add_argument("--init-from", type=Path, help="start from a run's policy (BC, PPO, DAgger or an exported folder), its network kept")
    p.add_argument("--policy", choices=POLICIES, help="student network without --init-from (default ppo-t)")
    p.add_argument("--encoder", help="frozen text encoder without --init-from (default hashed)")
    p.add_argument("--layer-size", type=int, help="width of the student's layers without --init-from (default 256)")
    p.add_argument(
        "--world-encoder",
        choices=WORLD_ENCODERS,
        help="how the student reads a vector world without --init-from: dense layers, or convolutions over its map first (default dense)",
    )
    p.add_argument(
        "--placed-channel",
        action="store_true",
        default=None,
        help="without --init-from: the student marks the cells of its view holding blocks it placed, from its own observations",
    )
    for setting in dataclasses.fields(DaggerConfig):
        if setting.name in FLAG_HELP:
            flag, kind = f"--{setting.name.replace('_', '-')}", type(setting.default)
            p.add_argument(flag, type=kind, help=f"{FLAG_HELP[setting.name]} (default {setting.default:g})")
    p.add_argument("--seed", type=int, help="training seed (default 0)")
    p.add_argument("--checkpoint-every", type=int, help="rounds between checkpoints (default a twentieth of the rounds)")
    p.add_argument("--eval-episodes", type=int, help="evaluation episodes per goal and split (default 8)")
    p.add_argument("--eval-splits", help="splits to evaluate (default: the world's evaluation splits that its data offers)")
    cli.add_run_options(p)
    return p


def main(argv: list[str] | None = None) -> None:
    cli.run(parser(), run, argv)


if __name__ == "__main__":
    main()
