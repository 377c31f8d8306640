"""Settings of behavioural cloning (``BCConfig``), importable without JAX."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from baselines.ppo import PPOConfig

POLICIES = ("ppo-t", "film")
"""Policies BC trains (PPO-T+ also needs plans; clone PPO-T and give it plans with PPO)."""


@dataclass(frozen=True)
class BCConfig:
    """epochs: passes over the training episodes; batch_episodes: episodes per minibatch (fewer if
    there are fewer); validation: fraction of the episodes held out (at least one when > 0)."""

    policy: str = "ppo-t"
    encoder: str = "hashed"
    layer_size: int = 256
    factored_actions: bool = True
    world_encoder: str = "dense"
    placed_channel: bool = False
    lr: float = 1e-3
    max_grad_norm: float = 1.0
    epochs: int = 50
    batch_episodes: int = 32
    validation: float = 0.1
    seed: int = 0

    def validate(self) -> None:
        """Raise ValueError naming the bad field."""
        if self.policy not in POLICIES:
            raise ValueError(f"BCConfig.policy must be one of {', '.join(POLICIES)}, got {self.policy!r}")
        for name in ("layer_size", "epochs", "batch_episodes"):
            if getattr(self, name) < 1:
                raise ValueError(f"BCConfig.{name} must be >= 1, got {getattr(self, name)}")
        if not 0.0 <= self.validation < 1.0:
            raise ValueError(f"BCConfig.validation must be in [0, 1), got {self.validation}")
        for name in ("lr", "max_grad_norm"):
            if not math.isfinite(getattr(self, name)) or getattr(self, name) <= 0:
                raise ValueError(f"BCConfig.{name} must be a finite number > 0, got {getattr(self, name)}")

    def network_config(self, env_id: str) -> PPOConfig:
        """The ``PPOConfig`` of the same network (what PPO needs to continue from these params)."""
        from baselines.ppo import PPOConfig

        return PPOConfig(
            env_id=env_id,
            policy=self.policy,
            encoder=self.encoder,
            layer_size=self.layer_size,
            factored_actions=self.factored_actions,
            world_encoder=self.world_encoder,
            placed_channel=self.placed_channel,
            seed=self.seed,
        )
