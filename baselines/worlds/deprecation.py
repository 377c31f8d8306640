"""The suite's one deprecation policy: a moved module, a renamed flag or a replaced function keeps
working for one release, with a warning that names what replaces it and the release that removes
it (``REMOVAL``); then it goes. Every deprecation in ``baselines`` and ``benchmarks`` goes through
this module, so ``grep -rn deprecation`` lists them all.

- A moved module leaves a stub file at its old path that calls ``moved_module``: the old name is
  then the new module itself (``sys.modules``), so ``mock.patch`` and ``import *`` act on the same
  object, and the warning is given once, at the first import.
- A renamed flag is an entry of a command's ``RENAMED`` map, read by ``baselines.worlds.cli.parse``.
- A replaced function calls ``warn``.
"""

from __future__ import annotations

import importlib
import sys
import warnings

REMOVAL = "0.7.0"
"""The release that removes what the current one deprecates."""


def message(old: str, new: str) -> str:
    """``OLD is deprecated and goes in REMOVAL; use NEW``."""
    return f"{old} is deprecated and goes in {REMOVAL}; use {new}"


def warn(old: str, new: str, stacklevel: int = 3) -> None:
    """A DeprecationWarning with ``message``, pointing at the caller of the deprecated code."""
    warnings.warn(message(old, new), DeprecationWarning, stacklevel=stacklevel)


def moved_module(old: str, new: str) -> None:
    """Make module name ``old`` the module ``new`` (called by the stub at the old path, with its
    ``__name__``), warning once: the stub's code runs only at its first import."""
    warnings.warn(f"{old} moved to {new}: {message(old, new)}", DeprecationWarning, stacklevel=3)
    sys.modules[old] = importlib.import_module(new)
