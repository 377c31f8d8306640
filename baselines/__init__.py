"""Baselines for the suite's worlds: PPO-T, PPO-T+ and FiLM agents (PPO), behavioural cloning, the Builder models, evaluation, episodes."""

import importlib.metadata

__distribution__ = "instructworlds"
"""The distribution this package comes from."""
try:
    __version__ = importlib.metadata.version(__distribution__)
except importlib.metadata.PackageNotFoundError:  # a source tree on the path, not installed
    __version__ = "0+unknown"
