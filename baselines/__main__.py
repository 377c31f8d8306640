"""Train a PPO-T / PPO-T+ / FiLM agent, checkpoint it, and print the evaluation table.

    python -m baselines                                  # CPU quick run: CrafText Classic, easy level
    python -m baselines --policy film --env CrafText-Classic-Pixels-v1 --paper   # Table 9 scale (GPU)
    python -m baselines --out runs/baselines/demo --resume                        # continue after a kill

The run folder (``--out``) holds ``config.json``, ``checkpoints/`` (orbax, every
``--checkpoint-every`` updates, the last 3 kept), ``metrics.jsonl`` (one line per update),
``evaluation.{json,md}`` and, with ``--tensorboard``, event files. Nothing contacts the network
unless ``--planner-url`` is given.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import time
from pathlib import Path

import jax
import numpy as np

from baselines import evaluate
from baselines.ppo import CPU_QUICK, PPO, PPOConfig, config_from_dict, tables
from baselines.tasks import make_task


def _pairs(args, split: str) -> list:
    from craftext import REGISTERED_IDS, dataset

    data = dataset.load(args.level, split, classic=REGISTERED_IDS[args.env][0], release=args.release)
    pairs = data.pairs()
    if args.goals:
        wanted = [w.strip() for w in args.goals.split(",") if w.strip()]
        pairs = [(g, p) for g, p in pairs if any(w in g.key() for w in wanted)]
    return pairs


def _task(args, split: str):
    if not args.env.startswith("CrafText"):
        return make_task(args.env, max_steps_in_episode=args.max_episode_steps)
    pairs = _pairs(args, split)
    if not pairs:
        raise SystemExit(f"no {args.level} goals in the {split} split match --goals {args.goals!r}")
    return make_task(args.env, pairs, max_steps_in_episode=args.max_episode_steps)


def _config(args) -> PPOConfig:
    saved = Path(args.out) / "config.json"
    if args.resume and saved.exists():
        return config_from_dict(json.loads(saved.read_text())["ppo"])
    values = {} if args.paper else dict(CPU_QUICK, total_timesteps=200_000)
    overrides = {"env_id": args.env, "policy": args.policy, "encoder": args.encoder, "seed": args.seed, "num_envs": args.num_envs,
                 "num_steps": args.num_steps, "total_timesteps": args.total_steps, "layer_size": args.layer_size, "lr": args.lr}
    values.update({k: v for k, v in overrides.items() if v is not None})
    return PPOConfig(**values)


def _divisor(n: int, at_most: int) -> int:
    return max(d for d in range(1, min(n, at_most) + 1) if n % d == 0)


def train(args) -> None:
    if args.distributed:
        jax.distributed.initialize()
    out = Path(args.out)
    config = _config(args)
    task = _task(args, "train")
    ppo = PPO(config, task, *tables(config, task, planner=_planner(args)), progress=True)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps({"ppo": dataclasses.asdict(config), "command": vars(args)}, indent=1))
    print(f"{task.name}: {len(task.goals)} training goals, {len(task.texts)} phrasings; policy {config.policy}, "
          f"{config.num_envs} envs x {config.num_steps} steps, {config.num_updates} updates, devices {jax.devices()}", flush=True)

    import orbax.checkpoint as ocp

    manager = ocp.CheckpointManager((out / "checkpoints").absolute(), options=ocp.CheckpointManagerOptions(max_to_keep=3))
    runner = ppo.init(jax.random.key(config.seed))
    if args.resume and manager.latest_step() is not None:
        runner = manager.restore(manager.latest_step(), args=ocp.args.StandardRestore(runner))
        print(f"resumed from {out / 'checkpoints'} at update {int(runner.update)}", flush=True)
    writer = _tensorboard(out) if args.tensorboard else None
    every = _divisor(config.num_updates, args.checkpoint_every)
    chunk = jax.jit(ppo.updates, static_argnums=1)
    start = time.perf_counter()
    with (out / "metrics.jsonl").open("a") as log:
        while int(runner.update) < config.num_updates:
            runner, metrics = chunk(runner, every)
            rows = [{k: float(np.asarray(v)[i]) for k, v in metrics.items()} for i in range(every)]
            for row in rows:
                log.write(json.dumps(row) + "\n")
                if writer:
                    for k, v in row.items():
                        writer.add_scalar(f"train/{k}", v, int(row["env_steps"]))
            log.flush()
            manager.save(int(runner.update), args=ocp.args.StandardSave(runner))
    manager.wait_until_finished()
    elapsed = time.perf_counter() - start
    print(f"trained {config.num_updates * config.batch_size:,} steps in {elapsed:.0f} s (compilation included)", flush=True)
    _evaluate(args, config, ppo, runner.params, out, writer)


def _evaluate(args, config: PPOConfig, ppo: PPO, params, out: Path, writer) -> None:
    if not args.env.startswith("CrafText"):
        print("evaluation by split, category and level is defined for CrafText; see metrics.jsonl for this world")
        return
    results: dict[str, dict] = {}
    key = jax.random.key(10_000 + config.seed)
    for split in args.eval_splits.split(","):
        task = _task(args, split)
        evaluator = evaluate.Evaluator(task, ppo.network, *tables(config, task, planner=_planner(args)))
        agent = f"{config.policy} ({args.eval_mode})"
        flags = evaluator.success(params, key, args.eval_episodes, args.max_episode_steps, (args.eval_mode, "random"))
        results[split] = {agent: evaluate.summarize(task, flags[args.eval_mode]), "random": evaluate.summarize(task, flags["random"])}
        for name, summary in results[split].items():
            print(f"{split:<18} {name:<18} success {summary['Total']['success_rate']:.3f} over {len(task.goals)} goals x {args.eval_episodes} episodes",
                  flush=True)
            if writer:
                writer.add_scalar(f"{split}/{name}/success_rate", summary["Total"]["success_rate"], config.num_updates)
    meta = {"env": args.env, "level": args.level, "release": args.release, "goals": args.goals, "episodes_per_goal": args.eval_episodes,
            "max_steps": args.max_episode_steps, "device": str(jax.devices()[0]), "jax": jax.__version__}
    print("\n" + evaluate.save(results, out, meta))


def _planner(args):
    """The chat-endpoint planner when ``--planner-url`` is given, else None (built-in planner)."""
    if not args.planner_url:
        return None
    from baselines.planner import ChatPlanner

    return ChatPlanner(args.planner_url, args.planner_model, api_key=os.environ.get("OPENAI_API_KEY"))


def _tensorboard(out: Path):
    try:
        from tensorboardX import SummaryWriter
    except ImportError:
        raise SystemExit("--tensorboard needs tensorboardX: pip install 'instructworlds[tensorboard]'") from None
    return SummaryWriter(str(out / "tensorboard"))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m baselines", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default="CrafText-Classic-Symbolic-v1", help="any world id of the suite")
    p.add_argument("--policy", default="ppo-t", choices=("ppo-t", "ppo-t+", "film"))
    p.add_argument("--encoder", default=None, choices=("hashed", "minilm"), help="frozen text encoder (default hashed)")
    p.add_argument("--level", default="easy", choices=("easy", "medium", "hard"), help="CrafText level")
    p.add_argument("--release", default="default", choices=("default", "full"), help="CrafText dataset release")
    p.add_argument("--goals", default="", help="comma-separated substrings of goal keys to keep (e.g. 'required=collect_wood)')")
    p.add_argument("--paper", action="store_true", help="the paper's Table 9 scale (1024 envs, 1e9 steps) instead of the CPU quick run")
    p.add_argument("--total-steps", type=int, help="environment steps (CPU quick run: 200,000)")
    p.add_argument("--num-envs", type=int)
    p.add_argument("--num-steps", type=int, help="rollout length per env")
    p.add_argument("--layer-size", type=int)
    p.add_argument("--lr", type=float)
    p.add_argument("--seed", type=int)
    p.add_argument("--max-episode-steps", type=int, default=500, help="episode limit (truncation) in training and evaluation")
    p.add_argument("--out", default="runs/baselines/default", help="run folder")
    p.add_argument("--resume", action="store_true", help="continue from the run folder's latest checkpoint and config")
    p.add_argument("--checkpoint-every", type=int, default=10, help="updates between checkpoints")
    p.add_argument("--eval-episodes", type=int, default=4, help="episodes per goal and split")
    p.add_argument("--eval-mode", default="sample", choices=("sample", "greedy"))
    p.add_argument("--eval-splits", default="train,test_paraphrased,test_new_objects")
    p.add_argument("--planner-url", default="", help="OpenAI-compatible endpoint for PPO-T+ plans (key: $OPENAI_API_KEY)")
    p.add_argument("--planner-model", default="gpt-4", help="model name sent to --planner-url")
    p.add_argument("--tensorboard", action="store_true")
    p.add_argument("--distributed", action="store_true", help="call jax.distributed.initialize() (multi-host)")
    return p


def main(argv: list[str] | None = None) -> None:
    train(parser().parse_args(argv))


if __name__ == "__main__":
    main()
