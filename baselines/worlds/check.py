"""``python -m baselines.worlds.check ID``: the world contract, run on any registered world.

Every point names the rule it checks; a failed point prints that rule and the check exits 1. It
runs on the suite's own worlds and on a world another distribution registers (``ID`` as the
registry knows it, a plugin's included), so a world author runs the same contract as the suite.

Points (the rule, then what is run; small sizes: 8 worlds, a few steps):

1. ``gymnax``: the family's ``make`` gives a gymnax ``Environment`` and params that subclass
   gymnax's ``EnvParams``; ``env.default_params``, ``env.reset(key)`` without params, ``name``,
   ``num_actions`` and ``action_space`` (its ``n``) work; ``discount(state, params)`` is 1 or 0
   (the world implements ``is_terminated``); the env offers the suite's ``EnvHooks``
   (``action_names``, ``action_mask``, ``render``).
2. ``pure``: ``jit(vmap(reset))`` and ``jit(vmap(step))`` run; the same keys give the same
   trajectory; the first world of a batch steps as it does alone.
3. ``spaces``: observations are inside ``observation_space(params)`` where the world declares one
   (a world without one is told, not failed: ``baselines.make(ID, flat=True)`` gives any world a ``Box``).
4. ``episode limit``: the family's task builder takes ``max_steps_in_episode=`` and an episode that
   does not end first is truncated at that step.
5. ``task``: ``Task.observe`` gives float32 world features, an instruction id into ``texts`` and a
   (num_actions,) bool mask with a feasible action; ``text_goal`` has a goal per text and every
   goal a ``key``; ``start(key, text, params)`` shows the instruction ``text`` (with
   ``Task.procedure``, the first text of its procedure).
6. ``relabel`` (where the task has one): the observation shows the given instruction and the same
   world features.
7. ``text view`` (where the env offers ``kg``): the graph's valid facts come first, in strictly
   increasing (subject, relation, object) order, inside the schema, with nothing past them; the
   ``summary`` and ``grid`` styles say something and ``triples`` a line per fact; ``valid_actions``
   is (num_actions,) bool.
8. ``expert`` (where the task has one): the env offers ``ExpertHooks`` (``expert_action``), and
   the task's expert gives an int32 action in range, under ``vmap``.

Assumed: episodes can be started for every text id; actions are ``0 .. num_actions - 1``. Not
assumed: that a fresh world has an infeasible action, or any reward scale.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from baselines.worlds import cli
from baselines.worlds.base import EnvHooks, ExpertHooks

NUM_ENVS, STEPS, LIMIT = 8, 4, 3


class ContractError(AssertionError):
    """A point of the contract that does not hold (the message says what)."""


@dataclass(frozen=True)
class Point:
    """One point of the contract: its name, the rule it checks and the check."""

    name: str
    rule: str
    check: Callable[[Any], None]


class Probe:
    """The world under check, built once and shared by the points: the family's env, params and
    task, and one batched random rollout."""

    def __init__(self, env_id: str):
        import jax

        from baselines.worlds import family_of, make_task, resolve

        self.env_id = resolve(env_id)
        self.family = family_of(self.env_id)
        self.env, self.params = self.family.make(self.env_id)
        self._task: Any = None
        self.keys = jax.random.split(jax.random.key(0), NUM_ENVS)
        self.make_task = make_task

    @property
    def task(self) -> Any:
        if self._task is None:
            self._task = self.make_task(self.env_id)
        return self._task

    def rollout(self, key_seed: int = 1) -> tuple:
        """(observations (STEPS + 1, N, ...), rewards, terminated, truncated) of N worlds under random actions."""
        import jax

        env, params = self.env, self.params

        @jax.jit
        def run(key):
            k_reset, k_act, k_step = jax.random.split(key, 3)
            obs, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(k_reset, NUM_ENVS), params)
            actions = jax.random.randint(k_act, (STEPS, NUM_ENVS), 0, env.num_actions)

            def body(state, xs):
                k, a = xs
                obs, state, reward, terminated, truncated, _ = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                    jax.random.split(k, NUM_ENVS), state, a, params
                )
                return state, (obs, reward, terminated, truncated)

            _, (seen, *rest) = jax.lax.scan(body, state, (jax.random.split(k_step, STEPS), actions))
            return (jax.tree.map(lambda first, later: jax.numpy.concatenate([first[None], later]), obs, seen), *rest)

        return run(jax.random.key(key_seed))


def _require(condition: Any, message: str) -> None:
    if not bool(condition):
        raise ContractError(message)


def _equal(a: Any, b: Any) -> bool:
    import jax
    import numpy as np

    def bits(x):
        return jax.random.key_data(x) if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key) else x

    return all(np.array_equal(np.asarray(bits(x)), np.asarray(bits(y))) for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)))


def check_gymnax(p: Probe) -> None:
    import jax
    from gymnax.environments import environment

    _require(isinstance(p.env, environment.Environment), f"the env is a {type(p.env).__name__}, not a gymnax Environment")
    _require(isinstance(p.params, environment.EnvParams), f"its params are a {type(p.params).__name__}, not a gymnax EnvParams")
    _require(isinstance(p.env.default_params, environment.EnvParams), "env.default_params is not a gymnax EnvParams")
    obs, state = p.env.reset(jax.random.key(0))
    _require(isinstance(p.env.name, str) and p.env.name, "env.name is not a name")
    _require(isinstance(p.env.num_actions, int) and p.env.num_actions > 0, f"env.num_actions is {p.env.num_actions!r}")
    _require(p.env.action_space(p.params).n == p.env.num_actions, "action_space(params).n differs from num_actions")
    discount = float(p.env.discount(state, p.env.default_params))
    _require(discount in (0.0, 1.0), f"discount of a fresh state is {discount}")
    missing = [name for name in ("action_names", "action_mask", "render") if not hasattr(p.env, name)]
    _require(isinstance(p.env, EnvHooks), f"the env lacks the suite's EnvHooks: {', '.join(missing) or 'see baselines.worlds.base'}")


def check_pure(p: Probe) -> None:
    import jax

    first, again = p.rollout(1), p.rollout(1)
    _require(_equal(first, again), "the same keys gave another trajectory")
    obs, state = jax.jit(jax.vmap(p.env.reset, in_axes=(0, None)))(p.keys, p.params)
    one = jax.jit(p.env.reset)(p.keys[0], p.params)
    _require(_equal(jax.tree.map(lambda x: x[0], (obs, state)), one), "the first world of a batch resets otherwise than alone")
    actions = jax.numpy.zeros(NUM_ENVS, jax.numpy.int32)
    batch = jax.jit(jax.vmap(p.env.step, in_axes=(0, 0, 0, None)))(p.keys, state, actions, p.params)
    alone = jax.jit(p.env.step)(p.keys[0], one[1], actions[0], p.params)
    _require(_equal(jax.tree.map(lambda x: x[0], batch), alone), "the first world of a batch steps otherwise than alone")


def check_spaces(p: Probe) -> None:
    import jax

    try:
        space = p.env.observation_space(p.params)
    except NotImplementedError:
        print(f"  note: {p.env_id} declares no observation_space (baselines.make(ID, flat=True) gives a Box)")
        return
    obs = p.rollout(2)[0]
    flat = jax.tree.map(lambda x: x.reshape((-1, *x.shape[2:])), obs)
    inside = jax.jit(jax.vmap(space.contains))(flat)
    _require(bool(inside.all()), f"{int((~inside).sum())} of {inside.size} observations are outside observation_space(params)")


def check_episode_limit(p: Probe) -> None:
    import jax
    import jax.numpy as jnp

    try:
        task = p.family.task(p.env_id, max_steps_in_episode=LIMIT)
    except TypeError as error:
        raise ContractError(f"the task builder does not take max_steps_in_episode=: {error}") from None
    _require(int(task.params.max_steps_in_episode) == LIMIT, "max_steps_in_episode= did not reach the task's params")
    env = task.env

    @jax.jit
    def run(keys):
        _, state = jax.vmap(env.reset, in_axes=(0, None))(keys, task.params)

        def body(state, k):
            step = jax.vmap(env.step_env, in_axes=(0, 0, 0, None))
            _, state, _, terminated, _ = step(jax.random.split(k, NUM_ENVS), state, jnp.zeros(NUM_ENVS, jnp.int32), task.params)
            return state, (terminated, jax.vmap(env.is_truncated, in_axes=(0, None))(state, task.params))

        return jax.lax.scan(body, state, jax.random.split(keys[0], LIMIT))[1]

    terminated, truncated = (jax.device_get(x) for x in run(p.keys))
    running = ~terminated.any(0)  # worlds whose episode did not end before the limit
    _require(not truncated[: LIMIT - 1].any(), f"an episode was truncated before step {LIMIT}")
    _require(truncated[LIMIT - 1][running].all(), f"an episode still running at step {LIMIT} was not truncated there")


def check_task(p: Probe) -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np

    task = p.task
    _require(len(task.texts) > 0 and len(task.text_goal) == len(task.texts), "text_goal needs one goal id per text of texts")
    _require(all(isinstance(g, dict) and "key" in g for g in task.goals), "every goal of Task.goals is a dict with a 'key'")
    _require(int(np.max(task.text_goal)) < len(task.goals), "text_goal names a goal past Task.goals")
    texts = jnp.arange(min(len(task.texts), NUM_ENVS))
    first = [task.procedure(int(t))[0] if task.procedure else int(t) for t in texts]  # a procedure shows its first text
    start = jax.jit(jax.vmap(task.start, in_axes=(0, 0, None)))
    obs, _ = start(p.keys[: len(texts)], texts, task.params)
    seen = jax.jit(jax.vmap(task.observe))(obs)
    _require(seen.world.dtype == jnp.float32, f"Observed.world is {seen.world.dtype}, not float32")
    _require(np.array_equal(np.asarray(seen.text), first), "start(key, text, params) does not show text (or its procedure's first)")
    _require(seen.mask.shape == (len(texts), task.num_actions) and seen.mask.dtype == jnp.bool_, "Observed.mask is not (num_actions,) bool")
    _require(bool(seen.mask.any(-1).all()), "a started episode has no feasible action")


def check_relabel(p: Probe) -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np

    task = p.task
    if task.relabel is None:
        print(f"  note: {p.env_id}'s task has no relabel: it is evaluated step by step without the blind control")
        return
    obs, _ = jax.jit(task.start)(p.keys[0], jnp.int32(0), task.params)
    other = len(task.texts) - 1
    shown = jax.jit(task.relabel)(obs, jnp.int32(other), task.params)
    before, after = task.observe(obs), task.observe(shown)
    _require(int(after.text) == other, "relabel(obs, text, params) does not show instruction text")
    _require(np.array_equal(np.asarray(before.world), np.asarray(after.world)), "relabel changed the world features")


def check_text_view(p: Probe) -> None:
    import jax
    import numpy as np

    from baselines.worlds.base import TextHooks

    env: Any = p.env
    if not isinstance(env, TextHooks):
        print(f"  note: {p.env_id} has no text view (TextHooks)")
        return
    _, state = jax.jit(jax.vmap(p.env.reset, in_axes=(0, None)))(p.keys, p.params)
    graphs = jax.device_get(jax.jit(jax.vmap(env.kg, in_axes=(0, None)))(state, p.params))
    entities, relations = len(env.kg_schema["entities"]), len(env.kg_schema["relations"])
    for i in range(NUM_ENVS):
        valid = np.asarray(graphs["valid"][i])
        _require((valid == (np.arange(valid.size) < valid.sum())).all(), "the graph's valid facts do not come first")
        s, r, o = (np.asarray(graphs[k][i]) for k in ("subject", "relation", "object"))
        key = (s * relations + r) * entities + o
        _require((np.diff(key[valid]) > 0).all(), "valid facts are not in strictly increasing (subject, relation, object) order")
        _require((o[valid] < entities).all() and (r[valid] < relations).all(), "a fact names an entity or relation outside kg_schema")
        _require(not (s[~valid].any() or r[~valid].any() or o[~valid].any()), "a fact past the valid ones is not zeros")
    one = jax.tree.map(lambda x: x[0], graphs)
    for style in ("summary", "grid"):
        _require(env.verbalise(one, style).strip(), f"verbalise(graph, {style!r}) is empty")
    lines = len(env.verbalise(one, "triples").splitlines())
    _require(lines == int(one["valid"].sum()), f"verbalise(graph, 'triples') has {lines} lines for {int(one['valid'].sum())} facts")
    valid_actions = jax.jit(env.valid_actions)(p.keys[0], jax.tree.map(lambda x: x[0], state), p.params)
    _require(valid_actions.shape == (p.env.num_actions,) and valid_actions.dtype == bool, "valid_actions is not (num_actions,) bool")


def check_expert(p: Probe) -> None:
    import jax
    import jax.numpy as jnp

    task = p.task
    if task.expert is None:
        print(f"  note: {p.env_id}'s task has no expert for its default episodes")
        return
    _require(isinstance(task.env, ExpertHooks), "the task has an expert but the env offers no expert_action (ExpertHooks)")
    _, state = jax.jit(jax.vmap(task.env.reset, in_axes=(0, None)))(p.keys, task.params)
    actions = jax.jit(jax.vmap(task.expert, in_axes=(0, None)))(state, task.params)
    _require(actions.dtype == jnp.int32 and actions.shape == (NUM_ENVS,), f"the expert's actions are {actions.dtype} {actions.shape}")
    _require(bool(((actions >= 0) & (actions < task.num_actions)).all()), "the expert chose an action out of range")


POINTS = (
    Point("gymnax", "a gymnax Environment with gymnax EnvParams, default_params, reset(key), discount, and EnvHooks", check_gymnax),
    Point("pure", "reset and step are pure, jit- and vmap-able: same keys, same trajectory; batched as alone", check_pure),
    Point("spaces", "every observation is inside observation_space(params)", check_spaces),
    Point("episode limit", "the task builder takes max_steps_in_episode= and truncates there", check_episode_limit),
    Point("task", "Task.observe: float32 features, an instruction id, a bool mask; start shows the text asked for", check_task),
    Point("relabel", "Task.relabel shows another instruction and keeps the world features", check_relabel),
    Point("text view", "kg: valid facts first, in canonical (subject, relation, object) order, inside the schema", check_text_view),
    Point("expert", "ExpertHooks, and Task.expert: an int32 action in range, vmappable", check_expert),
)
"""The contract, in the order it runs (module docstring)."""


def check(env_id: str) -> list[tuple[Point, str]]:
    """Run every point on ``env_id``, printing each point's outcome: the failed points with their
    messages (empty: the contract holds)."""
    try:
        probe = Probe(env_id)
    except Exception as error:  # a world that cannot even be made fails the first point
        return [(POINTS[0], f"{type(error).__name__}: {error}")]
    failed = []
    for point in POINTS:
        try:
            point.check(probe)
            print(f"ok    {point.name}", flush=True)
        except ContractError as error:
            failed.append((point, str(error)))
        except Exception as error:
            failed.append((point, f"{type(error).__name__}: {error} ({traceback.extract_tb(error.__traceback__)[-1].name})"))
        else:
            continue
        print(f"FAIL  {point.name}: {failed[-1][1]}\n      rule: {point.rule}", flush=True)
    return failed


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m baselines.worlds.check", description=__doc__.split("\n\n")[0])
    p.add_argument("ids", nargs="+", metavar="ID", help="registered world ids or aliases (a plugin's included)")
    cli.add_run_options(p)
    return p


def main(argv: list[str] | None = None) -> int:
    from baselines.worlds import UnknownWorldError, resolve

    args = cli.parse(parser(), argv)
    for env_id in args.ids:
        try:
            resolve(env_id)
        except UnknownWorldError as error:
            raise SystemExit(f"error: {error}") from None
    failures = 0
    for env_id in args.ids:
        print(f"{env_id}:", flush=True)
        failed = check(env_id)
        failures += len(failed)
        print(f"{env_id}: {len(POINTS) - len(failed)} of {len(POINTS)} points hold" + (f", {len(failed)} fail" if failed else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
