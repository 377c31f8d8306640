"""Behavioural cloning from episode files: a PPO-T or FiLM policy trained on demonstrations, then evaluated.

See the package docstring (``baselines.bc``).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path
from typing import TYPE_CHECKING

from baselines.worlds import cli

if TYPE_CHECKING:
    from baselines.bc.config import BCConfig
    from baselines.worlds.session import World

DEFAULT_OUT = "runs/bc/default"


def parser() -> argparse.ArgumentParser:
    from baselines.bc.config import NETWORK, POLICIES, BCConfig

    d, n = BCConfig(), NETWORK
    p = argparse.ArgumentParser(prog="python -m baselines.bc", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--demos", type=Path, required=True, help="folder of episode files (one world and split)")
    p.add_argument("--policy", choices=POLICIES, default=n.policy)
    cli.add_out(p, "run folder", default=DEFAULT_OUT)
    p.add_argument("--encoder", default=n.encoder, help=f"frozen text encoder (default {n.encoder})")
    p.add_argument("--layer-size", type=int, default=n.layer_size)
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument("--epochs", type=int, default=d.epochs)
    p.add_argument("--batch-episodes", type=int, default=d.batch_episodes)
    p.add_argument("--validation", type=float, default=d.validation, help=f"fraction of the episodes held out (default {d.validation})")
    p.add_argument("--seed", type=int, default=d.seed, help=f"training seed (default {d.seed})")
    p.add_argument("--eval-episodes", type=int, default=8, help="evaluation episodes per goal and split (default 8)")
    p.add_argument("--eval-splits", help="splits to evaluate (default: the world's evaluation splits that its data offers)")
    p.add_argument("--greedy", action="store_true", help="the agent plays its most likely action in evaluation (default: sampled)")
    cli.add_run_options(p)
    return p


def main(argv: list[str] | None = None) -> None:
    cli.run(parser(), run, argv)


def run(args: argparse.Namespace) -> None:
    import jax
    import numpy as np

    from baselines import plots, worlds
    from baselines.bc.cloning import BehaviouralCloning, load_demos, replay_demos, split_held_out
    from baselines.bc.config import NETWORK, BCConfig
    from baselines.configs import run_record
    from baselines.ppo import tables
    from baselines.worlds.checkpoints import RunFolder, save_params
    from baselines.worlds.replay import world_of

    paths, episodes = load_demos(args.demos)
    world = world_of(episodes[0].meta)  # the world the demonstrations replay in
    spec, trained_split, task = world.spec, world.split, world.task
    network = dataclasses.replace(NETWORK, env_id=spec["env"], policy=args.policy, encoder=args.encoder, layer_size=args.layer_size)
    config = BCConfig(
        network=network,
        lr=args.lr,
        epochs=args.epochs,
        batch_episodes=args.batch_episodes,
        validation=args.validation,
        seed=args.seed,
    )
    config.validate()
    if args.eval_episodes < 1:
        raise ValueError(f"--eval-episodes must be >= 1, got {args.eval_episodes}")
    split_names = args.eval_splits.split(",") if args.eval_splits else worlds.eval_splits(spec)
    worlds.check_splits(spec, split_names, "--eval-splits")  # before the replay and the training
    folder = RunFolder.open(args.out, kind="bc", default=DEFAULT_OUT, overwrite=args.overwrite)
    out = folder.path
    train_split = worlds.split_episodes(spec, trained_split)
    train_ids, held_ids = split_held_out(len(episodes), config.validation, config.seed)
    began = time.perf_counter()
    train_demos = replay_demos(task, [paths[i] for i in train_ids], [episodes[i] for i in train_ids])
    held_out = replay_demos(task, [paths[i] for i in held_ids], [episodes[i] for i in held_ids]) if len(held_ids) else []
    lengths = [len(e) for e in episodes]
    print(
        f"{len(paths)} demonstrations ({sum(lengths):,} steps, {min(lengths)} to {max(lengths)} per episode) of {spec['env']} "
        f"{trained_split} replayed in {time.perf_counter() - began:.1f} s; sources {sorted({e.meta['source'] for e in episodes})}; "
        f"demonstrated success {np.mean([bool(e.meta.get('success')) for e in episodes]):.3f}",
        flush=True,
    )
    cloner = BehaviouralCloning(config, task, tables(network, task)[0], progress=not cli.quiet(args.quiet))
    key_init, key_train = jax.random.split(jax.random.key(config.seed))
    params, opt_state = cloner.init(key_init, train_demos[0])
    demos = {"demos": str(args.demos), "episodes": len(paths), "held_out": len(held_ids)}
    evaluation = {"episodes": args.eval_episodes, "splits": split_names, "greedy": args.greedy}
    folder.write_config(run_record("bc", {**spec, "split": trained_split}, network, config, demos, evaluation, args.command_line))
    shapes = ", ".join(f"{d.episodes} x {d.action.shape[0]}" for d in train_demos)
    print(
        f"cloning {network.policy} on {len(train_ids)} episodes ({len(held_ids)} held out) in buckets of episodes x steps {shapes}, "
        f"{config.epochs} epochs, devices {jax.devices()}",
        flush=True,
    )
    began = time.perf_counter()
    with cli.compiling(f"behavioural cloning of {network.policy} on {spec['env']} ({config.epochs} epochs, buckets {shapes})", args.quiet):
        train = jax.jit(cloner.train).lower(params, opt_state, key_train, train_demos, held_out).compile()
    params, _, metrics = jax.block_until_ready(train(params, opt_state, key_train, train_demos, held_out))
    cloner.bar.close()
    best_epoch = int(metrics.pop("best_epoch"))
    print(
        f"trained in {time.perf_counter() - began:.0f} s (compilation included); kept the params of epoch {best_epoch}"
        + (" (lowest validation loss)" if held_out else ""),
        flush=True,
    )
    save_params(out, params)
    with folder.metrics() as log:
        for i in range(config.epochs):
            log({k: float(np.asarray(v)[i]) for k, v in metrics.items()})
    cloned = {"demos": len(paths), "best_epoch": best_epoch}
    _evaluate(args, world, (cloner.network, params), config, split_names, train_split, out, cloned)
    print(plots.finish_run(out, plots.cloning_curve), flush=True)


def _evaluate(
    args: argparse.Namespace, world: World, policy: tuple, config: BCConfig, split_names: list, train_split: tuple, out: Path, cloned: dict
) -> None:
    """Evaluate the cloned ``policy`` (network, params) on ``split_names`` of its world (the episodes
    of the trained split as the run read them) and save ``evaluation.{json,md}`` in ``out``, with
    ``cloned`` (demonstrations, best epoch) in its meta."""
    import jax

    from baselines import evaluate, worlds

    spec, task, network = world.spec, world.task, config.network
    splits = {name: train_split if name == world.split else worlds.split_episodes(spec, name) for name in split_names}
    steps = spec["max_episode_steps"]
    results = evaluate.evaluate_splits(
        spec, splits, task, *policy, network, config.seed, args.eval_episodes, steps, greedy=args.greedy, quiet=args.quiet
    )
    mode = "greedy" if args.greedy else "sample"
    labels = {"agent": f"agent (BC {network.policy}, {mode})"}
    meta = {
        **spec,
        "policy": f"BC {network.policy}",
        **cloned,
        "success_metric": task.metrics[0],
        "episodes_per_goal": args.eval_episodes,
        "eval_mode": mode,
        "seed": config.seed,
        "command": args.command_line,
        "device": str(jax.devices()[0]),
        "jax": jax.__version__,
    }
    print("\n" + evaluate.save(results, out, meta, labels, worlds.family_of(spec["env"]).evaluation.group_order))


if __name__ == "__main__":
    main()
