"""Settings of behavioural cloning (``BCConfig``), importable without JAX."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from baselines.configs import NetworkConfig, NetworkFieldsGiven

POLICIES = ("ppo-t", "film")
"""Policies BC trains (PPO-T+ also needs plans; clone PPO-T and give it plans with PPO)."""
NETWORK = NetworkConfig(layer_size=256)
"""The network BC and DAgger train by default (a GRU of 256; ``env_id`` is the world's)."""


@dataclass(frozen=True)
class BCConfig(NetworkFieldsGiven):
    """network: the policy network (``NetworkConfig``; its ``env_id`` is the demonstrations' world);
    epochs: passes over the training episodes; batch_episodes: episodes per minibatch (fewer if
    there are fewer); validation: fraction of the episodes held out (at least one when > 0)."""

    network: NetworkConfig = field(default_factory=lambda: NETWORK)
    lr: float = 1e-3
    max_grad_norm: float = 1.0
    epochs: int = 50
    batch_episodes: int = 32
    validation: float = 0.1
    seed: int = 0

    def validate(self) -> None:
        """Raise ValueError naming the bad field."""
        self.network.validate()
        if self.network.policy not in POLICIES:
            raise ValueError(f"NetworkConfig.policy must be one of {', '.join(POLICIES)} for cloning, got {self.network.policy!r}")
        for name in ("epochs", "batch_episodes"):
            if getattr(self, name) < 1:
                raise ValueError(f"BCConfig.{name} must be >= 1, got {getattr(self, name)}")
        if not 0.0 <= self.validation < 1.0:
            raise ValueError(f"BCConfig.validation must be in [0, 1), got {self.validation}")
        for name in ("lr", "max_grad_norm"):
            if not math.isfinite(getattr(self, name)) or getattr(self, name) <= 0:
                raise ValueError(f"BCConfig.{name} must be a finite number > 0, got {getattr(self, name)}")
