"""Baselines for the suite's worlds: PPO-T, PPO-T+ and FiLM agents (PPO), behavioural cloning, the Builder models, evaluation, episodes."""

import importlib.metadata

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
