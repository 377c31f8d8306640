"""A world's batched step projected to GPUs from XLA's cost analysis: a roofline bound, not a measurement.

XLA's cost analysis of the compiled batched step of ``num_envs`` worlds (``step_cost``) gives
flops and bytes accessed per env-step; on a GPU the step can go no faster than
``min(bandwidth / bytes, peak flops / flops)`` per second (``roofline``), with the published HBM
bandwidth and FP32 peak of V100, A100 and H100 boards (``GPUS``). It is an upper bound: the
analysis is of this machine's compilation (a GPU's fuses differently), "bytes accessed" counts
every operation's operands (caches make real traffic smaller), and launch overheads and control
flow are ignored. ``python -m benchmarks.projection`` tabulates it for every benchmark world;
``python -m baselines --paper`` prints it for the world it trains.
"""

from __future__ import annotations

from typing import Any

GPUS = {
    "V100 16GB": {"bandwidth": 900e9, "flops": 15.7e12, "memory": 16 * 2**30},
    "V100 32GB": {"bandwidth": 900e9, "flops": 15.7e12, "memory": 32 * 2**30},
    "A100 40GB": {"bandwidth": 1555e9, "flops": 19.5e12, "memory": 40 * 2**30},
    "A100 80GB": {"bandwidth": 2039e9, "flops": 19.5e12, "memory": 80 * 2**30},
    "H100 80GB": {"bandwidth": 3350e9, "flops": 66.9e12, "memory": 80 * 2**30},
}
"""GPU (SXM boards) -> HBM bandwidth (bytes/s), FP32 peak without tensor cores (flops/s) and memory
(bytes), from the vendors' data sheets."""
MEMORY_FRACTION = 0.75
"""The share of a GPU's memory JAX takes for its buffers by default (``XLA_PYTHON_CLIENT_MEM_FRACTION``)."""
PAPER_SCALE = 1e9 / (12 * 3600)
"""Steps/s that PPO at the paper's scale needs (1e9 steps in 12 hours)."""


def step_cost(env: Any, params: Any, num_envs: int, reset_ratio: int | None) -> dict[str, float]:
    """Flops and bytes accessed per env-step of the compiled batched step of ``num_envs`` worlds
    (``baselines.worlds.wrappers.batched_env``)."""
    import jax
    import jax.numpy as jnp

    from baselines.worlds.wrappers import batched_env

    reset, step = batched_env(env, num_envs, reset_ratio)
    _, state = jax.eval_shape(reset, jax.random.key(0), params)
    actions = jax.ShapeDtypeStruct((num_envs,), jnp.int32)
    cost = jax.jit(step).lower(jax.random.key(1), state, actions, params).compile().cost_analysis()
    cost = cost[0] if isinstance(cost, (list, tuple)) else cost
    return {"flops": float(cost.get("flops", 0.0)) / num_envs, "bytes": float(cost.get("bytes accessed", 0.0)) / num_envs}


def roofline(cost: dict[str, float]) -> dict[str, dict]:
    """GPU -> {steps_per_s, bound}: the smaller of the bandwidth and the compute bound."""
    out = {}
    for gpu, spec in GPUS.items():
        memory = spec["bandwidth"] / max(cost["bytes"], 1.0)
        compute = spec["flops"] / max(cost["flops"], 1.0)
        out[gpu] = {"steps_per_s": min(memory, compute), "bound": "memory" if memory <= compute else "compute"}
    return out


def projection_line(env: Any, params: Any, num_envs: int, reset_ratio: int | None) -> str:
    """One sentence: the roofline bound of the world's step on each GPU of ``GPUS`` at ``num_envs``
    worlds, beside what PPO at the paper's scale needs."""
    bounds = roofline(step_cost(env, params, num_envs, reset_ratio))
    each = ", ".join(f"{gpu} {b['steps_per_s']:,.0f} ({b['bound']})" for gpu, b in bounds.items())
    return (
        f"projection, not a measurement: the world's step alone at {num_envs:,} worlds is bound at {each} env-steps/s "
        f"(XLA cost analysis, roofline); PPO at the paper's scale (1e9 steps in 12 h) needs {PAPER_SCALE:,.0f} steps/s"
    )
