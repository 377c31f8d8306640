"""Behavioural cloning from episode files: the PPO baselines' policies trained on demonstrations.

    python -m baselines.episodes record --env Hexagons-Paint-v1 --data tiles --policy expert --episodes 512 --out demos/hexagons
    python -m baselines.bc --demos demos/hexagons --policy ppo-t --out runs/bc/hexagons
    python -m baselines --preset hexagons --init-from runs/bc/hexagons       # PPO from the cloned policy

Demonstrations are the episode files under ``--demos`` (``baselines.episodes``: people's, from the
browser player, or a scripted expert's), all of one world and split. Exact replay turns each into
the observations the policy sees, checking every recorded reward, termination flag and the final
state (``ReplayMismatch`` names the file and the step).

Training: the cross entropy of each demonstrated action under the policy (``baselines.networks``:
PPO-T or FiLM, instruction-conditioned, its GRU run over each whole episode from its first step),
averaged over the steps of the episodes (padding masked), Adam with gradient clipping. Episodes are
grouped by length into power-of-two buckets (padded within a bucket), and epochs of minibatches of
each bucket's episodes run in one ``jax.jit``. ``--validation`` episodes are held out and scored
every epoch; the params of the epoch with the lowest validation loss are kept. Evaluation: the
three-policy protocol of ``baselines.evaluate`` (agent, shown another instruction, uniform random) on the
world's splits.

The run folder holds ``config.json`` (the network settings, in ``PPOConfig`` terms, and the world),
``params/`` (orbax), ``metrics.jsonl`` (one line per epoch), ``evaluation.{json,md}`` and the
pictures ``learning_curve.png`` and ``evaluation.png``.

The library is ``baselines.bc.cloning`` and ``baselines.bc.config`` (their names are exported
here); the command line is ``baselines.bc.__main__``.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submodules=["cloning", "config"],
    submod_attrs={
        "cloning": ["BehaviouralCloning", "Demos", "length_buckets", "load_demos", "replay_demos", "split_held_out"],
        "config": ["BCConfig", "POLICIES"],
        "__main__": ["main", "parser", "run"],
    },
)
