"""Test-wide settings: the persistent JAX compilation cache every command uses
(``baselines.cli.compilation_cache``: ``~/.cache/instructworlds/jax``, or ``$INSTRUCTWORLDS_JAX_CACHE``),
so repeated runs skip recompiling."""

from baselines.cli import compilation_cache

compilation_cache()
