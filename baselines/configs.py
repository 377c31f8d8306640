"""Run configurations, importable without JAX: ``NetworkConfig`` (what fixes a policy network's
parameters, shared by PPO, behavioural cloning and DAgger) and ``run_record``, the one schema of a
trainer's ``config.json``."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import KW_ONLY, InitVar, dataclass
from pathlib import Path
from typing import Any, TypeVar

POLICIES = ("ppo-t", "ppo-t+", "film")
"""PPO-T (GRU over world and instruction features), PPO-T+ (and an embedded plan), FiLM."""
WORLD_ENCODERS = ("dense", "conv")
"""How the world features are read: flat into dense layers, or the map through a small convolution."""


@dataclass(frozen=True)
class NetworkConfig:
    """The policy network of a run: its world (``env_id``), ``policy`` (``POLICIES``), frozen text
    ``encoder`` (``baselines.text_encoders``), GRU ``layer_size``, ``factored_actions`` (factored
    heads where the world's actions have a grid layout, ``Task.action_factors``), ``world_encoder``
    (``WORLD_ENCODERS``) and ``placed_channel`` (a channel of the cells the agent placed blocks in,
    ``Task.placed_cells``). Two runs whose configs are equal have parameters of the same structure:
    ``--init-from`` compares them with ``==``."""

    env_id: str = ""
    policy: str = "ppo-t"
    encoder: str = "hashed"
    layer_size: int = 512
    factored_actions: bool = True
    world_encoder: str = "dense"
    placed_channel: bool = False

    def validate(self) -> None:
        """Raise ValueError naming the bad field."""
        if self.policy not in POLICIES:
            raise ValueError(f"NetworkConfig.policy must be one of {', '.join(POLICIES)}, got {self.policy!r}")
        if self.world_encoder not in WORLD_ENCODERS:
            raise ValueError(f"NetworkConfig.world_encoder must be one of {', '.join(WORLD_ENCODERS)}, got {self.world_encoder!r}")
        if self.layer_size < 1:
            raise ValueError(f"NetworkConfig.layer_size must be >= 1, got {self.layer_size}")

    @classmethod
    def from_dict(cls, values: dict[str, Any], where: str) -> NetworkConfig:
        """The config of a saved ``network`` section (``where``: the file, for the error); a field it
        lacks (added since it was saved) takes its default, an unknown one is a ValueError."""
        return cls(**known_fields(cls, values, where))

    def differences(self, other: NetworkConfig) -> dict[str, tuple[Any, Any]]:
        """field -> (this config's value, ``other``'s) for each field that differs."""
        pairs = {f.name: (getattr(self, f.name), getattr(other, f.name)) for f in dataclasses.fields(self)}
        return {name: pair for name, pair in pairs.items() if pair[0] != pair[1]}


NETWORK_FIELDS = tuple(f.name for f in dataclasses.fields(NetworkConfig))
"""The fields of ``NetworkConfig``."""
C = TypeVar("C")
"""A trainer config type (``trainer_config``)."""


@dataclass(frozen=True)
class NetworkFieldsGiven:
    """Base of a trainer config holding a ``network``: for one release, ``NetworkConfig`` fields
    given to the config itself (``PPOConfig(env_id=..., layer_size=...)``, as in 0.5.0) replace
    those of its ``network``, with a deprecation warning. On the config they are keyword-only
    constructor arguments (reading one gives None); read them from ``config.network``."""

    _: KW_ONLY
    env_id: InitVar[str | None] = None
    policy: InitVar[str | None] = None
    encoder: InitVar[str | None] = None
    layer_size: InitVar[int | None] = None
    factored_actions: InitVar[bool | None] = None
    world_encoder: InitVar[str | None] = None
    placed_channel: InitVar[bool | None] = None

    def __post_init__(self, *flat: Any) -> None:
        given = {name: value for name, value in zip(NETWORK_FIELDS, flat) if value is not None}
        if given:
            from baselines.worlds import deprecation

            name = type(self).__name__
            deprecation.warn(f"{name}({', '.join(f'{k}=...' for k in given)})", f"{name}(network=NetworkConfig(...))", stacklevel=4)
            object.__setattr__(self, "network", dataclasses.replace(self.network, **given))  # type: ignore[attr-defined]


def known_fields(cls: Any, values: dict[str, Any], where: str) -> dict[str, Any]:
    """``values`` if every key is a field of dataclass ``cls``; ValueError naming the unknown ones
    and ``where`` otherwise."""
    unknown = sorted(set(values) - {f.name for f in dataclasses.fields(cls)})
    if unknown:
        raise ValueError(f"{where}: unknown {cls.__name__} field(s): {', '.join(unknown)}")
    return dict(values)


def split_network(section: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the trainer's own fields, the network's) of a trainer section; one of 0.5.0 or before held
    its network's fields itself."""
    own = {k: v for k, v in section.items() if k not in NETWORK_FIELDS}
    return own, {k: v for k, v in section.items() if k in NETWORK_FIELDS}


def trainer_config(cls: Callable[..., C], section: dict[str, Any], network: dict[str, Any], where: str) -> C:
    """A trainer config ``cls`` (holding a ``network``) from its saved section and ``network``
    section; a field added since they were saved takes its default, an unknown one is a ValueError
    naming ``where``."""
    return cls(**known_fields(cls, section, where), network=NetworkConfig.from_dict(network, where))


RENAMED_SETTINGS = {"total_steps": "total_timesteps", "imitation": "imitation_coef"}
"""Settings of a PPO run of 0.5.0 (its ``command``, a world's preset) since named as the
``PPOConfig`` fields they set, as their flags are (``--total-timesteps``, ``--imitation-coef``)."""
TRAINER_KINDS = ("ppo", "bc", "dagger")
"""The commands whose run folders hold a policy network (``python -m baselines``, ``baselines.bc``,
``baselines.bc.dagger``)."""


def run_record(
    kind: str,
    world: dict[str, Any],
    network: NetworkConfig,
    trainer: Any,
    run: dict[str, Any],
    evaluation: dict[str, Any],
    command_line: str,
) -> dict[str, Any]:
    """A trainer's ``config.json``, one schema for every kind of ``TRAINER_KINDS``: ``kind``;
    ``world``, the world settings (``baselines.worlds`` spec); ``network``; the trainer's own config
    (a dataclass holding ``network``) under its kind, without the network; ``run``, the command's
    other settings (a preset, the demonstrations, ``--init-from``, ...); ``evaluation``, what the
    run evaluates at its end; ``command_line``."""
    own = {k: v for k, v in dataclasses.asdict(trainer).items() if k != "network"}
    record = {"kind": kind, "world": world, "network": dataclasses.asdict(network), kind: own}
    return record | {"run": run, "evaluation": evaluation, "command_line": command_line}


def saved_run(run: str | Path) -> dict[str, Any]:
    """The ``config.json`` of a run folder of ``TRAINER_KINDS`` in the schema of ``run_record``,
    whichever release wrote it (a PPO run of 0.5.0 kept its world and flags in ``command`` and its
    network's fields in ``ppo``; a BC run its demonstrations at the top); ValueError naming the file
    otherwise."""
    path = Path(run) / "config.json"
    if not path.is_file():
        raise ValueError(f"{run}: not a run folder (no config.json)")
    saved = json.loads(path.read_text())
    kind = next((k for k in TRAINER_KINDS if isinstance(saved.get(k), dict)), None) if isinstance(saved, dict) else None
    if kind is None:
        raise ValueError(f"{path}: not the configuration of a {', '.join(TRAINER_KINDS)} run (none of these sections)")
    if "run" in saved:
        return saved
    own, flat = split_network(saved[kind])
    network = flat | saved.get("network", {})
    if kind == "ppo":
        from baselines.worlds import spec_defaults

        command = dict(saved.get("command", {}))
        world = {k: command.pop(k) for k in list(command) if k in spec_defaults()}
        world.setdefault("env", network.get("env_id", ""))  # the network's world where the command is cut short
        settings = {RENAMED_SETTINGS.get(k, k): v for k, v in command.items()}
    else:
        world = saved.get("world", {})
        settings = {k: saved[k] for k in ("demos", "episodes", "held_out", "init_from") if k in saved}
    moved = {*TRAINER_KINDS, "kind", "world", "network", "command", *settings}
    kept = {k: v for k, v in saved.items() if k not in moved}  # evaluation, command_line, an export's record
    return {"evaluation": {}, "command_line": ""} | kept | {"kind": kind, "world": world, "network": network, kind: own, "run": settings}
