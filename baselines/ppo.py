"""PPO for PPO-T / PPO-T+ / FiLM, in the purejaxrl shape: ``make_train(config, task) -> train(key)``.

``train`` runs the whole training (rollout ``lax.scan``, GAE, epochs x minibatches) under one
``jax.jit``; ``jax.jit(jax.vmap(ppo.train))(keys)`` trains several seeds in one program.
``PPO.update`` is the same single update, used by the command line to train in jitted chunks
between orbax checkpoints (``compiled_updates``: one program for every chunk, its runner donated);
the optimizer state (and so the learning-rate schedule) carries across chunks, unlike the
official code's per-chunk restarts. Nothing in an update brings a value to the host but the
progress callback, when one is given.

Fixes over the official CrafText baselines (the code of the CrafText paper):
the stored transition keeps the instruction the agent acted on (its observation's text id); one
continuous annealed schedule; truncation-aware bootstrapping (a truncated step's reward gets
``gamma * V(final observation)``); seeds and config recorded by the runner.

Sharding: with more than one device, every array with an environment axis is sharded over a
1-D ``data`` mesh (``jax.sharding``; ``num_envs`` must be a multiple of the devices); parameters are
replicated; XLA inserts the collectives. The total batch and the update are the same as on one
device. Multi-process (several hosts): the mesh spans every process's devices once
``jax.distributed`` is initialised (``baselines.worlds.distributed``, ``--distributed`` on the command
line), and every process runs the same program.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import struct
from jax import Array
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from baselines.configs import NetworkConfig, NetworkFieldsGiven, saved_run, split_network, trainer_config
from baselines.networks import ActorCritic, task_network
from baselines.worlds import DEFAULT_ENV
from baselines.worlds.checkpoints import restore_params, trained_params
from baselines.worlds.task import Task
from baselines.worlds.wrappers import LogWrapper, vector_env


@dataclass(frozen=True)
class PPOConfig(NetworkFieldsGiven):
    """Defaults: the paper's Table 9 (1024 envs, 100 steps per env, 1e9 steps, lr 2e-4 annealed, a
    GRU of 512, ...). ``network``: the policy network (``NetworkConfig``). ``imitation_coef``: weight of an auxiliary
    cross entropy towards the world's expert action in every visited state (DAgger-style labels on
    the agent's own rollouts, ``Task.expert``; 0: plain PPO). ``imitation_only``: the loss is that
    cross entropy alone (DAgger: no PPO, value or entropy terms). ``expert_play``: DAgger's beta,
    the probability that a rollout step plays the expert's action instead of the agent's sampled
    one, at the first update; it decays linearly to 0 at ``EXPERT_PLAY_DECAY`` of the updates
    (only with ``imitation_only``: PPO's ratios assume the agent's own actions). ``micro_batches``:
    each minibatch's gradient is the mean of this many equal parts' gradients, computed one after
    another (the same update as one pass, in a fraction of the memory)."""

    network: NetworkConfig = field(default_factory=lambda: NetworkConfig(env_id=DEFAULT_ENV))
    num_envs: int = 1024
    num_steps: int = 100
    total_timesteps: int = 1_000_000_000
    lr: float = 2e-4
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.8
    clip_eps: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 1.0
    update_epochs: int = 4
    num_minibatches: int = 8
    micro_batches: int = 1
    reset_ratio: int = 16
    seed: int = 0
    planner: str = "retrieval"
    imitation_coef: float = 0.0
    imitation_only: bool = False
    expert_play: float = 0.0

    @property
    def batch_size(self) -> int:
        return self.num_envs * self.num_steps

    @property
    def num_updates(self) -> int:
        return max(1, self.total_timesteps // self.batch_size)

    def validate(self) -> None:
        """Raise ValueError naming the bad field."""
        self.network.validate()
        positive = ("num_envs", "num_steps", "total_timesteps", "update_epochs", "num_minibatches", "micro_batches", "reset_ratio")
        for name in positive:
            if getattr(self, name) < 1:
                raise ValueError(f"PPOConfig.{name} must be >= 1, got {getattr(self, name)}")
        if self.planner not in PLANNERS:
            raise ValueError(f"PPOConfig.planner must be one of {', '.join(PLANNERS)}, got {self.planner!r}")
        if self.num_envs % self.num_minibatches:
            raise ValueError(
                f"PPOConfig.num_minibatches={self.num_minibatches} must divide num_envs={self.num_envs} (minibatches split by env)"
            )
        if (self.num_envs // self.num_minibatches) % self.micro_batches:
            raise ValueError(
                f"PPOConfig.micro_batches={self.micro_batches} must divide the {self.num_envs // self.num_minibatches} worlds of a "
                f"minibatch (num_envs {self.num_envs} / num_minibatches {self.num_minibatches})"
            )
        for name in ("gamma", "gae_lambda"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"PPOConfig.{name} must be in [0, 1], got {getattr(self, name)}")
        for name in ("lr", "clip_eps", "ent_coef", "vf_coef", "max_grad_norm", "imitation_coef"):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0 or (name == "lr" and value == 0):
                raise ValueError(f"PPOConfig.{name} must be a finite number {'> 0' if name == 'lr' else '>= 0'}, got {value}")
        if self.imitation_only and self.imitation_coef == 0:
            raise ValueError("PPOConfig.imitation_only needs imitation_coef > 0 (the loss is the imitation term alone)")
        if not 0.0 <= self.expert_play <= 1.0:
            raise ValueError(f"PPOConfig.expert_play must be a probability in [0, 1], got {self.expert_play}")
        if self.expert_play and not self.imitation_only:
            raise ValueError("PPOConfig.expert_play needs imitation_only: PPO's ratios assume the agent's own actions")


EXPERT_PLAY_DECAY = 0.5
"""Fraction of the updates over which ``PPOConfig.expert_play`` decays linearly to 0."""


@struct.dataclass
class Runner:
    """Everything a training run carries between updates (a pytree; saved by checkpoints)."""

    params: Any
    opt_state: Any
    env_state: Any
    obs: Any
    reset: Array  # (B,) bool: ``obs`` starts an episode (the GRU's carry restarts from zeros)
    hidden: Array  # (B, layer_size)
    key: Array  # raw uint32 key data
    update: Array  # () int32, updates done


def released_runner(runner: Runner) -> dict[str, Any]:
    """``runner`` in the form a run of 0.5.0 checkpointed (its ``reset`` named ``done``): the second
    target a resumed run restores into (``Checkpoints.latest``), read back by ``runner_of``."""
    fields = {f.name: getattr(runner, f.name) for f in dataclasses.fields(runner)}
    fields["done"] = fields.pop("reset")
    return fields


def runner_of(restored: Runner | dict[str, Any]) -> Runner:
    """The ``Runner`` of a restored checkpoint, this release's or 0.5.0's (``released_runner``)."""
    if isinstance(restored, Runner):
        return restored
    fields = dict(restored)
    fields["reset"] = fields.pop("done")
    return Runner(**fields)


@struct.dataclass
class Transition:
    obs: Any
    reset: Array  # the observation started an episode
    action: Array
    log_prob: Array
    value: Array
    reward: Array
    ended: Array  # the step ended the episode (terminated or truncated)
    returned: Array
    episode_return: Array
    episode_length: Array
    success: Array
    expert: Array  # the world's expert action in the observed state (zeros without imitation)


def _gae(traj: Transition, last_value: Array, gamma: float, lam: float) -> tuple[Array, Array]:
    """(T, B) advantages and returns; an ended step does not look past its episode."""

    def back(carry, t):
        advantage, next_value = carry
        reward, value, ended = t
        delta = reward + gamma * next_value * (1.0 - ended) - value
        advantage = delta + gamma * lam * (1.0 - ended) * advantage
        return (advantage, value), advantage

    _, advantages = jax.lax.scan(
        back, (jnp.zeros_like(last_value), last_value), (traj.reward, traj.value, traj.ended.astype(jnp.float32)), reverse=True, unroll=16
    )
    return advantages, advantages + traj.value


def policy_inputs(
    task: Task, instructions: Array, plans: Array | None, obs: Any, reset: Array, show: Callable[[Array], Array] | None = None
) -> tuple:
    """``ActorCritic`` inputs (world, instruction, plan, reset, mask) from (T, B) observations and
    (T, B) reset flags; ``instructions`` / ``plans``: (num_texts, E) embedding tables; ``show``
    maps the observed (T, B) text ids to those the policy is shown (default: themselves)."""
    seen = jax.vmap(jax.vmap(task.observe))(obs)
    text = seen.text if show is None else show(seen.text)
    plan = None if plans is None else plans[text]
    return seen.world, instructions[text], plan, reset, seen.mask


class PPO:
    """One PPO learner on one task; see the module docstring."""

    def __init__(
        self,
        config: PPOConfig,
        task: Task,
        instruction_table: np.ndarray,
        plan_table: np.ndarray | None = None,
        progress: Callable[[dict], None] | None = None,
    ):
        """``progress``: called on the host with each update's metrics (one host callback per update;
        None: the compiled update holds no callback)."""
        config.validate()
        if config.network.policy == "ppo-t+" and plan_table is None:
            raise ValueError("policy ppo-t+ needs a plan_table (one embedded plan per instruction text)")
        if config.imitation_coef > 0 and task.expert is None:
            raise ValueError(f"PPOConfig.imitation_coef={config.imitation_coef} needs an expert; {task.name} has none (Task.expert)")
        self.config, self.task, self.progress = config, task, progress
        self.instructions = jnp.asarray(instruction_table, jnp.float32)
        self.plans = None if plan_table is None else jnp.asarray(plan_table, jnp.float32)
        self.env = LogWrapper(vector_env(task.env, config.num_envs, min(config.reset_ratio, task.reset_ratio)))
        self.network = task_network(config.network, task)
        schedule = (
            optax.linear_schedule(config.lr, 0.0, config.num_updates * config.update_epochs * config.num_minibatches)
            if config.anneal_lr
            else config.lr
        )
        self.optimizer = optax.chain(optax.clip_by_global_norm(config.max_grad_norm), optax.adam(schedule, eps=1e-5))
        devices = jax.devices()  # every process's, in a multi-process run
        if len(devices) > 1 and config.num_envs % len(devices):
            raise ValueError(
                f"num_envs {config.num_envs} is not a multiple of the {len(devices)} devices the environments are sharded "
                "over; choose a multiple (or fewer devices: CUDA_VISIBLE_DEVICES)"
            )
        self.mesh = Mesh(np.asarray(devices), ("data",)) if len(devices) > 1 else None

    # ------------------------------------------------------------------ helpers
    def _shard(self, tree: Any, axis: int = 0) -> Any:
        """Shard the environment axis over the ``data`` mesh (no-op on one device)."""
        if self.mesh is None:
            return tree
        spec = PartitionSpec(*([None] * axis + ["data"]))
        return jax.tree.map(lambda x: jax.lax.with_sharding_constraint(x, NamedSharding(self.mesh, spec)) if x.ndim > axis else x, tree)

    def _inputs(self, obs: Any, reset: Array) -> tuple:
        return policy_inputs(self.task, self.instructions, self.plans, obs, reset)

    def _apply(self, params, hidden: Array, obs: Any, reset: Array):
        return self.network.apply(params, hidden, *self._inputs(obs, reset))

    def _expert(self, env_state: Any) -> Array:
        """(B,) int32 expert actions in the vector env's worlds (zeros without imitation)."""
        if self.config.imitation_coef == 0:
            return jnp.zeros(self.config.num_envs, jnp.int32)
        return jax.vmap(self.task.expert, in_axes=(0, None))(env_state.env_state, self.task.params)

    def _mixed(self, update: Array, key: Array, expert: Array, action: Array) -> Array:
        """(B,) actions played: the expert's with probability ``expert_play``, decayed linearly to 0
        at ``EXPERT_PLAY_DECAY`` of the updates, else the agent's."""
        c = self.config
        beta = c.expert_play * jnp.clip(1.0 - update / (EXPERT_PLAY_DECAY * c.num_updates), 0.0, 1.0)
        return jnp.where(jax.random.uniform(jax.random.fold_in(key, 1), expert.shape) < beta, expert, action)

    # ------------------------------------------------------------------ API
    def init(self, key: Array) -> Runner:
        """Fresh parameters, optimizer and environments."""
        key_net, key_env, key = jax.random.split(key, 3)
        obs, env_state = self.env.reset(key_env, self.task.params)
        reset = jnp.ones(self.config.num_envs, bool)
        hidden = self.network.initial_hidden(self.config.num_envs)
        one = jax.tree.map(lambda x: x[None, :1], obs)
        params = self.network.init(key_net, hidden[:1], *self._inputs(one, reset[None, :1]))
        runner = Runner(params, self.optimizer.init(params), env_state, obs, reset, hidden, jax.random.key_data(key), jnp.int32(0))
        return runner.replace(**self._shard({"env_state": env_state, "obs": obs, "reset": reset, "hidden": hidden}))

    def _rollout(self, runner: Runner) -> tuple[Runner, Transition, Array]:
        c = self.config

        def step(carry, _):
            runner, key = carry
            key, key_act, key_env = jax.random.split(key, 3)
            obs = jax.tree.map(lambda x: x[None], runner.obs)
            hidden, pi, value = self._apply(runner.params, runner.hidden, obs, runner.reset[None])
            action = pi.sample(seed=key_act)
            log_prob = pi.log_prob(action)
            expert = self._expert(runner.env_state)
            played = action[0] if c.expert_play == 0 else self._mixed(runner.update, key_act, expert, action[0])
            next_obs, env_state, reward, terminated, truncated, info = self.env.step(key_env, runner.env_state, played, self.task.params)

            # V(observation before the reset) for truncated worlds, computed for every world and
            # selected: a conditional's predicate would reach the host at every step on a GPU
            final = jax.tree.map(lambda x: x[None], info["final_observation"])
            final_value = self._apply(runner.params, hidden, final, jnp.zeros_like(runner.reset)[None])[2][0]
            final_value = jnp.where(truncated, final_value, 0.0)
            ended = terminated | truncated
            transition = Transition(
                runner.obs,
                runner.reset,
                action[0],
                log_prob[0],
                value[0],
                reward + c.gamma * final_value * truncated,
                ended,
                info["returned_episode"],
                info["returned_episode_returns"],
                info["returned_episode_lengths"],
                self.task.success(info),
                expert,
            )
            new = runner.replace(env_state=env_state, obs=next_obs, reset=ended, hidden=hidden)
            new = new.replace(**self._shard({"env_state": new.env_state, "obs": new.obs, "reset": new.reset, "hidden": new.hidden}))
            return (new, key), transition

        key = jax.random.wrap_key_data(runner.key)
        start_hidden = runner.hidden
        (runner, key), traj = jax.lax.scan(step, (runner, key), None, c.num_steps)
        return runner.replace(key=jax.random.key_data(key)), self._shard(traj, axis=1), start_hidden

    def _loss(self, params, hidden: Array, traj: Transition, advantages: Array, targets: Array, stats: tuple | None = None):
        """PPO's loss over (T, B) transitions and its parts; ``stats``: the (mean, std) the
        advantages are normalised with (default: their own)."""
        c = self.config
        _, pi, value = self._apply(params, hidden, traj.obs, traj.reset)
        log_prob = pi.log_prob(traj.action)
        value_clipped = traj.value + (value - traj.value).clip(-c.clip_eps, c.clip_eps)
        value_loss = 0.5 * jnp.maximum((value - targets) ** 2, (value_clipped - targets) ** 2).mean()
        ratio = jnp.exp(log_prob - traj.log_prob)
        mean, std = (advantages.mean(), advantages.std()) if stats is None else stats
        adv = (advantages - mean) / (std + 1e-8)
        actor_loss = -jnp.minimum(ratio * adv, ratio.clip(1.0 - c.clip_eps, 1.0 + c.clip_eps) * adv).mean()
        entropy = pi.entropy().mean()
        imitation = -pi.log_prob(traj.expert).mean() if c.imitation_coef else jnp.float32(0.0)
        if c.imitation_only:
            total = c.imitation_coef * imitation
        else:
            total = actor_loss + c.vf_coef * value_loss - c.ent_coef * entropy + c.imitation_coef * imitation
        return total, {"value_loss": value_loss, "actor_loss": actor_loss, "entropy": entropy, "imitation_loss": imitation}

    def gradient(self, params, hidden: Array, traj: Transition, advantages: Array, targets: Array) -> tuple[Any, dict]:
        """(gradient of the loss, its parts) over one minibatch of (T, B) transitions with their (B,
        ...) starting carries. With ``micro_batches`` M > 1 the B worlds are split into M equal parts
        whose gradients (and parts) are averaged, one part after another: the same mean over the
        minibatch, the advantages normalised over all of it, with one part's activations in memory."""
        grad_fn = jax.grad(self._loss, has_aux=True)
        parts = self.config.micro_batches
        if parts == 1:
            return grad_fn(params, hidden, traj, advantages, targets)
        stats = (advantages.mean(), advantages.std())

        def split(x, axis):  # (..., B, ...) -> (M, ..., B / M, ...)
            x = x.reshape(x.shape[:axis] + (parts, x.shape[axis] // parts) + x.shape[axis + 1 :])
            return jnp.moveaxis(x, axis, 0)

        micro = (split(hidden, 0), jax.tree.map(lambda x: split(x, 1), traj), split(advantages, 1), split(targets, 1))

        def accumulate(total, part):
            grads, aux = grad_fn(params, *part, stats)
            return jax.tree.map(lambda t, g: t + g / parts, total, (grads, aux)), None

        zeros = jax.tree.map(jnp.zeros_like, jax.eval_shape(lambda: grad_fn(params, *jax.tree.map(lambda x: x[0], micro), stats)))
        return jax.lax.scan(accumulate, zeros, micro)[0]

    def update(self, runner: Runner) -> tuple[Runner, dict]:
        """One rollout of ``num_steps`` x ``num_envs`` and ``update_epochs`` x ``num_minibatches`` steps."""
        c = self.config
        runner, traj, start_hidden = self._rollout(runner)
        last = jax.tree.map(lambda x: x[None], runner.obs)
        last_value = self._apply(runner.params, runner.hidden, last, runner.reset[None])[2][0]
        advantages, targets = _gae(traj, last_value, c.gamma, c.gae_lambda)

        def epoch(carry, key):
            params, opt_state = carry
            order = jax.random.permutation(key, c.num_envs).reshape(c.num_minibatches, -1)

            def minibatch(carry, envs):
                params, opt_state = carry

                def pick(x):
                    return x[:, envs]

                grads, aux = self.gradient(params, start_hidden[envs], jax.tree.map(pick, traj), pick(advantages), pick(targets))
                updates, opt_state = self.optimizer.update(grads, opt_state, params)
                return (optax.apply_updates(params, updates), opt_state), aux

            return jax.lax.scan(minibatch, (params, opt_state), order)

        key = jax.random.wrap_key_data(runner.key)
        key, key_epochs = jax.random.split(key)
        (params, opt_state), aux = jax.lax.scan(epoch, (runner.params, runner.opt_state), jax.random.split(key_epochs, c.update_epochs))
        runner = runner.replace(params=params, opt_state=opt_state, key=jax.random.key_data(key), update=runner.update + 1)
        episodes = traj.returned.sum()
        weight = traj.returned / jnp.maximum(episodes, 1)
        metrics = {
            "update": runner.update,
            "env_steps": runner.update * c.batch_size,
            "episodes": episodes,
            "return": (traj.episode_return * weight).sum(),
            "length": (traj.episode_length * weight).sum(),
            "success_rate": ((traj.success & traj.returned) * 1.0).sum() / jnp.maximum(episodes, 1),
            **jax.tree.map(jnp.mean, aux),
        }
        if self.progress is not None:
            jax.debug.callback(self.progress, metrics)
        return runner, metrics

    def updates(self, runner: Runner, count: int, active: Array | None = None) -> tuple[Runner, dict]:
        """``count`` updates in one ``lax.scan``; metrics stacked (count,). With ``active`` (a traced
        int), only the first ``active`` of them run and the rest leave the runner as it is (their
        metrics zero), so that one compiled program serves every chunk of a run, a shorter last one
        included."""
        if active is None:
            return jax.lax.scan(lambda r, _: self.update(r), runner, None, count)
        zeros = jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), jax.eval_shape(self.update, runner)[1])
        return jax.lax.scan(lambda r, i: jax.lax.cond(i < active, self.update, lambda r: (r, zeros), r), runner, jnp.arange(count))

    def compiled_updates(self, runner: Runner, count: int) -> jax.stages.Compiled:
        """``updates(runner, count, active)`` compiled once for every chunk of a run, the runner
        donated (its buffers become the result's): call it as ``compiled(runner, np.int32(active))``."""
        return jax.jit(self.updates, static_argnums=1, donate_argnums=0).lower(runner, count, np.int32(count)).compile()

    def train(self, key: Array) -> dict:
        """The whole run: init, then ``num_updates`` updates. Returns runner and stacked metrics."""
        runner, metrics = self.updates(self.init(key), self.config.num_updates)
        return {"runner": runner, "metrics": metrics}


def train_seeds(ppo: PPO, keys: Array) -> dict:
    """Deprecated (removed in 0.7.0): ``jax.vmap(ppo.train)(keys)`` trains several seeds in one
    program (``networks._orthogonal`` draws the seeds' initial matrices one after another)."""
    from baselines.worlds import deprecation

    deprecation.warn("train_seeds", "jax.vmap(ppo.train)(keys)")
    return jax.vmap(ppo.train)(keys)


PLANNERS = ("retrieval", "oracle")


def tables(
    network: NetworkConfig, task: Task, cache_dir=None, planner=None, reference: Task | None = None, plans: str = "retrieval"
) -> tuple[np.ndarray, np.ndarray | None]:
    """Frozen instruction embeddings (``network.encoder``) of ``task.texts`` and, for PPO-T+, embedded
    plans: from ``planner`` (instruction text -> steps, e.g. ``ChatPlanner``) if given, else by
    ``plans`` (``PLANNERS``, ``PPOConfig.planner``): ``retrieval`` (the plan of the nearest training
    instruction of ``reference``, default ``task``; reads only the text) or ``oracle`` (from the
    gold goal)."""
    from baselines.planner import RetrievalPlanner, goal_plan, plan_text, reads_goals
    from baselines.text_encoders import DEFAULT_CACHE, embed, make_encoder

    cache = DEFAULT_CACHE if cache_dir is None else cache_dir
    encoder = make_encoder(network.encoder)
    instructions = embed(encoder, task.texts, cache)
    if network.policy != "ppo-t+":
        return instructions, None
    reference = reference or task
    if planner is None and not (reads_goals(task.goal_objects) and reads_goals(reference.goal_objects)):
        raise ValueError(
            f"policy ppo-t+ needs a planner: {task.name} has no goals the built-in planners read (Task.goal_objects of "
            "craftext.goals.Goal); give --planner-url for a chat model's plans"
        )
    if planner is not None:
        steps = [planner(text) for text in task.texts]
    elif plans == "oracle":
        steps = [goal_plan(task.goal_objects[g]) for g in task.text_goal]
    else:
        gold = [goal_plan(reference.goal_objects[g]) for g in reference.text_goal]
        steps = RetrievalPlanner(reference.texts, gold, lambda texts: embed(encoder, texts, cache)).plan_all(task.texts)
    return instructions, embed(encoder, [plan_text(s) for s in steps], cache)


def make_train(config: PPOConfig, task: Task | None = None, progress: Callable[[dict], None] | None = None):
    """purejaxrl-style: ``train = make_train(config); jax.jit(train)(key)`` (several seeds:
    ``jax.jit(jax.vmap(train))(keys)``); ``progress`` as ``PPO``'s."""
    from baselines.worlds import make_task

    task = task or make_task(config.network.env_id)
    ppo = PPO(config, task, *tables(config.network, task, plans=config.planner), progress=progress)
    return ppo.train


def config_from_dict(values: dict, network: dict | None = None, where: str = "PPOConfig") -> PPOConfig:
    """A ``PPOConfig`` from a saved ``ppo`` section and ``network`` section (a section of 0.5.0 or
    before holds the network's fields itself); ValueError naming ``where`` and unknown fields."""
    own, flat = split_network(values)
    return trainer_config(PPOConfig, own, flat | (network or {}), where)


# ----------------------------------------------------------------------------- trained runs
@dataclass(frozen=True)
class TrainedRun:
    """What loading a run folder's trained policy takes from its ``config.json``: the ``kind`` of
    command that trained it (``ppo``, ``bc``, ``dagger``), its ``network``, training ``seed`` and,
    for PPO-T+, the built-in ``planner``."""

    kind: str
    network: NetworkConfig
    seed: int
    planner: str = "retrieval"


def trained_run(run: str | Path) -> TrainedRun:
    """The ``TrainedRun`` of a PPO, BC or DAgger run folder, of this release or an earlier one
    (``configs.saved_run``); ValueError naming the folder otherwise."""
    record, where = saved_run(run), str(Path(run) / "config.json")
    kind = record["kind"]
    if kind == "ppo":
        config = config_from_dict(record["ppo"], record["network"], where)
        return TrainedRun(kind, config.network, config.seed, config.planner)
    return TrainedRun(kind, NetworkConfig.from_dict(record["network"], where), int(record[kind].get("seed", 0)))


def load_params(run: str | Path, network: NetworkConfig, target) -> Any:
    """The trained params of BC or DAgger run folder ``run`` for a network of ``network``
    (``target``: params of the same structure); ValueError naming the run and each network setting
    that differs."""
    run = Path(run)
    if not (run / "config.json").is_file() or not (run / "params").is_dir():
        raise ValueError(f"--init-from {run}: not a behavioural-cloning run folder (needs config.json and params/)")
    saved = trained_run(run).network
    if saved != network:
        clash = [f"{name} {theirs!r} (this run: {mine!r})" for name, (theirs, mine) in saved.differences(network).items()]
        raise ValueError(f"--init-from {run}: the cloned network differs: " + "; ".join(clash))
    return restore_params(run, target)


def load_policy(run: str | Path, network: NetworkConfig, task: Task, instructions: Any, plans: Any = None) -> tuple[ActorCritic, Any]:
    """The network of ``network`` (``trained_run(run).network``) for ``task`` and the run's trained
    params; ``instructions`` / ``plans``: the (num_texts, E) embedding tables the network reads."""
    model = task_network(network, task)
    obs, _ = task.start(jax.random.key(0), jnp.int32(0), task.params)
    inputs = policy_inputs(task, instructions, plans, jax.tree.map(lambda x: x[None, None], obs), jnp.ones((1, 1), bool))
    target = jax.eval_shape(model.init, jax.random.key(0), model.initial_hidden(1), *inputs)  # shapes and dtypes only
    return model, trained_params(run, target)
