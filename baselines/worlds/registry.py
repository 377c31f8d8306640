"""The registry of the suite's worlds (re-exported by ``baselines.worlds``): the one place outside
the world packages that knows them.

Each world package registers its env ids (``REGISTERED_IDS``); each family module here
(``craftext``, ``hexagons``, ``blocksworld``) turns them into a ``WorldFamily`` with what the tools
need. Every command and tool asks this module: ``family_of(env_id)`` (an unknown id is one
``UnknownWorldError`` naming the close ones), ``make_task``, ``split_episodes`` / ``spec_task`` of a
world spec, ``add_world_arguments(parser)`` for the flags that choose a world, ``presets()``.
A world of this repository joins with one family module here; a world from another distribution
declares its ``WorldFamily`` under the entry-point group ``instructworlds.worlds``
(``[project.entry-points."instructworlds.worlds"] name = "package:FAMILY"``), which the registry
loads the first time it is asked; ``register(WorldFamily(...))`` adds one at run time and
``registered(family)`` for the length of a ``with`` block (see docs/extending.md).

A *world spec* is the dict of settings that chooses a world and its episodes: ``env``, every
family's settings (``--level``, ``--data``, ...) and ``max_episode_steps``; what a training run
saves and an episode file records to rebuild its world (``world_spec`` fills the defaults).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import difflib
import functools
import warnings
from collections.abc import Iterable, Iterator, Mapping
from importlib import metadata
from typing import TYPE_CHECKING, Any

from baselines.worlds.base import Presets, Setting, WorldFamily
from baselines.worlds.blocksworld import FAMILY as BLOCKSWORLD
from baselines.worlds.craftext import FAMILY as CRAFTEXT
from baselines.worlds.hexagons import FAMILY as HEXAGONS

if TYPE_CHECKING:
    from baselines.worlds.task import Task

ENTRY_POINTS = "instructworlds.worlds"
"""The entry-point group through which another distribution declares its ``WorldFamily``."""
_FAMILIES: list[WorldFamily] = [CRAFTEXT, HEXAGONS, BLOCKSWORLD]
_entry_points_loaded = False
DEFAULT_ENV = _FAMILIES[0].default_id
"""The world a command plays when none is named."""
MAX_EPISODE_STEPS = Setting("max_episode_steps", None, "episode limit (truncation)")
"""The one world setting every family shares; its default is each world's own (``episode_limit``)."""
SUITE_PACKAGE = "instructworlds"
"""The distribution of the suite's own families (a plugin family's is the one declaring it)."""
_PACKAGES: dict[str, str] = {}
"""Family name -> the distribution whose entry point declared it (plugins only)."""
_LEFT_OUT: dict[str, str] = {}
"""``package/ID`` of a plugin id left out for a clash -> the error that names both packages."""


class UnknownWorldError(ValueError):
    """An env id (or alias) the registry does not know; the message names the close ones."""


def _all() -> list[WorldFamily]:
    """The registered families, the installed distributions' (``ENTRY_POINTS``) loaded on the first
    call; one that fails to load or clashes is left out with a warning naming its entry point."""
    global _entry_points_loaded
    if not _entry_points_loaded:
        _entry_points_loaded = True
        for point in metadata.entry_points(group=ENTRY_POINTS):
            load_entry_point(point)
    return _FAMILIES


def load_entry_point(point: metadata.EntryPoint) -> None:
    """Register the ``WorldFamily`` an entry point of ``ENTRY_POINTS`` names, as its distribution's.
    One that fails to load, or whose id another package registered already, is left out with a
    warning naming both packages; its ``package/ID`` then says why when asked for."""
    dist = getattr(point, "dist", None)
    package = dist.name if dist is not None else point.value.split(":")[0].split(".")[0]
    family = None
    try:
        family = point.load()
        if not isinstance(family, WorldFamily):
            raise ValueError(f"it names a {type(family).__name__}, not a baselines.worlds.WorldFamily")
        register(family, package=package)
    except Exception as error:  # another distribution's bug must not stop every command
        if isinstance(family, WorldFamily):
            _LEFT_OUT.update({f"{package}/{i}": f"{package}/{i} is left out: {error}" for i in family.ids})
        warnings.warn(f"world entry point {point.name} = {point.value!r} of {package} left out: {error}", stacklevel=2)


def package_of(family: WorldFamily) -> str:
    """The distribution that declared ``family``: a plugin's, or the suite's own (``SUITE_PACKAGE``)."""
    return _PACKAGES.get(family.name, SUITE_PACKAGE)


def families() -> tuple[WorldFamily, ...]:
    """Every registered family, in registration order."""
    return tuple(_all())


def register(family: WorldFamily, package: str | None = None) -> None:
    """Add a family (``package``: the distribution declaring it, for a plugin; its ids are also
    ``package/ID``); ValueError naming both packages if one of its ids or aliases is taken, and if
    a preset is taken or one of its settings clashes with another family's setting of the same name
    (another default; each family's own episode limit aside)."""
    owners = {name: package_of(f) for f in _all() for name in (*f.ids, *f.aliases)}
    clash = sorted(owners.keys() & (set(family.ids) | set(family.aliases)))
    if clash:
        raise ValueError(f"family {family.name} of {package or SUITE_PACKAGE}: {clash[0]} is already registered, by {owners[clash[0]]}")
    clash = sorted(set(presets()) & set(presets_of(family)))
    if clash:
        raise ValueError(f"family {family.name}: preset(s) {', '.join(clash)} already registered")
    known = {s.name: s.default for f in _all() for s in f.settings if s.name != MAX_EPISODE_STEPS.name}
    for s in family.settings:
        if s.name in known and known[s.name] != s.default:
            raise ValueError(f"family {family.name}: setting {s.name} defaults to {s.default!r}, another family's to {known[s.name]!r}")
    _all().append(family)
    if package:
        _PACKAGES[family.name] = package


@contextlib.contextmanager
def registered(family: WorldFamily) -> Iterator[WorldFamily]:
    """``register(family)`` for the length of a ``with`` block (tests, examples)."""
    register(family)
    try:
        yield family
    finally:
        _FAMILIES.remove(family)
        _PACKAGES.pop(family.name, None)


def ids() -> tuple[str, ...]:
    """Every registered env id."""
    return tuple(i for f in _all() for i in f.ids)


def aliases() -> dict[str, str]:
    """Short names -> env ids (``craftext`` -> ``CrafText-Classic-Symbolic-v1``, ...), and a
    plugin's ids in its package's namespace (``corridor-world/Corridor-v1`` -> ``Corridor-v1``)."""
    named = {a: i for f in _all() for a, i in f.aliases.items()}
    return named | {f"{_PACKAGES[f.name]}/{i}": i for f in _all() if f.name in _PACKAGES for i in f.ids}


def find_family(env_id: str) -> WorldFamily | None:
    """The family of a registered id, or None."""
    return next((f for f in _all() if env_id in f.ids), None)


def resolve(name: str) -> str:
    """The env id of ``name`` (an id or an alias); ``UnknownWorldError`` naming the close ones."""
    if isinstance(name, str) and find_family(name) is not None:
        return name
    if isinstance(name, str) and name in aliases():
        return aliases()[name]
    if isinstance(name, str) and name in _LEFT_OUT:
        raise UnknownWorldError(_LEFT_OUT[name])
    known = [*ids(), *aliases()]
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.4) if isinstance(name, str) else []
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise UnknownWorldError(f"unknown env id {name!r}.{hint} Known: {', '.join(ids())} (aliases: {', '.join(aliases())})")


def family_of(env_id: str) -> WorldFamily:
    """The family of an env id or alias (``resolve``)."""
    env_id = resolve(env_id)
    return next(f for f in _all() if env_id in f.ids)


def episode_limit(env_id: str) -> int:
    """The episode limit of a world when none is given: its family's ``max_episode_steps``
    setting where it declares one (the suite's worlds: 500), else its own default params'
    ``max_steps_in_episode``."""
    family = family_of(env_id)
    declared = next((s.default for s in family.settings if s.name == MAX_EPISODE_STEPS.name), None)
    return int(declared) if declared is not None else _own_limit(resolve(env_id))


@functools.cache
def _own_limit(env_id: str) -> int:
    return int(family_of(env_id).make(env_id)[1].max_steps_in_episode)


def settings() -> dict[str, Setting]:
    """Every world setting by name, in spec order; a setting several families read carries their
    helps joined. The episode limit is ``MAX_EPISODE_STEPS`` (a family's own declaration of it
    only sets its default, ``episode_limit``)."""
    merged: dict[str, Setting] = {}
    for s in [s for f in _all() for s in f.settings if s.name != MAX_EPISODE_STEPS.name] + [MAX_EPISODE_STEPS]:
        old = merged.get(s.name)
        if old is None:
            merged[s.name] = s
        elif s.help not in old.help:
            merged[s.name] = dataclasses.replace(old, help=f"{old.help}; {s.help}")
    return merged


def spec_defaults() -> dict[str, Any]:
    """The world spec of the default world with every setting at its default (the episode limit
    None: each world's own, filled in by ``world_spec``)."""
    return {"env": DEFAULT_ENV, **{name: s.default for name, s in settings().items()}}


def world_spec(values: Mapping) -> dict[str, Any]:
    """The world-spec entries of ``values`` (defaults where absent or None, the episode limit the
    world's own, ``episode_limit``; other keys dropped)."""
    spec = {k: values.get(k, v) for k, v in spec_defaults().items()}
    if spec[MAX_EPISODE_STEPS.name] is None:
        spec[MAX_EPISODE_STEPS.name] = episode_limit(spec["env"])
    return spec


def check_spec(spec: Mapping, given: Iterable[str] = ()) -> None:
    """ValueError if a setting in ``given`` that ``spec``'s family does not read is set (away
    from its default): ``--data`` for CrafText, ``--goals-file`` for a grid world, ..."""
    family = family_of(spec["env"])
    own = {s.name for s in family.settings} | {"env", MAX_EPISODE_STEPS.name}
    defaults = spec_defaults()
    foreign = [name for name in given if name in defaults and name not in own and spec.get(name, defaults[name]) != defaults[name]]
    if foreign:
        theirs = ", ".join(s.flag for s in family.settings) or "none"
        raise ValueError(f"{Setting(foreign[0], None, '').flag} is not a setting of {spec['env']} (its world settings: {theirs})")


def check_splits(spec: Mapping, splits: Iterable[str], flag: str = "--split") -> None:
    """ValueError naming the first of ``splits`` that ``spec``'s data does not offer (as ``flag``),
    with the closest split it offers (``UnknownWorldError`` for an unknown id)."""
    spec = world_spec(spec)
    spec["env"] = resolve(spec["env"])
    offered = family_of(spec["env"]).splits_of(spec)
    for split in splits:
        if split not in offered:
            close = difflib.get_close_matches(split, offered, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(f"{flag} {split!r} is not a split of {spec['env']}'s data ({', '.join(offered)}){hint}")


def split_episodes(spec: Mapping, split: str) -> tuple[list, dict]:
    """(episodes, ``make_task`` settings) of one split of ``spec``'s world (the family's
    ``episodes``). Raises ValueError (``UnknownWorldError`` for an unknown id)."""
    check_splits(spec, [split])
    spec = world_spec(spec)
    spec["env"] = resolve(spec["env"])
    return family_of(spec["env"]).episodes(spec, split)


def spec_task(spec: Mapping, split: str | tuple[list, dict], **settings) -> Task:
    """The ``Task`` of ``spec``'s world on a split (a name, or what ``split_episodes`` returned)."""
    spec = world_spec(spec)
    episodes, world_settings = split_episodes(spec, split) if isinstance(split, str) else split
    return make_task(spec["env"], episodes, max_steps_in_episode=spec["max_episode_steps"], **world_settings, **settings)


def make_task(env_id: str, *args, **kwargs) -> Task:
    """The ``Task`` of any registered world id (extra arguments go to the family's task builder)."""
    env_id = resolve(env_id)
    return family_of(env_id).task(env_id, *args, **kwargs)


def eval_splits(spec: Mapping) -> tuple[str, ...]:
    """The splits evaluated by default: the family's evaluation splits that the spec's data
    offers (``WorldFamily.splits_of``, which validates a user's file). Raises ValueError, also
    when the data has no ``train`` split."""
    spec = world_spec(spec)
    family = family_of(spec["env"])
    present = family.splits_of(spec)
    if "train" not in present:
        given = ", ".join(f"{s.flag} {spec[s.name]}" for s in family.settings if spec[s.name] != s.default)
        raise ValueError(f"{given or spec['env']} has no train split")
    return tuple(s for s in family.evaluation.splits if s in present)


def presets_of(family: WorldFamily) -> Mapping[str, Mapping]:
    """The family's presets of ``python -m baselines`` (its ``Presets`` facet; none without one)."""
    found = family.facet(Presets)
    return found.named if found else {}


def presets() -> dict[str, dict]:
    """Named defaults of ``python -m baselines`` from every family (each names its world)."""
    return {name: {"env": f.default_id, **values} for f in _all() for name, values in presets_of(f).items()}


def add_world_arguments(
    parser: argparse.ArgumentParser, *, env_required: bool = False, split: bool = True, defaults: bool = True
) -> argparse._ArgumentGroup:
    """The flags that choose a world: ``--env``, ``--split`` (optional), every family's settings
    and ``--max-episode-steps``. ``defaults=False`` leaves unset flags None (a command that tells
    given flags from saved ones, such as ``--resume``)."""
    group = parser.add_argument_group("world", "which world and episodes (settings a world does not read are refused)")
    default_env = None if env_required or not defaults else DEFAULT_ENV
    group.add_argument(
        "--env",
        type=_env_id,
        required=env_required,
        default=default_env,
        metavar="ID",
        help=f"a registered world id or alias ({', '.join(ids())}; aliases {', '.join(aliases())})"
        + (f"; default {DEFAULT_ENV}" if not env_required else ""),
    )
    if split:
        named = "; ".join(f"{f.name}: {', '.join(f.splits)}" for f in _all())
        group.add_argument("--split", default="train" if defaults else None, help=f"the split ({named}; default train)")
    for s in settings().values():
        if s.name == MAX_EPISODE_STEPS.name:
            limits = ", ".join(f"{f.name} {next((x.default for x in f.settings if x.name == s.name), None) or 'its own'}" for f in _all())
            group.add_argument(s.flag, type=int, default=None, help=f"{s.help} (default: the world's own: {limits})")
            continue
        group.add_argument(
            s.flag,
            type=type(s.default),
            choices=s.choices,
            default=s.default if defaults else None,
            help=f"{s.help} (default {s.default!r})",
        )
    return group


def _env_id(name: str) -> str:
    """``resolve`` for argparse: the message of an unknown id reaches the user."""
    try:
        return resolve(name)
    except UnknownWorldError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def spec_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The world spec of parsed ``add_world_arguments`` flags (``check_spec`` applied to the
    settings given away from their defaults); ValueError names a setting the world does not read."""
    spec = world_spec({k: v for k, v in vars(args).items() if v is not None})
    check_spec(spec, [k for k in spec if k != "env"])
    return spec
