"""A trained policy playing a ``World`` one step at a time, so that its episodes are recorded by the
same compiled step that replays them (exact replay holds; a batched evaluator's worlds are not
bitwise the unbatched ones on XLA:CPU, see the README's behavioural-cloning section).

``PolicyAgent`` is the loader of the ``ppo``, ``bc`` and ``dagger`` agent kinds, an implementation
of the ``baselines.worlds.agents.Agent`` protocol (where ``load_agent`` finds a run's agent by its
kind). ``PolicyAgent(run, world)`` loads a run folder of ``python -m baselines.bc`` (``params/``), of
``baselines.bc.dagger`` or of ``python -m baselines`` (the latest checkpoint's params): PPO-T or FiLM, on the world's env id.
``reset(seed)`` starts an episode; ``act(obs, t)`` carries the policy's GRU state through it and
samples an action from a key of the agent's own (``fold_in(fold_in(key(seed), 2), t)``, apart
from the episode's keys), or takes the most likely one (``greedy``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

from baselines.ppo import load_policy, policy_inputs, tables, trained_run
from baselines.worlds.session import World


class PolicyAgent:
    """A trained policy acting in ``world`` (module docstring)."""

    def __init__(self, run: str | Path, world: World, greedy: bool = False):
        run = Path(run)
        network = trained_run(run).network
        if network.env_id != world.env_id:
            raise ValueError(f"{run}: trained on {network.env_id}, not {world.env_id}")
        if network.policy == "ppo-t+":
            raise ValueError(f"{run}: policy ppo-t+ needs plans; record PPO-T or FiLM agents")
        task = world.task
        self.name = f"{network.policy}:{run.name}"
        instructions = jnp.asarray(tables(network, task)[0], jnp.float32)
        self.network, self.params = load_policy(run, network, task, instructions)

        def step(params, hidden, obs, reset, key):
            inputs = policy_inputs(task, instructions, None, jax.tree.map(lambda x: x[None, None], obs), reset[None, None])
            hidden, pi, _ = self.network.apply(params, hidden, *inputs)
            logits = pi.logits[0, 0]
            return hidden, jnp.where(greedy, logits.argmax(), jax.random.categorical(key, logits))

        self._step = jax.jit(step)
        self.reset(0)

    def reset(self, seed: int) -> None:
        """The next ``act`` starts an episode of ``seed``."""
        self.hidden, self.first = self.network.initial_hidden(1), True
        self._root = jax.random.fold_in(jax.random.key(seed), 2)

    def act(self, obs: Any, t: int) -> int:
        """The action for observation ``obs`` at step ``t`` of the episode."""
        self.hidden, action = self._step(self.params, self.hidden, obs, jnp.bool_(self.first), jax.random.fold_in(self._root, t))
        self.first = False
        return int(action)


class Agent(PolicyAgent):
    """Deprecated name of ``PolicyAgent`` (it shadowed the ``Agent`` protocol); goes in 0.7.0."""

    def __init__(self, run: str | Path, world: World, greedy: bool = False):
        from baselines.worlds import deprecation

        deprecation.warn("baselines.episodes.agent.Agent", "baselines.episodes.agent.PolicyAgent")
        super().__init__(run, world, greedy)
