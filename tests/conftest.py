"""Test-wide settings: a persistent JAX compilation cache so repeated runs skip recompiling."""

import os
from pathlib import Path

import jax

jax.config.update(
    "jax_compilation_cache_dir",
    os.environ.get("INSTRUCTWORLDS_JAX_CACHE", str(Path.home() / ".cache" / "instructworlds" / "jax")),
)
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
