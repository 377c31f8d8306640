"""Baselines for the suite's worlds: PPO-T, PPO-T+ and FiLM agents (PPO), behavioural cloning, the Builder models, evaluation, episodes."""

import importlib
import importlib.abc
import importlib.metadata
import importlib.util
import sys
import warnings

__distribution__ = "instructworlds"
"""The distribution this package comes from."""
try:
    __version__ = importlib.metadata.version(__distribution__)
except importlib.metadata.PackageNotFoundError:  # a source tree on the path, not installed
    __version__ = "0+unknown"


def make(env_id: str, flat: bool = False, **flat_options):
    """``(env, params)`` of any registered world id or alias (``craftext``, ``hexagons``,
    ``blocksworld``, or a world of another distribution), as ``gymnax.make``: the family's
    ``make`` with its package's defaults. ``flat=True``: the world as one float32 vector of its
    features and its instruction's text features, for other trainers (``baselines.flat``;
    ``legacy_step``, ``auto_reset``, ``final_observation``, ``encoder``). ``UnknownWorldError``
    names the close ids."""
    from baselines import worlds

    env_id = worlds.resolve(env_id)
    if flat:
        from baselines.flat import make_flat

        return make_flat(env_id, **flat_options)
    if flat_options:
        raise TypeError(f"{', '.join(sorted(flat_options))}: options of the flat view (flat=True)")
    return worlds.family_of(env_id).make(env_id)


def make_task(env_id: str, *args, **kwargs):
    """The ``baselines.worlds.Task`` of any registered world id or alias: what the agents read
    (``baselines.worlds.make_task``; extra arguments go to the family's task builder)."""
    from baselines import worlds

    return worlds.make_task(env_id, *args, **kwargs)


MOVED_MODULES = {
    "baselines.cli": "baselines.worlds.cli",
    "baselines.commands": "baselines.worlds.commands",
    "baselines.wrappers": "baselines.worlds.wrappers",
    "baselines.distributed": "baselines.worlds.distributed",
    "baselines.checkpoints": "baselines.worlds.checkpoints",
    "baselines.episodes.episode": "baselines.worlds.episode",
    "baselines.episodes.replay": "baselines.worlds.replay",
}
"""Modules that moved into the suite layer, ``baselines.worlds`` (old name -> new): the old names
keep working for one release, with a DeprecationWarning."""


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old name of ``MOVED_MODULES`` as a module whose every attribute is the new
    module's (the same objects); consulted after every other finder."""

    def find_spec(self, name, path=None, target=None):
        return importlib.util.spec_from_loader(name, self) if name in MOVED_MODULES else None

    def exec_module(self, module) -> None:
        new = MOVED_MODULES[module.__name__]
        warnings.warn(f"{module.__name__} moved to {new}; the old name goes in the next release", DeprecationWarning, stacklevel=2)
        moved = importlib.import_module(new)
        module.__doc__ = f"Moved to ``{new}``."
        module.__getattr__ = lambda name: getattr(moved, name)  # type: ignore[method-assign]
        module.__dir__ = lambda: dir(moved)  # type: ignore[method-assign]


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModules())
