"""What a PPO run needs before it runs: one update compiled and analysed, nothing executed.

``plan(ppo)`` compiles the update the run repeats (``PPO.update``, its runner donated) and reads:

* **memory** from XLA's memory analysis of that program: arguments + outputs + temporaries -
  aliased (donated) bytes, ``device_memory_bytes``, the device memory one update needs;
* **cost per env-step** from XLA's cost analysis, world and learner apart: the world's batched
  step (``baselines.roofline.step_cost``) and the learner's work per env-step: the policy's two
  forward passes of a rollout step (acting, and the value of a truncated world's last
  observation), the expert's label when imitating, and ``update_epochs`` gradients of a sample,
  each analysed as a program of its own (XLA's cost analysis counts a loop's body once, so the
  whole update's figure would undercount);
* **control flow** from the update's optimised HLO: its conditionals and host callbacks (a
  conditional's predicate or a callback reaches the host and synchronises a GPU's stream).

Per GPU of ``baselines.roofline.GPUS``: whether the update fits in the share of memory JAX takes
(``MEMORY_FRACTION``), the roofline of world and learner together (steps/s: an upper bound from
bandwidth and FP32 peak, not a measurement) and the wall time of the run's steps at that rate.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp

from baselines.roofline import GPUS, MEMORY_FRACTION, step_cost

if TYPE_CHECKING:
    from baselines.ppo import PPO

HOST_CALLBACKS = ("xla_python_cpu_callback", "xla_ffi_python_cpu_callback", "xla_python_gpu_callback", "xla_ffi_python_gpu_callback")
"""Custom-call targets of JAX's host callbacks (``jax.debug.callback``, ``pure_callback``) in HLO."""


def compiled_update(ppo: PPO, runner: Any) -> jax.stages.Compiled:
    """``ppo.update`` compiled for ``runner`` (arrays or ``jax.ShapeDtypeStruct``), the runner donated."""
    return jax.jit(ppo.update, donate_argnums=0).lower(runner).compile()


def device_memory(compiled: jax.stages.Compiled) -> int:
    """Bytes of device memory a compiled program needs (XLA's memory analysis): arguments,
    outputs and temporaries, less what outputs reuse of donated arguments."""
    m = compiled.memory_analysis()
    return int(m.argument_size_in_bytes + m.output_size_in_bytes + m.temp_size_in_bytes - m.alias_size_in_bytes)


def control_flow(hlo: str) -> dict[str, int]:
    """Conditionals and host callbacks in an optimised HLO module's text."""
    return {
        "conditionals": len(re.findall(r"^\s*(?:ROOT )?%\S+ = .*? conditional\(", hlo, re.M)),
        "host_callbacks": sum(hlo.count(f'custom_call_target="{target}"') for target in HOST_CALLBACKS),
    }


def _cost(function, *args) -> dict[str, float]:
    """XLA's cost analysis of ``jax.jit(function)(*args)``: flops and bytes accessed."""
    cost = jax.jit(function).lower(*args).compile().cost_analysis()
    cost = cost[0] if isinstance(cost, (list, tuple)) else cost
    return {"flops": float(cost.get("flops", 0.0)), "bytes": float(cost.get("bytes accessed", 0.0))}


def learner_cost(ppo: PPO, runner: Any) -> dict[str, float]:
    """Flops and bytes per env-step of everything the update does besides the world's step:
    two forward passes of the policy over ``num_envs`` worlds per rollout step, the expert's
    labels when imitating, and ``update_epochs`` gradients of one micro-batch, per sample."""
    c = ppo.config
    step = jax.tree.map(lambda x: jax.ShapeDtypeStruct((1, *x.shape), x.dtype), (runner.obs, runner.reset))  # (1, num_envs, ...)
    forward = _cost(ppo._apply, runner.params, runner.hidden, *step)
    parts = {key: 2 * forward[key] / c.num_envs for key in forward}
    if c.imitation_coef:
        expert = _cost(ppo._expert, runner.env_state)
        parts = {key: parts[key] + expert[key] / c.num_envs for key in parts}
    envs = c.num_envs // c.num_minibatches // c.micro_batches  # one micro-batch: what one gradient pass holds
    samples = jax.eval_shape(lambda r: ppo._rollout(r)[1], runner)
    micro = jax.tree.map(lambda x: jax.ShapeDtypeStruct((x.shape[0], envs, *x.shape[2:]), x.dtype), samples)
    hidden = jax.ShapeDtypeStruct((envs, *runner.hidden.shape[1:]), runner.hidden.dtype)
    values = jax.ShapeDtypeStruct((c.num_steps, envs), jnp.float32)
    grad = _cost(jax.grad(ppo._loss, has_aux=True), runner.params, hidden, micro, values, values)
    return {key: parts[key] + c.update_epochs * grad[key] / (c.num_steps * envs) for key in parts}


def host_memory() -> int:
    """Bytes of physical memory of this machine (what a CPU device can use)."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def memory_limit(device: jax.Device) -> int:
    """Bytes a program may use on ``device``: the allocator's limit on a GPU, the host's memory on a CPU."""
    stats = device.memory_stats() if hasattr(device, "memory_stats") else None
    return int(stats["bytes_limit"]) if stats and "bytes_limit" in stats else host_memory()


def plan(ppo: PPO) -> tuple[dict, str]:
    """(the plan of ``ppo``'s run, the compiled update's optimised HLO); module docstring. Runs nothing."""
    c = ppo.config
    runner = jax.eval_shape(lambda: ppo.init(jax.random.key(0)))
    update = compiled_update(ppo, runner)
    hlo = update.as_text()
    memory = device_memory(update)
    world = step_cost(ppo.task.env, ppo.task.params, c.num_envs, getattr(ppo.env, "reset_ratio", None))
    learner = learner_cost(ppo, runner)
    total = {key: world[key] + learner[key] for key in world}
    gpus = {}
    for name, gpu in GPUS.items():
        seconds = max(total["bytes"] / gpu["bandwidth"], total["flops"] / gpu["flops"])
        rate = 1.0 / max(seconds, 1e-30)
        gpus[name] = {
            "fits": memory <= MEMORY_FRACTION * gpu["memory"],
            "steps_per_s": rate,
            "bound": "memory" if total["bytes"] / gpu["bandwidth"] >= total["flops"] / gpu["flops"] else "compute",
            "hours": c.num_updates * c.batch_size / rate / 3600,
        }
    device = jax.devices()[0]
    return {
        "device_memory_bytes": memory,
        "memory_analysis": {
            name: int(getattr(update.memory_analysis(), f"{name}_size_in_bytes")) for name in ("argument", "output", "temp", "alias")
        },
        "per_env_step": {"world": world, "learner": learner, "total": total},
        **control_flow(hlo),
        "gpus": gpus,
        "memory_fraction": MEMORY_FRACTION,
        "this_device": {"device": f"{device.platform}:{device.device_kind}", "memory_limit_bytes": memory_limit(device)},
        "settings": {
            "num_envs": c.num_envs,
            "num_steps": c.num_steps,
            "num_minibatches": c.num_minibatches,
            "micro_batches": c.micro_batches,
            "update_epochs": c.update_epochs,
            "total_steps": c.num_updates * c.batch_size,
        },
    }, hlo


def table(result: dict) -> str:
    """The plan as a short Markdown table: per GPU, whether one update fits and the projection."""
    gib = result["device_memory_bytes"] / 2**30
    per = result["per_env_step"]
    lines = [
        f"one update needs {gib:.2f} GiB of device memory (XLA memory analysis); per env-step the world "
        f"{per['world']['flops'] / 1e6:,.2f} MFLOP / {per['world']['bytes'] / 1e3:,.1f} kB, the learner "
        f"{per['learner']['flops'] / 1e6:,.1f} MFLOP / {per['learner']['bytes'] / 1e3:,.1f} kB; "
        f"{result['conditionals']} conditional(s), {result['host_callbacks']} host callback(s) in the update",
        "",
        f"| GPU | fits in {result['memory_fraction']:.0%} | roofline steps/s | hours for {result['settings']['total_steps']:,} steps |",
        "|---|---|---:|---:|",
    ]
    for name, gpu in result["gpus"].items():
        lines.append(f"| {name} | {'yes' if gpu['fits'] else 'no'} | {gpu['steps_per_s']:,.0f} ({gpu['bound']}) | {gpu['hours']:,.1f} |")
    return "\n".join(lines) + "\n"
