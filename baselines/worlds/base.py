"""What the suite knows of a world family, and the env hooks it may offer.

A ``WorldFamily`` is one registry entry: the env ids of a world package and everything the tools
need to use them without naming the world: how a split becomes a ``Task`` (``task``,
``episodes``), the world settings and their flags, the splits and the default evaluation splits,
aliases, how evaluation splits share one compilation (``shared_settings``), and each tool's
settings as typed facets: presets of the training command (``Presets``), evaluation protocols
(``Protocols``), the arena's questions (``Questions``), how the benchmarks run it (``Benchmark``,
``References``).

The hooks an env may offer beyond gymnax's ``Environment`` are declared as ``typing.Protocol``
classes; a tool asks ``isinstance(env, TextHooks)`` instead of probing attributes one by one, and
the contract command (``python -m baselines.worlds.check``) checks ``EnvHooks`` of every world and
``ExpertHooks`` of a world whose task has an expert.
Nothing here imports JAX: building a command's parser stays fast.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:
    from baselines.worlds.task import Task


@runtime_checkable
class EnvHooks(Protocol):
    """What every env of the suite offers beyond gymnax's ``Environment``: ``name``,
    ``num_actions``, ``action_names`` (num_actions,) readable names, ``action_mask(state, params)
    -> (num_actions,) bool`` (feasible actions) and ``render(state, params) -> (H, W, 3) uint8``."""

    name: str
    num_actions: int
    action_names: tuple[str, ...]

    def action_mask(self, state: Any, params: Any) -> Any: ...

    def render(self, state: Any, params: Any) -> Any: ...


@runtime_checkable
class TextHooks(Protocol):
    """A world with a text and knowledge-graph view (``baselines.textworld``, ``baselines.llm_agent``):
    ``manual`` (an intro paragraph, then (action pattern, description) pairs), ``kg_schema``,
    ``kg(state, params, scope) -> {"subject", "relation", "object": (K,) int32, "valid": (K,) bool,
    "overflow": () bool}``, ``verbalise(graph, style) -> str`` and ``valid_actions(key, state, params)
    -> (num_actions,) bool`` (the records' label: the actions that change the state, as far as
    the observation predicts it; each world documents its definition)."""

    manual: tuple
    kg_schema: dict

    def kg(self, state: Any, params: Any, scope: str = "observed") -> dict: ...

    def verbalise(self, graph: dict, style: str = "summary") -> str: ...

    def valid_actions(self, key: Any, state: Any, params: Any) -> Any: ...


@runtime_checkable
class ExpertHooks(Protocol):
    """A world with a gold next action in any state: ``expert_action(state, params) -> () int32``
    (pure and vmappable; imitation and scripted demonstrations)."""

    def expert_action(self, state: Any, params: Any) -> Any: ...


@runtime_checkable
class TargetHooks(Protocol):
    """A world with a picture of what the episode should reach: ``render_target(state, params) ->
    (H, W, 3) uint8`` (shown beside the world in videos and the browser player)."""

    def render_target(self, state: Any, params: Any) -> Any: ...


@runtime_checkable
class KeyboardHooks(Protocol):
    """A world played with keys in the browser: ``keys`` maps a key to (action, name)."""

    keys: dict[str, tuple[int, str]]


@runtime_checkable
class GridHooks(Protocol):
    """A world whose actions are (cell..., tool): ``action_axes`` names the cell axes,
    ``axis_origins`` what the world's text calls index 0 of each (the player labels cells the way
    instructions name them) and ``tools`` the per-cell actions (the browser player's tool picker);
    STOP may follow them."""

    action_axes: tuple[str, ...]
    axis_origins: tuple[int, ...]
    tools: tuple[str, ...]


@runtime_checkable
class TracedRender(Protocol):
    """A world whose ``render`` is traceable when ``render_is_traceable`` is true: videos render a
    whole episode in one jitted vmap."""

    render_is_traceable: bool


@dataclass(frozen=True)
class Questions:
    """What the arena asks raters about two episodes of a world (``baselines.arena``): ``direct``
    questions of each video and ``comparative`` ones of the pair, as ``(id, text)`` pairs."""

    direct: tuple[tuple[str, str], ...]
    comparative: tuple[tuple[str, str], ...]


PROGRESS = ("progress", "Which player made more progress towards what the instruction asks?")
EFFICIENCY = ("efficiency", "Which player reached its result with fewer wasted steps?")
IRRELEVANT = ("irrelevant", "Which player took fewer actions unrelated to the instruction?")
HUMAN_LIKE = ("human_like", "Which player seemed more human-like (rather than a bot)?")
"""Comparative questions that fit any world; a family's set draws on them."""


@dataclass(frozen=True)
class Setting:
    """A world setting: a key of the world spec (``baselines.worlds.world_spec``) and its flag
    (``--`` and the key with dashes). ``help`` says what it means for the family declaring it."""

    name: str
    default: Any
    help: str
    choices: tuple | None = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class Benchmark:
    """How ``python -m benchmarks`` runs a family: ``ids`` measured by default (None: all);
    ``reset_ratio``: optimistic resets (None: gymnax's auto-reset); ``max_cpu_envs``: the largest
    num_envs measured on a CPU; ``step_budget`` / ``max_steps``: env-steps per repeat and the
    longest scan; ``quick``: part of ``--quick`` runs; ``kg_envs``: num_envs of the text-view
    benchmark; ``profile_envs``: num_envs of ``benchmarks.profile`` (one size per world);
    ``scaling``: part of the device-scaling benchmark by default; ``host_timings``: run
    the host-side BAP scoring and simulator timings with it; ``published``: (world name, steps/s, who
    measured it on what) of published GPU figures at 1,024 envs, shown beside ``benchmarks.projection``."""

    ids: tuple[str, ...] | None = None
    reset_ratio: int | None = None
    max_cpu_envs: int | None = None
    step_budget: int = 2**20
    max_steps: int = 2048
    quick: bool = True
    kg_envs: int = 1024
    profile_envs: int = 16384
    scaling: bool = True
    host_timings: bool = False
    published: tuple[tuple[str, int, str], ...] = ()


@dataclass(frozen=True)
class Reference:
    """A world measured beside a family's for comparison only (not registered for training):
    ``make() -> (env, params)``, its ``Benchmark``, and the id it is compared with."""

    make: Callable[[], tuple[Any, Any]]
    benchmark: Benchmark
    compared_with: str


@dataclass(frozen=True)
class References:
    """Worlds ``python -m benchmarks`` measures beside the family's, for comparison: name -> ``Reference``."""

    named: Mapping[str, Reference]


@dataclass(frozen=True)
class Presets:
    """Named defaults of the training command ``python -m baselines --preset NAME``: name -> settings
    (flags' names, the world's ``env`` among them)."""

    named: Mapping[str, Mapping]


@dataclass(frozen=True)
class Protocols:
    """Evaluation protocols of ``python -m baselines.evaluate --protocol NAME`` besides the suite's:
    name -> ``about``, and ``unit``, ``episodes``, ``max_steps``, ``greedy``
    (``baselines.evaluate.evaluate_splits`` settings)."""

    named: Mapping[str, Mapping]


@dataclass(frozen=True)
class Evaluation:
    """How the commands that evaluate an agent treat the family's worlds: the ``splits`` evaluated
    by default, the order of the per-goal label groups in their tables (``group_order``) and
    ``shared_settings(list of episode lists) -> task settings`` under which several splits compile
    once (None: each split its own)."""

    splits: tuple[str, ...] = ("train", "test")
    group_order: tuple[str, ...] = ()
    shared_settings: Callable[[list], dict] | None = None


@dataclass(frozen=True)
class ExpertGap:
    """Why the family's scripted expert cannot play some episodes, for the tools that imitate it or
    record its demonstrations: ``why(episodes) -> str | None`` (None: it plays them all)."""

    why: Callable[[list], str | None]


F = TypeVar("F")
"""A facet type (``WorldFamily.facet``)."""


@dataclass(frozen=True, kw_only=True)
class WorldFamily:
    """One registry entry (module docstring): what identifies and builds a world.

    name: the family, the part of its ids before the first ``-``. ids: the package's registered
    ids, the first the default. make(env_id) -> (env, params) with the package's defaults.
    task(env_id, episodes=None, **settings) -> ``Task``. episodes(spec, split) -> (episodes, task
    settings) of one split of a world spec. splits: the split names. data_splits(spec) -> the
    splits the spec's data offers (a user's file may hold fewer), validating the file; raises
    ValueError naming file, line and field. settings: the spec keys the family reads. aliases:
    short names for ids. facets: each tool's settings for the family's worlds, one object of each
    facet type (``Evaluation``, ``ExpertGap``, ``Presets``, ``Protocols``, ``Questions``,
    ``Benchmark``, ``References``, or a tool's own); a tool reads its type with ``facet`` and uses
    its defaults where a family declares none.
    """

    name: str
    ids: tuple[str, ...]
    make: Callable[[str], tuple[Any, Any]]
    task: Callable[..., Task]
    episodes: Callable[[Mapping, str], tuple[list, dict]]
    splits: tuple[str, ...] = ("train", "dev", "test")
    data_splits: Callable[[Mapping], tuple[str, ...]] | None = None
    settings: tuple[Setting, ...] = ()
    aliases: Mapping[str, str] = field(default_factory=dict)
    facets: tuple[Any, ...] = ()

    def __post_init__(self):
        kinds = [type(f).__name__ for f in self.facets]
        twice = sorted({k for k in kinds if kinds.count(k) > 1})
        if twice:
            raise ValueError(f"world family {self.name}: one facet of each type, got {', '.join(twice)} twice")

    def facet(self, kind: type[F]) -> F | None:
        """The family's facet of type ``kind``, None where it declares none (the tool's defaults)."""
        return next((f for f in self.facets if isinstance(f, kind)), None)

    @property
    def evaluation(self) -> Evaluation:
        """The family's ``Evaluation`` facet, or the evaluation defaults."""
        return self.facet(Evaluation) or Evaluation()

    def expert_gap(self, episodes: list) -> str | None:
        """Why the family's expert cannot play ``episodes`` (its ``ExpertGap``), None if it can."""
        gap = self.facet(ExpertGap)
        return gap.why(episodes) if gap else None

    @property
    def default_id(self) -> str:
        return self.ids[0]

    def splits_of(self, spec: Mapping) -> tuple[str, ...]:
        """The splits ``spec``'s data offers (``data_splits``, else every split of the family)."""
        return self.data_splits(spec) if self.data_splits else self.splits


GENERATOR_SEEDS = {"train": 0, "dev": 1, "test": 2}
"""Generator seed of each split of built-in (generated) data."""
DATA_SIZE = Setting("data_size", 512, "procedures or items of generated data for train (other splits: a quarter)")
EPISODE_LIMIT = Setting("max_episode_steps", 500, "the episode limit of a run that gives none")
"""The default episode limit of the suite's worlds (a family that declares none gets its own
default params' ``max_steps_in_episode``: ``registry.episode_limit``)."""
"""The setting of families with generated data (``generated_size``)."""


def generated_size(spec: Mapping, split: str) -> int:
    """How many procedures or items of generated data a split gets: ``data_size`` for train, a
    quarter of it (at least one) for the others."""
    if split not in GENERATOR_SEEDS:
        raise ValueError(f"split {split!r}: generated data has {', '.join(GENERATOR_SEEDS)}")
    return spec["data_size"] if split == "train" else max(1, spec["data_size"] // 4)
