"""Moved to ``baselines.worlds.replay`` (recording and exact replay of episode files belong to the
suite layer, beside the file format); this name keeps working for one release, with a
DeprecationWarning."""

import warnings

from baselines.worlds import replay as _moved

warnings.warn("baselines.episodes.replay moved to baselines.worlds.replay", DeprecationWarning, stacklevel=2)


def __getattr__(name: str):
    return getattr(_moved, name)
