"""Pictures of a run folder: the learning curve from ``metrics.jsonl`` and the three-policy
evaluation bars from ``evaluation.json``, saved beside them as PNG.

    python -m baselines.plots RUN_FOLDER      # (re)draw a finished run's pictures

``python -m baselines`` and ``python -m baselines.bc`` draw both at the end of a run.
"""

from __future__ import annotations

import argparse
import io
import json
from collections.abc import Callable
from pathlib import Path

POLICY_COLOURS = {"agent": "#1f77b4", "shuffled": "#ff7f0e", "random": "#7f7f7f", "expert": "#2ca02c"}
POLICY_NAMES = {"agent": "agent", "shuffled": "shown another instruction", "random": "uniform random", "expert": "scripted expert"}
"""The policies of an evaluation (the agent, its two controls and, on request, the scripted
expert), as the docs name them."""


def pyplot():
    """matplotlib.pyplot on the file-only Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(fig, path: Path, title: str | None = None) -> Path:
    """Lay out, save (110 dpi) and close a figure."""
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    write_png(fig, path, dpi=110)
    pyplot().close(fig)
    return path


def write_png(fig, path: Path, dpi: int = 110) -> Path:
    """Save a figure as PNG whole or not at all (``cli.write_atomic``: a kill mid-save leaves the
    previous picture)."""
    from baselines.worlds import cli

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    cli.write_atomic(path, buffer.getvalue())
    return path


def metrics_rows(run: Path) -> list[dict]:
    """The rows of ``run/metrics.jsonl``; ValueError when there are none."""
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines() if line.strip()]
    if not rows:
        raise ValueError(f"{run / 'metrics.jsonl'} has no rows to plot")
    return rows


def comparison(runs: list[Path], out: Path, minutes: Callable[[dict], float], panels: list[tuple[str, str, list[tuple[str, str]]]]) -> Path:
    """A PNG at ``out`` of several runs' ``metrics.jsonl`` columns against the training minutes each
    had (``minutes(row)``): runs compared at equal time on one machine. One
    panel per ``(title, y label, [(column, label suffix), ...])``; a run's first column in a panel
    is drawn solid, the others dashed, all in the run's colour."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(panels), figsize=(4.5 * len(panels), 3.4), squeeze=False)
    axes = axes[0]
    for k, run in enumerate(runs):
        rows = metrics_rows(run)
        x = [minutes(r) for r in rows]
        for ax, (_, _, columns) in zip(axes, panels, strict=True):
            for j, (column, suffix) in enumerate(columns):
                style = {"linestyle": "--", "alpha": 0.6} if j else {}
                ax.plot(x, [r[column] for r in rows], marker="o", color=f"C{k}", label=f"{run.name}{suffix}", **style)
    for ax, (title, ylabel, _) in zip(axes, panels, strict=True):
        ax.set(xlabel="training minutes (wall clock)", ylabel=ylabel, title=title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    return save(fig, out)


def smoothed(values: list[float], window: int | None = None):
    """A trailing moving average of ``values`` (window: a tenth of them, at least 1), the start
    averaged over the points so far: a NumPy array."""
    import numpy as np

    values = np.asarray(values, dtype=float)
    window = window or max(1, len(values) // 10)
    sums = np.cumsum(np.r_[0.0, values])
    ends = np.arange(1, len(values) + 1)
    starts = np.maximum(ends - window, 0)
    return (sums[ends] - sums[starts]) / (ends - starts)


def _curve(ax, x: list[float], y: list[float], colour: str, label: str | None = None) -> None:
    """The raw curve faint and its moving average (``smoothed``) solid."""
    ax.plot(x, y, color=colour, alpha=0.25, linewidth=0.8)
    ax.plot(x, smoothed(y), color=colour, linewidth=1.6, label=label)


def finish_run(run: Path, curve: Callable[[Path], Path]) -> str:
    """Draw run folder ``run``'s learning curve (``curve``) and evaluation bars, finish the folder
    (``cli.finish_out``: an overwrite's new run takes the old one's place) and return the line
    naming both pictures where they now are."""
    from baselines.worlds import cli

    pictures = [curve(run), evaluation_bars(run)]
    out = cli.finish_out(run)
    return "pictures: " + ", ".join(str(out / p.name) for p in pictures)


def run_title(run: Path) -> str:
    """World, agent and seed of a training or cloning run, from its ``config.json`` (the folder name
    without one)."""
    from baselines.configs import saved_run
    from baselines.worlds import cli

    name = cli.final_path(run).name  # an overwrite's run is titled by the folder it replaces
    try:
        config = saved_run(run)
    except (OSError, ValueError):
        return name
    kind, world, network = config["kind"], config["world"], config["network"]
    agent = network.get("policy", "policy") + (" + placed cells" if network.get("placed_channel") else "")
    if network.get("world_encoder", "dense") != "dense":
        agent += f", {network['world_encoder']} world encoder"
    if kind == "bc":
        agent += f" cloned from {config['run'].get('demos', 'demonstrations')}"
    elif kind == "dagger":
        agent += ", aggregated DAgger"
    elif config["ppo"].get("imitation_only"):
        agent += ", DAgger"
    elif config["ppo"].get("imitation_coef"):
        agent += " + imitation"
    return f"{world.get('env', name)}: {agent}, seed {config[kind].get('seed', 0)}"


def learning_curve(run: Path) -> Path:
    """``run/learning_curve.png``: training success rate, mean episode return and, when the run
    imitates an expert, the imitation loss, against environment steps (``run/metrics.jsonl``, one
    point per update: faint; a moving average over a tenth of the updates: solid), titled with the
    run's world, agent and seed."""
    rows = metrics_rows(run)
    plt = pyplot()
    from matplotlib.ticker import EngFormatter, MaxNLocator

    steps = [r["env_steps"] for r in rows]
    imitation = any(r.get("imitation_loss") for r in rows)
    fig, axes = plt.subplots(1, 3 if imitation else 2, figsize=(13 if imitation else 9, 3.4))
    _curve(axes[0], steps, [r["success_rate"] for r in rows], "#1f77b4")
    axes[0].set(xlabel="environment steps", ylabel="success rate (training episodes)", ylim=(0, 1.02))
    _curve(axes[1], steps, [r["return"] for r in rows], "#2ca02c")
    axes[1].set(xlabel="environment steps", ylabel="mean episode return")
    if imitation:
        _curve(axes[2], steps, [r["imitation_loss"] for r in rows], "#9467bd")
        axes[2].set(xlabel="environment steps", ylabel="imitation loss (cross entropy, nats)")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.xaxis.set_major_formatter(EngFormatter(sep=""))
        ax.xaxis.set_major_locator(MaxNLocator(5))
    return save(fig, run / "learning_curve.png", f"{run_title(run)} (faint: each update; solid: moving average)")


def cloning_curve(run: Path) -> Path:
    """``run/learning_curve.png`` of a behavioural-cloning run: loss and accuracy of the demonstrated
    actions per epoch, training minibatches and (when held out) validation episodes."""
    rows = metrics_rows(run)
    plt = pyplot()
    epochs = [r["epoch"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4))
    for prefix, label in (("", "training"), ("val_", "validation")):
        if prefix + "loss" in rows[0]:
            left.plot(epochs, [r[prefix + "loss"] for r in rows], label=label)
            right.plot(epochs, [r[prefix + "accuracy"] for r in rows], label=label)
    left.set(xlabel="epoch", ylabel="cross entropy of the demonstrated action")
    right.set(xlabel="epoch", ylabel="accuracy (most likely action)", ylim=(0, 1.02))
    for ax in (left, right):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    return save(fig, run / "learning_curve.png", run_title(run))


def dagger_curve(run: Path) -> Path:
    """``run/learning_curve.png`` of an aggregated-DAgger run against environment steps: the cross
    entropy of the expert's action on each round's new states before training on them (held out)
    and on the training minibatches, and the held-out top-1 agreement overall and per goal category."""
    rows = metrics_rows(run)
    plt = pyplot()
    steps = [r["env_steps"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4))
    _curve(left, steps, [r["heldout_loss"] for r in rows], "#1f77b4", "held out (new states)")
    _curve(left, steps, [r["train_loss"] for r in rows], "#ff7f0e", "training minibatches")
    left.set(xlabel="environment steps", ylabel="cross entropy of the expert's action")
    _curve(right, steps, [r["heldout_agreement"] for r in rows], "black", "all goals")
    for i, name in enumerate(sorted(k.split("/", 1)[1] for k in rows[0] if k.startswith("heldout_agreement/"))):
        _curve(right, steps, [r[f"heldout_agreement/{name}"] for r in rows], f"C{i}", name)
    right.set(xlabel="environment steps", ylabel="held-out agreement with the expert", ylim=(0, 1.02))
    for ax in (left, right):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    return save(fig, run / "learning_curve.png", f"{run_title(run)} (faint: each round; solid: moving average)")


def painter_curve(run: Path) -> Path:
    """``run/learning_curve.png`` of a Hexagons painter run: training loss and dev action F1 / EM
    (oracle board, percent) per epoch."""
    rows = metrics_rows(run)
    plt = pyplot()
    epochs = [r["epoch"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4))
    left.plot(epochs, [r["loss"] for r in rows])
    left.set(xlabel="epoch", ylabel="weighted cross entropy per tile")
    right.plot(epochs, [r["dev_action_f1"] for r in rows], label="action F1")
    right.plot(epochs, [r["dev_action_em"] for r in rows], label="action EM")
    right.set(xlabel="epoch", ylabel="dev split, oracle board (%)")
    for ax in (left, right):
        ax.grid(alpha=0.3)
    right.legend(fontsize=8)
    from baselines.worlds import cli

    return save(fig, run / "learning_curve.png", cli.final_path(run).name)


def evaluation_bars(run: Path) -> Path:
    """``run/evaluation.png``: the headline metric of every policy (the agent, the agent shown another
    instruction, uniform random, and the scripted expert where it played) on every evaluated split,
    with its 95% bootstrap interval where the evaluation has one, and the gap agent - another
    instruction (and its interval) over each split; where the goals fall into categories (CrafText's
    Building, Conditional, ...), one more panel per split breaks the rate down by category."""
    evaluation = json.loads((run / "evaluation.json").read_text())
    splits, meta = evaluation["splits"], evaluation["meta"]
    played = [p for p in POLICY_COLOURS if any(p in by_policy for by_policy in splits.values())]
    first = next(iter(next(iter(splits.values())).values()))
    unit = first.get("unit", "goal")
    categories = {
        split: [g for g in next(iter(by_policy.values())).get("groups", {}) if ":" not in g] for split, by_policy in splits.items()
    }
    broken_down = [split for split, groups in categories.items() if len(groups) > 1]
    plt = pyplot()
    widths = [max(1.9 * len(splits), 2.6)] + [max(1.3 * len(categories[s]), 2.6) for s in broken_down]
    fig, axes = plt.subplots(1, len(widths), figsize=(sum(widths) + 2.6, 3.8), width_ratios=widths, squeeze=False)
    width = 0.78 / len(played)

    def bars(ax, groups: list[tuple[str, dict]]) -> None:
        """One cluster of bars per (label, policy -> (rate, interval or None)) group."""
        for i, (_, by_policy) in enumerate(groups):
            for j, policy in enumerate(played):
                if policy not in by_policy:
                    continue
                value, interval = by_policy[policy]
                x = i + (j - (len(played) - 1) / 2) * width
                ax.bar(x, value, width, color=POLICY_COLOURS[policy], label=POLICY_NAMES[policy] if i == 0 else None)
                if interval:
                    ax.errorbar(x, value, yerr=[[value - interval[0]], [interval[1] - value]], color="black", capsize=2, linewidth=0.8)
                ax.text(x, (interval[1] if interval else value) + 0.01, f"{value:.2f}", ha="center", va="bottom", fontsize=6)
        ax.set_xticks(range(len(groups)), [label for label, _ in groups], fontsize=8)
        ax.set_ylim(0, 1.2)
        ax.grid(axis="y", alpha=0.3)

    overall = axes[0][0]
    bars(
        overall,
        [
            (f"{split}\n({next(iter(b.values()))['goals']} {unit}s)", {p: (s["success"], s.get("success_ci")) for p, s in b.items()})
            for split, b in splits.items()
        ],
    )
    for i, (split, by_policy) in enumerate(splits.items()):
        if evaluation["gap"].get(split) is not None:
            interval = by_policy.get("agent", {}).get("gap_ci")
            text = f"gap {evaluation['gap'][split]:+.2f}" + ("\n[{:+.2f}, {:+.2f}]".format(*interval) if interval else "")
            overall.text(i, 1.07, text, ha="center", fontsize=7, weight="bold")
    overall.set(ylabel=f"{meta.get('success_metric', 'success')} per {unit}", title=f"all {unit}s" if broken_down else None)
    for ax, split in zip(axes[0][1:], broken_down):
        groups = [
            (
                f"{g}\n({next(iter(splits[split].values()))['groups'][g]['goals']})",
                {p: (s["groups"][g]["success"], s["groups"][g].get("ci")) for p, s in splits[split].items() if g in s["groups"]},
            )
            for g in categories[split]
        ]
        bars(ax, groups)
        ax.set_title(f"{split}, by category", fontsize=9)
    axes[0][-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.text(
        0.01,
        0.01,
        f"bars: mean over {unit}s (in brackets: how many); error bars: 95% bootstrap interval over {unit}s and their worlds; "
        "gap: agent - shown another instruction",
        fontsize=7,
        color="#555555",
    )
    title = f"{meta['env']} ({meta['policy']}{' + imitation' if meta.get('imitation_coef') else ''}, seed {meta.get('seed', 0)})"
    return save(fig, run / "evaluation.png", title)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m baselines.plots", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run", type=Path, help="a run folder of python -m baselines, python -m baselines.bc or python -m baselines.painter")
    return p


def main(argv: list[str] | None = None) -> None:
    from baselines.worlds import cli
    from baselines.worlds.checkpoints import run_kind

    run = cli.parse(parser(), argv).run
    try:
        kind = run_kind(run)
    except ValueError as error:
        raise SystemExit(f"error: {error}") from None
    curve = {"ppo": learning_curve, "bc": cloning_curve, "dagger": dagger_curve, "painter": painter_curve}.get(kind)
    if curve is None:
        raise SystemExit(f"error: {run} is a {kind} run; python -m baselines.{kind} draws its pictures")
    pictures = ((curve, "metrics.jsonl"),) + (((evaluation_bars, "evaluation.json"),) if kind != "painter" else ())
    for draw, needs in pictures:
        if not (run / needs).is_file():
            raise SystemExit(f"error: {run / needs} does not exist")
        print(draw(run))


if __name__ == "__main__":
    main()
