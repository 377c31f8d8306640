"""Moved to ``baselines.worlds.episode`` (the episode file format and its key rule belong to the
suite layer); this name keeps working for one release, with a DeprecationWarning."""

import warnings

from baselines.worlds import episode as _moved

warnings.warn("baselines.episodes.episode moved to baselines.worlds.episode", DeprecationWarning, stacklevel=2)


def __getattr__(name: str):
    return getattr(_moved, name)
