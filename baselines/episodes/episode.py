"""Moved to ``baselines.worlds.episode``; this name goes in 0.7.0 (``baselines.worlds.deprecation``)."""

from baselines.worlds.deprecation import moved_module

moved_module(__name__, "baselines.worlds.episode")
