"""Train a PPO-T / PPO-T+ / FiLM agent, checkpoint it, and print the evaluation table.

    python -m baselines                                  # main job: the quick preset (PPO-T + imitation), 240k steps
    python -m baselines --preset grounding               # the same conflicting goal set, plain PPO, 2M steps
    python -m baselines --preset hexagons                # Hexagons single-tile instructions (factored heads, imitation)
    python -m baselines --preset blocks                  # blocks world: one block on a named square (BAP, imitation)
    python -m baselines --policy film --env CrafText-Classic-Pixels-v1 --paper   # Table 9 scale (GPU)
    python -m baselines --out runs/baselines/demo --resume                        # continue after a kill
    python -m baselines --preset hexagons --init-from runs/bc/hexagons            # PPO from a cloned policy (python -m baselines.bc)

The run folder (``--out``) holds ``config.json`` (every setting of the run), ``checkpoints/``
(orbax, every ``--checkpoint-every`` updates, the last 3 kept), ``metrics.jsonl`` (one line per
update), ``evaluation.{json,md}``, the pictures ``learning_curve.png`` and ``evaluation.png``
(``baselines.plots``) and, with ``--tensorboard``, event files. ``--resume`` takes every
setting from the folder (a flag that contradicts it is an error) and continues from the latest
readable checkpoint to exactly the saved budget. A folder that already holds a run is never
reused without ``--resume`` or ``--overwrite``. Nothing contacts the network unless
``--planner-url`` is given.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from baselines import worlds
from baselines.configs import RENAMED_SETTINGS
from baselines.worlds import cli, deprecation, distributed

if TYPE_CHECKING:
    from baselines.ppo import PPO, PPOConfig
    from baselines.worlds.checkpoints import Checkpoints
    from baselines.worlds.task import Task

DEFAULT_OUT = "runs/baselines/default"
CPU_QUICK = {"num_envs": 64, "num_steps": 64, "num_minibatches": 4, "layer_size": 256, "reset_ratio": 16}
"""PPO settings of every run but ``--paper`` (Craftax is fastest at ~64 envs on a 2-core CPU)."""
PAPER_MICRO_BATCHES = 16
"""Gradient micro-batches of ``--paper``: a minibatch of 128 worlds x 100 steps in parts of 8 worlds,
so that one update of any policy needs at most 12 GiB (``--plan``; the paper's batch is unchanged)."""
CPU_TOTAL_STEPS = 200_000
"""Environment steps of a run whose preset names none."""
DEFAULT_PRESET = "quick"
"""The main job's preset (``baselines.worlds.presets``: every family's named defaults)."""
RUN_DEFAULTS = {
    "preset": DEFAULT_PRESET,
    **worlds.spec_defaults(),
    "policy": "ppo-t",
    "encoder": None,
    "paper": False,
    "total_timesteps": None,
    "num_envs": None,
    "num_steps": None,
    "layer_size": None,
    "num_minibatches": None,
    "update_epochs": None,
    "micro_batches": None,
    "reset_ratio": None,
    "lr": None,
    "seed": None,
    "checkpoint_every": None,
    "planner": "retrieval",
    "planner_url": "",
    "planner_model": "gpt-4",
    "allow_insecure_http": False,
    "imitation_coef": 0.0,
    "imitation_only": False,
    "expert_play": 0.0,
    "init_from": "",
}
"""What a run is: saved in ``config.json`` and taken from it on ``--resume``."""
EVAL_DEFAULTS = {"eval_episodes": 8, "greedy": False, "eval_splits": [], "eval_batch": 256}
"""Evaluation settings (``--eval-episodes`` 8 per goal and split, as ``python -m baselines.bc``):
saved in ``config.json`` too (the splits as a list); ``--resume`` evaluates with the saved ones
unless a flag sets one."""


def split_names(value: str | list[str]) -> list[str]:
    """Split names from ``--eval-splits`` ("a,b"), a preset or a run saved before lists (a joined
    string), or a saved list."""
    return [s for s in value.split(",") if s] if isinstance(value, str) else list(value)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def settings(args: argparse.Namespace, prepare: bool = True) -> argparse.Namespace:
    """The run's settings: defaults and flags for a new run; the saved ones for ``--resume`` (a flag
    that contradicts them raises SystemExit naming it). ``out`` becomes the folder to use (with
    ``prepare`` False, a new run's folder is left alone and ``out`` is None)."""
    given = {k: v for k, v in vars(args).items() if v is not None}
    saved_evaluation = {}
    kind = "plan" if args.plan else "train"
    if args.plan and args.resume:
        raise SystemExit("error: --plan compiles the update of a new run's settings; it does not continue a run (drop --resume)")
    if args.resume:
        out = cli.prepare_out(args.out, kind="train", default=DEFAULT_OUT, overwrite=bool(args.overwrite), resume=True)
        from baselines.configs import saved_run

        if not (out / "config.json").is_file():
            raise SystemExit(f"error: --resume: {out / 'config.json'} does not exist, there is no run to continue")
        record = saved_run(out)
        saved, saved_evaluation = record["world"] | record["run"], record["evaluation"]
        run = {k: saved.get(k, v) for k, v in RUN_DEFAULTS.items()}
        clash = [f"{_flag(k)} {given[k]!r} (the run has {run[k]!r})" for k in RUN_DEFAULTS if k in given and given[k] != run[k]]
        if clash:
            raise SystemExit(
                f"error: --resume continues the run saved in {out} with its own settings; these flags contradict it: " + "; ".join(clash)
            )
    else:
        if prepare:  # a refusal before any loading
            cli.check_out(args.out, kind=kind, default=DEFAULT_OUT, overwrite=bool(args.overwrite), can_resume=not args.plan)
        if given.get("paper") and "preset" not in given:
            given["preset"] = "paper"
        run_preset = given.get("preset", _default_preset(given.get("env", RUN_DEFAULTS["env"])))
        preset = _preset(run_preset) if run_preset else {}
        run = {k: given.get(k, preset.get(k, v)) for k, v in RUN_DEFAULTS.items()}
        run["preset"] = run_preset
        if "goals_file" in given and "goals" not in given:
            run["goals"] = ""  # a preset's goal filter is for the shipped dataset
        chosen = [*given, *(preset if "preset" in given else ())]  # the default preset's settings are for its own world
        try:
            worlds.check_spec(run, chosen)
        except ValueError as error:
            raise SystemExit(f"error: {error}") from None
    if run["imitation_coef"]:
        family = worlds.family_of(run["env"])
        gap = family.expert_gap(_split(argparse.Namespace(**run), "train")[0])
        if gap and "imitation_coef" in chosen:
            raise SystemExit(f"error: --imitation-coef needs a world with an expert (--imitation-coef 0 trains without one); {gap}")
        if gap:  # the default preset imitates its own world's expert; other goals train without it
            print(f"--imitation-coef 0: {gap}", file=sys.stderr)
            run["imitation_coef"] = 0.0
    for name in ("checkpoint_every", "max_episode_steps", "data_size"):
        if run[name] is not None and run[name] < 1:
            raise SystemExit(f"error: {_flag(name)} must be >= 1, got {run[name]}")
    if run["max_episode_steps"] is None:  # the world's own
        run["max_episode_steps"] = worlds.episode_limit(run["env"])
    preset_evaluation = worlds.presets().get(run["preset"] or "", {})
    evaluation = {k: given.get(k, saved_evaluation.get(k, preset_evaluation.get(k, v))) for k, v in EVAL_DEFAULTS.items()}
    try:
        default_splits = worlds.eval_splits(run)  # also validates a user's data or goal file
        evaluation["eval_splits"] = split_names(evaluation["eval_splits"])
        if evaluation["eval_splits"]:  # before anything compiles, not after training
            worlds.check_splits(run, evaluation["eval_splits"], flag="--eval-splits")
    except ValueError as error:
        raise SystemExit(f"error: {error}") from None
    evaluation["eval_splits"] = evaluation["eval_splits"] or list(default_splits)
    for name in ("eval_episodes", "eval_batch"):
        if evaluation[name] < 1:
            raise SystemExit(f"error: {_flag(name)} must be >= 1, got {evaluation[name]}")
    if not args.resume:  # only once every setting is known good: --overwrite deletes
        try:
            _config(argparse.Namespace(**{**vars(args), **run})).validate()
        except ValueError as error:
            raise SystemExit(f"error: {_by_flag(str(error))}") from None
        out = None
        if prepare:
            out = cli.prepare_out(
                args.out,
                kind=kind,
                default=DEFAULT_OUT,
                overwrite=bool(args.overwrite),
                can_resume=not args.plan,
                owner=distributed.owner(),
            )
    return argparse.Namespace(**{**vars(args), **run, **evaluation, "out": out})


def _default_preset(env: str) -> str | None:
    """The preset a new run without ``--preset`` takes: the main job's on its own world, none on
    another (a world gets its own defaults, never another world's preset)."""
    return DEFAULT_PRESET if worlds.resolve(env) == worlds.presets()[DEFAULT_PRESET]["env"] else None


CONFIG_FLAGS = {"env_id": "--env"}
"""``PPOConfig`` and ``NetworkConfig`` fields whose flag is not the field's name with dashes: the
network's ``env_id`` is the registered id that ``--env`` (a world setting, an alias allowed)
resolves to."""
RENAMED = {_flag(old): _flag(new) for old, new in RENAMED_SETTINGS.items()}
"""Flags of 0.5.0 renamed as the ``PPOConfig`` fields they set (``cli.parse``)."""


def _preset(name: str) -> dict:
    """The settings of preset ``name``; SystemExit naming a setting the command does not have."""
    values = worlds.presets()[name]
    for old in RENAMED_SETTINGS.keys() & values.keys():
        deprecation.warn(f"preset {name}'s setting {old!r}", repr(RENAMED_SETTINGS[old]), stacklevel=2)
    values = {RENAMED_SETTINGS.get(k, k): v for k, v in values.items()}
    unknown = sorted(set(values) - set(RUN_DEFAULTS) - set(EVAL_DEFAULTS))
    if unknown:
        raise SystemExit(f"error: preset {name} sets {', '.join(unknown)}, not settings of python -m baselines")
    return values


def _by_flag(message: str) -> str:
    """A ``PPOConfig`` or ``NetworkConfig`` error with each field named by the flag that sets it
    (``PPOConfig.num_envs=3`` -> ``--num-envs 3``)."""

    def flag(match: re.Match) -> str:
        config, field, value = match.group(1), match.group(2), match.group(3)
        name = CONFIG_FLAGS.get(field, _flag(field)) if field in CONFIG_FLAGS or field in RUN_DEFAULTS else f"{config}.{field}"
        return f"{name} {value}" if value else name

    return re.sub(r"(PPOConfig|NetworkConfig)\.(\w+)(?:=(\S+))?", flag, message)


def _split(run, split: str) -> tuple[list, dict]:
    """(episodes, ``make_task`` settings) of one split of the run's world (``tasks.split_episodes``)."""
    try:
        return worlds.split_episodes(vars(run), split)
    except ValueError as error:
        raise SystemExit(f"error: {error}") from None


def _task(run, split: tuple[list, dict], **settings) -> Task:
    """The run's world on one ``_split``."""
    return worlds.spec_task(vars(run), split, **settings)


def _config(run) -> PPOConfig:
    from baselines.configs import NetworkConfig, saved_run
    from baselines.ppo import PPOConfig, config_from_dict

    if run.resume:
        record = saved_run(run.out)
        return config_from_dict(record["ppo"], record["network"], str(run.out / "config.json"))
    values = {"micro_batches": PAPER_MICRO_BATCHES} if run.paper else dict(CPU_QUICK, total_timesteps=CPU_TOTAL_STEPS)
    preset_layer = values.pop("layer_size", None)  # the CPU preset's; --paper: the network's default
    given = {"policy": run.policy, "encoder": run.encoder, "layer_size": preset_layer if run.layer_size is None else run.layer_size}
    network = NetworkConfig(env_id=run.env, **{k: v for k, v in given.items() if v is not None})
    overrides = {
        "seed": run.seed,
        "num_envs": run.num_envs,
        "num_steps": run.num_steps,
        "total_timesteps": run.total_timesteps,
        "num_minibatches": run.num_minibatches,
        "update_epochs": run.update_epochs,
        "micro_batches": run.micro_batches,
        "reset_ratio": run.reset_ratio,
        "lr": run.lr,
        "planner": run.planner,
        "imitation_coef": run.imitation_coef,
        "imitation_only": run.imitation_only,
        "expert_play": run.expert_play,
    }
    values.update({k: v for k, v in overrides.items() if v is not None})
    return PPOConfig(network=network, **values)


class UpdateBar:
    """The progress bar of a training run, fed by ``PPO``'s host callback with each update's
    metrics: updates with rate and ETA, env-steps/s, return, success and entropy."""

    def __init__(self, total: int):
        self.bar = cli.Bar(total, "update", "PPO")
        self.last = (time.perf_counter(), 0.0)

    def __call__(self, metrics: dict) -> None:
        import numpy as np

        m = {k: np.asarray(v).mean() for k, v in metrics.items()}
        (then, steps_then), now = self.last, time.perf_counter()
        self.last = (now, m["env_steps"])
        sps = (m["env_steps"] - steps_then) / max(now - then, 1e-9)  # the first report includes compilation
        self.bar.advance(
            int(m["update"]),
            f"steps {int(m['env_steps']):,}  SPS {sps:,.0f}  return {m['return']:.3f}  "
            f"success {m['success_rate']:.3f}  entropy {m['entropy']:.3f}",
        )

    def close(self) -> None:
        self.bar.close()


def train(args: argparse.Namespace) -> None:
    import jax
    import numpy as np

    from baselines.configs import run_record
    from baselines.ppo import PPO, tables
    from baselines.worlds.checkpoints import RunFolder

    run = settings(args)
    lead = jax.process_index() == 0  # files and progress come from process 0
    out = run.out
    config = _config(run)
    config.validate()
    if lead:
        _announce(run, config)
    train_split = _split(run, "train")
    task = _task(run, train_split)
    bar = UpdateBar(config.num_updates) if lead and not cli.quiet(run.quiet) and not run.plan else None
    try:
        ppo = PPO(config, task, *tables(config.network, task, planner=_planner(run), plans=config.planner), progress=bar)
    except ValueError as error:
        raise SystemExit(f"error: {error}") from None
    if run.plan:
        return _plan(run, ppo)
    folder = RunFolder(out, run.resume, lead)
    world = {k: getattr(run, k) for k in worlds.spec_defaults()}
    others = {k: getattr(run, k) for k in RUN_DEFAULTS if k not in world}
    evaluation = {k: getattr(run, k) for k in EVAL_DEFAULTS}
    folder.write_config(run_record("ppo", world, config.network, config, others, evaluation, args.command_line))
    print(
        f"{task.name}: {len(task.goals)} training goals, {sum(map(bool, task.texts))} instruction texts; policy {config.network.policy}, "
        f"{config.num_envs} envs x {config.num_steps} steps, {config.num_updates} updates, {jax.device_count()} devices "
        f"({jax.process_count()} processes): {jax.devices()}",
        flush=True,
    )
    checkpoints = folder.checkpoints(keep=3)
    runner, chunk, every = _runner(run, config, ppo, checkpoints, lead)
    writer = _tensorboard(out) if run.tensorboard and lead else None
    timing = run.paper  # a long run: its first two updates run one at a time; the second's time gives the expected time
    first = int(runner.update)
    start = time.perf_counter()
    stopped = None
    resumed_at = first if run.resume else None
    with folder.metrics("update", resumed_at) as log, distributed.StopSignals() as stop:
        while (done := int(runner.update)) < config.num_updates:
            count = 1 if timing else min(every, config.num_updates - done)
            began = time.perf_counter()
            runner, metrics = jax.block_until_ready(chunk(runner, np.int32(count)))  # the runner's buffers are donated
            if timing and done > first:
                timing = False
                _print_expected_time(config, time.perf_counter() - began, done + 1)
                if lead:
                    from baselines.roofline import projection_line

                    print(projection_line(task.env, task.params, config.num_envs, getattr(ppo.env, "reset_ratio", None)), flush=True)
            for i in range(count):
                row = {k: float(np.asarray(v)[i]) for k, v in metrics.items()}
                log(row)
                if writer:
                    for k, v in row.items():
                        writer.add_scalar(f"train/{k}", v, int(row["env_steps"]))
            checkpoints.save(int(runner.update), runner)
            checkpoints.wait()  # written before the next chunk takes over the runner's buffers
            if stopped := stop():  # at a chunk boundary, with its checkpoint saved
                break
    checkpoints.close()
    if bar:
        bar.close()
    if stopped:
        out = folder.finish()  # a checkpointed run that --resume continues takes the folder's place
        raise SystemExit(
            f"{stopped}: stopped at update {int(runner.update)}/{config.num_updates}, checkpoint saved in {out / 'checkpoints'}; "
            f"continue with: python -m baselines --out {out} --resume"
        )
    elapsed = time.perf_counter() - start
    print(
        f"trained to update {int(runner.update)}/{config.num_updates} ({config.num_updates * config.batch_size:,} steps) "
        f"in {elapsed:.0f} s this session (compilation included)",
        flush=True,
    )
    _evaluate(run, config, ppo, runner.params, writer, train_split)


def _runner(run, config: PPOConfig, ppo: PPO, checkpoints: Checkpoints, lead: bool):
    """(runner, the compiled chunk of updates, updates per chunk): the run's first runner (the
    policy of ``--init-from``) or, with ``--resume``, its latest readable checkpoint; the chunk
    compiled and checked to fit the device, every process past it together."""
    import jax
    import numpy as np

    from baselines.ppo import released_runner, runner_of

    every = min(run.checkpoint_every or max(10, config.num_updates // 100), config.num_updates)
    what = f"{every} PPO updates ({ppo.task.name} {config.network.policy}, {config.num_envs} envs x {config.num_steps} steps)"
    with cli.compiling(what, silent=run.quiet or not lead):  # the worlds' first states, then the training program
        runner = jax.jit(lambda seed: ppo.init(jax.random.key(seed)))(np.uint32(config.seed))  # global arrays on every process
        chunk = ppo.compiled_updates(runner, every)
    _check_fits(chunk, config)
    distributed.barrier(f"compiled {what}")  # the processes start the chunk's collectives together
    if run.init_from and not run.resume:
        from baselines.ppo import load_params

        try:
            runner = runner.replace(params=load_params(run.init_from, config.network, runner.params))
        except ValueError as error:
            raise SystemExit(f"error: {error}") from None
        print(f"policy initialised from the cloned one in {run.init_from}", flush=True)
    if run.resume:
        try:  # a run of 0.5.0 saved its runner's reset flags as done
            found = checkpoints.latest(runner, released_runner(runner), set_aside=lead)  # one process sets an unreadable step aside
        except ValueError as error:
            raise SystemExit(f"error: --resume: {error}") from None
        if found is None:
            raise SystemExit(f"error: --resume: no checkpoint in {checkpoints.folder}")
        runner = runner_of(found[2])
        print(f"resumed from {checkpoints.folder} at update {int(runner.update)}", flush=True)
    return runner, chunk, every


def learner(argv: list[str]) -> PPO:
    """The PPO learner ``python -m baselines ARGV`` would train (its world, text tables and
    settings), built without a run folder: for tools that plan or measure a run."""
    from baselines.ppo import PPO, tables

    run = settings(cli.parse(parser(), argv, RENAMED), prepare=False)
    config = _config(run)
    task = _task(run, _split(run, "train"))
    try:
        return PPO(config, task, *tables(config.network, task, planner=_planner(run), plans=config.planner))
    except ValueError as error:
        raise SystemExit(f"error: {error}") from None


def _check_fits(chunk, config: PPOConfig) -> None:
    """SystemExit naming the flags that would fix it, if the compiled chunk needs more memory than
    the device has (XLA's memory analysis against the allocator's limit, or the host's memory on a CPU)."""
    import jax

    from baselines.plan import device_memory, memory_limit

    device = jax.local_devices()[0]  # one this process can query (in a multi-process run, not process 0's)
    need, limit = device_memory(chunk), memory_limit(device)
    if need > limit:
        envs = config.num_envs // config.num_minibatches
        raise SystemExit(
            f"error: one chunk of updates needs {need / 2**30:.1f} GiB of device memory and {device} has "
            f"{limit / 2**30:.1f} GiB: raise --micro-batches (now {config.micro_batches}; a divisor of the {envs} worlds of a "
            f"minibatch) or lower --num-envs (python -m baselines ... --plan tells what fits)"
        )


def _plan(run, ppo: PPO) -> None:
    """``--plan``: ``plan.json`` and ``update.hlo.txt`` in the run folder, and the plan's table."""
    from baselines import plan

    with cli.compiling(f"one update to plan ({ppo.task.name} {ppo.config.network.policy}, {ppo.config.num_envs} envs)", silent=run.quiet):
        result, hlo = plan.plan(ppo)
    result["command_line"] = run.command_line
    cli.write_atomic(run.out / "plan.json", json.dumps(result, indent=1))
    cli.write_atomic(run.out / "update.hlo.txt", hlo)
    out = cli.finish_out(run.out)
    print(plan.table(result) + f"\nwrote {out / 'plan.json'} and {out / 'update.hlo.txt'}", flush=True)


def _announce(run, config: PPOConfig) -> None:
    """The first line of a run: what trains, where it goes, and what comes before the progress bar."""
    imitation = " + imitation" if config.imitation_coef else ""
    policy = config.network.policy
    if run.plan:
        print(
            f"planning {policy}{imitation} on {run.env} ({_preset_words(run)}) into {run.out}: one update of "
            f"{config.num_envs} worlds x {config.num_steps} steps compiled and analysed, nothing run",
            flush=True,
        )
        return
    print(
        f"{'continuing' if run.resume else 'training'} {policy}{imitation} on {run.env} ({_preset_words(run)}) into {run.out}: "
        f"{config.total_timesteps:,} steps, {config.num_updates} updates of {config.num_envs} worlds x {config.num_steps} steps. "
        f"Next: build the worlds, compile the training program (announced with its expected time), train with a progress bar, "
        f"then evaluate on {', '.join(run.eval_splits)}",
        flush=True,
    )


def _preset_words(run) -> str:
    return f"preset {run.preset}" if run.preset else "no preset: the world's own defaults"


def _print_expected_time(config: PPOConfig, seconds_per_update: float, done: int) -> None:
    """The throughput of a measured (compiled) chunk and the wall time the rest of the run needs."""
    import jax

    rate = config.batch_size / seconds_per_update
    left = (config.num_updates - done) * seconds_per_update
    duration = f"{left / 3600:.1f} h" if left >= 3600 else f"{left / 60:.1f} min"
    print(
        f"measured {rate:,.0f} steps/s after compilation on {jax.devices()[0].platform}: the remaining "
        f"{config.num_updates - done:,} updates ({(config.num_updates - done) * config.batch_size:,} steps) take about "
        f"{duration} (evaluation not included)",
        flush=True,
    )


def _evaluate(run, config: PPOConfig, ppo: PPO, params, writer, train_split: tuple[list, dict]) -> None:
    """Three policies (the agent, the agent shown another instruction, uniform random) on every evaluation split
    (``train_split``: the ``_split`` trained on, not loaded again)."""
    import jax

    from baselines import evaluate

    splits = {split: train_split if split == "train" else _split(run, split) for split in run.eval_splits}
    results = evaluate.evaluate_splits(
        vars(run),
        splits,
        ppo.task,
        ppo.network,
        params,
        config.network,
        config.seed,
        run.eval_episodes,
        run.max_episode_steps,
        greedy=run.greedy,
        planner=_planner(run),
        plans=config.planner,
        batch=run.eval_batch,
        quiet=run.quiet or jax.process_index() > 0,
    )
    if writer:
        for split, by_policy in results.items():
            for policy, summary in by_policy.items():
                writer.add_scalar(f"{split}/{policy}/success_rate", summary["success"], config.num_updates)
    plans = ""
    if config.network.policy == "ppo-t+":
        plans = f", {'chat' if run.planner_url else config.planner} plans" + (
            " (gold goal: not a fair result)" if config.planner == "oracle" and not run.planner_url else ""
        )
    imitation = f" + imitation {config.imitation_coef:g}" if config.imitation_coef else ""
    if config.imitation_only:
        imitation = f", DAgger (expert play {config.expert_play:g})"
    cloned = " from BC" if run.init_from else ""
    mode = "greedy" if run.greedy else "sample"
    labels = {"agent": f"agent ({config.network.policy}{cloned}{imitation}{plans}, {mode})"}
    meta = {
        **worlds.world_spec(vars(run)),  # every setting of the world, a plugin's own included
        "policy": config.network.policy,
        "planner": (run.planner_url or config.planner) if config.network.policy == "ppo-t+" else None,
        "success_metric": ppo.task.metrics[0],
        "imitation_coef": config.imitation_coef,
        "imitation_only": config.imitation_only,
        "expert_play": config.expert_play,
        "init_from": run.init_from,
        "episodes_per_goal": run.eval_episodes,
        "max_steps": run.max_episode_steps,
        "eval_mode": mode,
        "seed": config.seed,
        "total_steps": config.total_timesteps,
        "command": json.loads((run.out / "config.json").read_text()).get("command_line", run.command_line),
        "device": str(jax.devices()[0]),
        "jax": jax.__version__,
    }
    if jax.process_index() > 0:
        return
    print("\n" + evaluate.save(results, run.out, meta, labels, worlds.family_of(run.env).evaluation.group_order))
    from baselines import plots

    print(plots.finish_run(run.out, plots.learning_curve), flush=True)


def _planner(run):
    """The chat-endpoint planner when ``--planner-url`` is given, else None (built-in planner)."""
    if not run.planner_url:
        return None
    from baselines.planner import ChatPlanner

    return ChatPlanner(
        run.planner_url, run.planner_model, api_key=os.environ.get("OPENAI_API_KEY"), allow_insecure_http=run.allow_insecure_http
    )


def _tensorboard(out: Path):
    try:
        from tensorboardX import SummaryWriter
    except ImportError:
        raise SystemExit("--tensorboard needs tensorboardX: pip install 'instructworlds[tensorboard]'") from None
    return SummaryWriter(str(out / "tensorboard"))


def _finite_float(text: str, zero_allowed: bool) -> float:
    value = float(text)
    if not math.isfinite(value) or value < 0 or (value == 0 and not zero_allowed):
        raise argparse.ArgumentTypeError(f"must be a finite number {'>= 0' if zero_allowed else '> 0'}, got {text}")
    return value


def _positive_float(text: str) -> float:
    return _finite_float(text, zero_allowed=False)


def _non_negative_float(text: str) -> float:
    return _finite_float(text, zero_allowed=True)


def parser() -> argparse.ArgumentParser:
    """The command line; run settings default to None so that ``--resume`` can tell what was given."""
    d = {**RUN_DEFAULTS, **EVAL_DEFAULTS}
    presets = worlds.presets()
    p = argparse.ArgumentParser(prog="python -m baselines", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--preset",
        choices=tuple(presets),
        help="named defaults: "
        + "; ".join(f"{n} ({v['env']})" for n, v in presets.items())
        + f" (default {DEFAULT_PRESET}, the main job, on its world; none on another world: its own defaults)",
    )
    worlds.add_world_arguments(p, split=False, defaults=False)
    p.add_argument("--policy", choices=("ppo-t", "ppo-t+", "film"), help="default ppo-t")
    p.add_argument("--encoder", help="frozen text encoder: hashed (512-d, the default), hashed-<dim> (--paper: hashed-768) or minilm")
    p.add_argument(
        "--paper",
        action="store_true",
        default=None,
        help="the paper's setup (preset paper): Table 9 scale (1024 envs x 100 steps, 1e9 steps), Classic pixels, medium level, "
        "10,000-step episodes, 768-d encoder, 50 evaluation episodes per instruction; prints the expected wall time",
    )
    budgets = ", ".join(f"{name} {values['total_timesteps']:,}" for name, values in presets.items() if values.get("total_timesteps"))
    p.add_argument(
        "--total-timesteps",
        type=int,
        help=f"environment steps (default: the preset's, {budgets}; {CPU_TOTAL_STEPS:,} for a preset without one; --paper 1e9)",
    )
    p.add_argument("--num-envs", type=int, help=f"parallel worlds (default {CPU_QUICK['num_envs']}; --paper 1024)")
    p.add_argument("--num-steps", type=int, help=f"rollout length per world and update (default {CPU_QUICK['num_steps']}; --paper 100)")
    p.add_argument("--layer-size", type=int, help=f"width of the policy's layers (default {CPU_QUICK['layer_size']}; --paper 512)")
    p.add_argument(
        "--num-minibatches",
        type=cli.positive_int,
        help=f"minibatches per epoch, split by world (default {CPU_QUICK['num_minibatches']}; --paper 8, the paper's)",
    )
    p.add_argument("--update-epochs", type=cli.positive_int, help="passes over each rollout (default 4, the paper's)")
    p.add_argument(
        "--micro-batches",
        type=cli.positive_int,
        help="parts each minibatch's gradient is computed in, one after another: the same update in less memory "
        f"(default 1; --paper {PAPER_MICRO_BATCHES}, so that one update fits a 16 GB V100)",
    )
    p.add_argument(
        "--reset-ratio",
        type=cli.positive_int,
        help="optimistic resets: one fresh world per this many finished ones each step, for worlds whose reset is costly "
        "(default 16, the paper's; 1: every finished world its own fresh one)",
    )
    rates = ", ".join(f"{name} {values['lr']:.0e}".replace("e-0", "e-") for name, values in presets.items() if values.get("lr"))
    p.add_argument(
        "--lr",
        type=_positive_float,
        help=f"Adam learning rate, annealed linearly to 0 (default: the preset's, {rates}; 2e-4 for a preset without one)",
    )
    p.add_argument("--seed", type=int, help="training seed (default 0)")
    p.add_argument(
        "--imitation-coef",
        type=_non_negative_float,
        metavar="COEF",
        help="weight of an auxiliary cross entropy towards the world's expert action on the agent's own rollouts "
        "(DAgger-style; worlds with an expert for the goals trained on; default 0: plain PPO)",
    )
    p.add_argument(
        "--imitation-only",
        action="store_true",
        default=None,
        help="train on the --imitation-coef cross entropy alone, without PPO's terms (DAgger on the agent's own rollouts)",
    )
    p.add_argument(
        "--expert-play",
        type=_non_negative_float,
        metavar="BETA",
        help="with --imitation-only: probability that a rollout step plays the expert's action instead of the agent's, "
        "decaying linearly to 0 at half of the updates (DAgger's beta; default 0)",
    )
    p.add_argument(
        "--init-from",
        metavar="RUN",
        help="start from the policy cloned by python -m baselines.bc in RUN (same world, --policy, --encoder and --layer-size)",
    )
    cli.add_out(p, "run folder (with --plan: where plan.json and update.hlo.txt go)", default=DEFAULT_OUT, resume=True)
    p.add_argument(
        "--plan",
        action="store_true",
        help="compile one update of these settings and run nothing: write plan.json (device memory from XLA's memory analysis, "
        "flops and bytes per env-step of world and learner, per GPU whether it fits and a roofline projection) and "
        "update.hlo.txt to --out, and print a short table",
    )
    p.add_argument("--checkpoint-every", type=int, help="updates between checkpoints (default: ~1%% of the updates, at least 10)")
    p.add_argument("--eval-episodes", type=int, help=f"episodes per goal and split (default {d['eval_episodes']})")
    p.add_argument(
        "--eval-batch", type=int, help=f"evaluation episodes run at once, the unit dealt out to processes (default {d['eval_batch']})"
    )
    p.add_argument("--greedy", action="store_true", help="the agent plays its most likely action in evaluation (default: sampled)")
    p.add_argument("--eval-splits", help="splits to evaluate (default: the world's evaluation splits that its data offers)")
    p.add_argument(
        "--planner",
        choices=("retrieval", "oracle"),
        help="PPO-T+ plans: retrieval (default: the nearest training instruction's plan, from the text alone) "
        "or oracle (from the gold goal)",
    )
    p.add_argument("--planner-url", help="OpenAI-compatible endpoint for PPO-T+ plans instead (key: $OPENAI_API_KEY)")
    p.add_argument("--planner-model", help="model name sent to --planner-url (default gpt-4)")
    p.add_argument(
        "--allow-insecure-http",
        action="store_true",
        default=None,
        help="let --planner-url be plain http to a host off the loopback (the key then travels in clear)",
    )
    p.add_argument("--tensorboard", action="store_true", help="also write TensorBoard event files to --out/tensorboard")
    cli.add_run_options(p)
    distributed.add_arguments(p)
    return p


"""Old spellings accepted for one release."""


def main(argv: list[str] | None = None) -> None:
    train(cli.parse(parser(), argv, RENAMED))


if __name__ == "__main__":
    distributed.join_from_argv(sys.argv[1:])  # before anything initialises the XLA backend
    main()
