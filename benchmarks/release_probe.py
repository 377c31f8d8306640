"""The throughput probe that ``benchmarks.history`` runs inside each release's source tree.

Run as ``python -c <this file's text> N REPEATS MODULE:FUNCTION:ENV_ID ...`` from the root of a
release's tree: it imports nothing of the suite but each world package's ``make`` (every release
has it), so the same probe measures every release. For each world: random actions through gymnax's auto-resetting
``vmap(env.step)`` for 64 steps in one ``lax.scan`` (the batched reset's own time subtracted),
``REPEATS`` timed calls after a warm-up. Prints one JSON line per world: median, min and max
steps/s.
"""

import importlib
import json
import statistics
import sys
import time

import jax

STEPS = 64


def measure(target: str, num_envs: int, repeats: int) -> dict:
    """Steps/s of ``num_envs`` worlds of ``target`` (``module:function:env_id``; the function makes
    ``(env, params)`` from the id)."""
    module, function, env_id = target.split(":", 2)
    env, params = getattr(importlib.import_module(module), function)(env_id)

    def reset(key):
        return jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(key, num_envs), params)

    def rollout(key):
        def body(carry, k):
            _, state = carry
            k_act, k_step = jax.random.split(k)
            actions = jax.random.randint(k_act, (num_envs,), 0, env.num_actions)
            obs, state, *_ = jax.vmap(env.step, in_axes=(0, 0, 0, None))(jax.random.split(k_step, num_envs), state, actions, params)
            return (obs, state), None

        return jax.lax.scan(body, reset(key), jax.random.split(key, STEPS))[0]

    timed = {}
    for name, fn in (("rollout", jax.jit(rollout)), ("reset", jax.jit(reset))):
        jax.block_until_ready(fn(jax.random.PRNGKey(0)))
        seconds = []
        for r in range(repeats):
            start = time.perf_counter()
            jax.block_until_ready(fn(jax.random.PRNGKey(r + 1)))
            seconds.append(time.perf_counter() - start)
        timed[name] = seconds
    reset_s = statistics.median(timed["reset"])
    rates = [num_envs * STEPS / max(t - reset_s, 1e-9) for t in timed["rollout"]]
    return {
        "world": env_id,
        "num_envs": num_envs,
        "steps_per_s_median": statistics.median(rates),
        "steps_per_s_min": min(rates),
        "steps_per_s_max": max(rates),
    }


if __name__ == "__main__":
    for target in sys.argv[3:]:
        try:
            row = measure(target, int(sys.argv[1]), int(sys.argv[2]))
        except Exception as error:  # a world this release lacks or cannot build: reported, the others still run
            row = {"world": target.split(":", 2)[-1], "error": f"{type(error).__name__}: {error}"}
        print(json.dumps(row), flush=True)
