"""Results over training seeds, and the documentation's figures made from them.

    python -m baselines.results summarize RUN [RUN ...] --title TITLE --out NAME.json
    python -m baselines.results update-docs [--check]

``summarize`` reads the ``evaluation.json`` of runs that differ only in their training seed (of
``python -m baselines`` or ``python -m baselines.bc``) and writes one summary: every policy's
headline metric per split and seed (the agent, the same agent shown another goal's instruction,
uniform random), the commands, the suite release, device and jax version. It prints the table
(mean over seeds ± the 95% t-interval) and draws ``NAME.png`` beside the JSON.

The figures of the README and the docs pages are such tables. A page marks one with
``<!-- results: NAME -->`` ... ``<!-- /results -->`` (one row per split of
``docs/results/NAME.json``) or ``<!-- results: NAME NAME ... -->`` (one row per summary);
``update-docs`` rewrites every marked block from the committed summaries, and ``--check`` (run by
the tests) fails when a page says anything else. A figure therefore always names the release,
seeds and command that produced it.

A model's figures (the Builder, the painter) come from its committed evaluation file instead: a
summary of kind ``model`` (written by hand, once) names that file, the fields shown, the blind
control and the published figures, and the same markers render it (one row per model).
"""

from __future__ import annotations

import argparse
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path

from baselines.plots import POLICY_NAMES

FORMAT = "instructworlds-results"
VERSION = 1
POLICIES = ("agent", "shuffled", "random")
SUMMARIES = Path("docs") / "results"
"""Where a repository keeps its summaries, one ``NAME.json`` per documented figure."""
MARKER = re.compile(r"^([ \t]*)<!-- results: ([^>]+?) -->\n(.*?)^[ \t]*<!-- /results -->$", re.S | re.M)
"""A marked figure: its indentation (a figure inside a list item is indented like it), the
summary names, the block."""
PER_RUN = ("seed", "command", "suite", "best_epoch", "trained_by", "init_from")
"""Evaluation ``meta`` fields that may differ between the runs of one summary (``suite`` must not:
checked separately, to name it; ``best_epoch`` is the epoch a cloning run kept; ``trained_by`` the
training command of a run evaluated by ``python -m baselines.evaluate``; ``init_from`` the run a
run started from: the same for all, or each seed's own, recorded per seed)."""


MODEL_FIELDS = (
    ("title", str),
    ("evaluation", str),
    ("measured_at", str),
    ("test_set", str),
    ("figures", list),
    ("controls", list),
    ("published", str),
)
"""A model summary: the committed evaluation file (relative to the repository root), the commit
that wrote it, the test set, ``figures`` and ``controls`` (``{"label", "keys", "digits"}``: a
number of the evaluation file reached by ``keys``) and the published figures to compare with."""


class ResultsError(ValueError):
    """A run folder or summary that cannot make a figure; the message names the file and field."""


def interval(values: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% Student-t interval over ``values`` (0 for one value)."""
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, 0.0
    from scipy import stats

    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    return mean, float(stats.t.ppf(0.975, len(values) - 1) * spread / math.sqrt(len(values)))


def _evaluation(run: Path) -> dict:
    path = Path(run) / "evaluation.json"
    try:
        evaluation = json.loads(path.read_text())
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such file (a finished run of python -m baselines or python -m baselines.bc has one)") from None
    except json.JSONDecodeError as error:
        raise ResultsError(f"{path}: not JSON ({error})") from None
    for field in ("meta", "splits"):
        if not isinstance(evaluation.get(field), dict):
            raise ResultsError(f"{path}: field {field!r} missing")
    for field in ("seed", "command", "suite"):
        if field not in evaluation["meta"]:
            raise ResultsError(f"{path}: field 'meta.{field}' missing (the run predates seed summaries; run it again)")
    return evaluation


def summarize(runs: Sequence[Path], title: str, published: dict | None = None) -> dict:
    """The summary of ``runs`` (run folders, or evaluation folders of ``python -m
    baselines.evaluate``, that differ only in their seed): ``{"format", "version", "title",
    "suite", "seeds", "commands", "meta", "splits": {split: {"goals", policy: [headline metric per
    seed]}}}``, and ``published`` (``{"source": text, "splits": {split: figure}}``: the published
    figures the tables show beside) when given. ResultsError names a run whose settings, splits or
    release differ from the first's, a seed used twice, or a published split the runs lack."""
    evaluations = [_evaluation(run) for run in runs]
    first = evaluations[0]
    common = {k: v for k, v in first["meta"].items() if k not in PER_RUN}
    for run, evaluation in zip(runs[1:], evaluations[1:]):
        path = Path(run) / "evaluation.json"
        if evaluation["meta"]["suite"] != first["meta"]["suite"]:
            raise ResultsError(
                f"{path}: field 'meta.suite': release {evaluation['meta']['suite']}, the first run's is {first['meta']['suite']}"
            )
        for key in sorted(set(common) | set(evaluation["meta"]) - set(PER_RUN)):
            if evaluation["meta"].get(key) != common.get(key):
                raise ResultsError(f"{path}: field 'meta.{key}' is {evaluation['meta'].get(key)!r}, the first run's is {common.get(key)!r}")
        if list(evaluation["splits"]) != list(first["splits"]):
            raise ResultsError(f"{path}: field 'splits' is {list(evaluation['splits'])}, the first run's is {list(first['splits'])}")
        for split, by_policy in evaluation["splits"].items():
            goals, first_goals = by_policy["agent"]["goals"], first["splits"][split]["agent"]["goals"]
            if goals != first_goals:
                raise ResultsError(f"{path}: field 'splits.{split}.agent.goals' is {goals}, the first run's is {first_goals}")
    starts = [e["meta"].get("init_from") for e in evaluations]
    if len(set(starts)) not in (1, len(starts)):
        raise ResultsError(f"field 'meta.init_from': {starts}: the runs start from one run or each from its own")
    seeds = [e["meta"]["seed"] for e in evaluations]
    unknown = sorted(set((published or {}).get("splits", {})) - set(first["splits"]))
    if unknown:
        raise ResultsError(f"published split {unknown[0]!r}: the runs evaluate {', '.join(first['splits'])}")
    if len(set(seeds)) < len(seeds):
        raise ResultsError(f"seeds {seeds}: a seed appears twice; a summary is over different training seeds")
    splits = {
        split: {
            "goals": by_policy["agent"]["goals"],
            **({"texts_in_train": by_policy["agent"]["texts_in_train"]} if "texts_in_train" in by_policy["agent"] else {}),
            **{p: [e["splits"][split][p]["success"] for e in evaluations] for p in POLICIES if p in by_policy},
        }
        for split, by_policy in first["splits"].items()
    }
    return {
        "format": FORMAT,
        "version": VERSION,
        "kind": "seeds",
        "title": title,
        "suite": first["meta"]["suite"],
        "seeds": seeds,
        "commands": [e["meta"]["command"] for e in evaluations],
        **({"init_from": starts} if any(starts) else {}),
        "meta": common,
        "splits": splits,
        **({"published": published} if published else {}),
    }


def load(path: Path) -> dict:
    """A summary file, checked: ResultsError names the file and the field that is wrong."""
    try:
        summary = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such summary (make it with python -m baselines.results summarize)") from None
    except json.JSONDecodeError as error:
        raise ResultsError(f"{path}: not JSON ({error})") from None
    if (summary.get("format"), summary.get("version")) != (FORMAT, VERSION):
        raise ResultsError(f"{path}: field 'format'/'version': expected {FORMAT!r} version {VERSION}")
    if summary.get("kind") == "model":
        return _checked_model(summary, path)
    if summary.get("kind") != "seeds":
        raise ResultsError(f"{path}: field 'kind': {summary.get('kind')!r}, expected 'seeds' or 'model'")
    for field, kind in (("title", str), ("suite", str), ("seeds", list), ("commands", list), ("meta", dict), ("splits", dict)):
        if not isinstance(summary.get(field), kind):
            raise ResultsError(f"{path}: field {field!r} missing or not a {kind.__name__}")
    published = summary.get("published")
    if published is not None and not (
        isinstance(published, dict)
        and isinstance(published.get("source"), str)
        and isinstance(published.get("splits"), dict)
        and all(isinstance(v, (int, float)) for v in published["splits"].values())
    ):
        raise ResultsError(f"{path}: field 'published': needs a 'source' (text) and 'splits' (split -> number)")
    for split, row in summary["splits"].items():
        for policy in POLICIES:
            if policy in row and len(row[policy]) != len(summary["seeds"]):
                raise ResultsError(f"{path}: field 'splits.{split}.{policy}': {len(row[policy])} values for {len(summary['seeds'])} seeds")
    return summary


def _checked_model(summary: dict, path: Path) -> dict:
    for field, kind in MODEL_FIELDS:
        if not isinstance(summary.get(field), kind):
            raise ResultsError(f"{path}: field {field!r} missing or not a {kind.__name__}")
    for field in ("figures", "controls"):
        for i, figure in enumerate(summary[field]):
            if not (isinstance(figure, dict) and isinstance(figure.get("label"), str) and isinstance(figure.get("digits"), int)):
                raise ResultsError(f"{path}: field '{field}[{i}]': needs a 'label' (text) and 'digits' (an integer)")
            if not (isinstance(figure.get("keys"), list) and figure["keys"] and all(isinstance(k, str) for k in figure["keys"])):
                raise ResultsError(f"{path}: field '{field}[{i}].keys': a non-empty list of the evaluation file's keys")
    return summary


def model_values(summary: dict, root: Path) -> tuple[list[str], list[str]]:
    """The ``figures`` and the ``controls`` of a model summary, read from its evaluation file under
    ``root`` and formatted with their digits; ResultsError names the file and the missing key."""
    path = root / summary["evaluation"]
    try:
        evaluation = json.loads(path.read_text())
    except (FileNotFoundError, json.JSONDecodeError) as error:
        raise ResultsError(f"{path}: the model's evaluation file cannot be read ({error})") from None

    def value(figure: dict) -> str:
        found = evaluation
        for depth, key in enumerate(figure["keys"]):
            if not isinstance(found, dict) or key not in found:
                field = ".".join(figure["keys"][: depth + 1])
                raise ResultsError(f"{path}: field {field!r} missing ({summary['title']}: {figure['label']})")
            found = found[key]
        if not isinstance(found, (int, float)):
            raise ResultsError(f"{path}: field {'.'.join(figure['keys'])!r} is not a number")
        return f"{found:.{figure['digits']}f}"

    return [value(f) for f in summary["figures"]], [value(f) for f in summary["controls"]]


def model_table(summaries: Sequence[dict], root: Path) -> str:
    """Markdown: one row per model summary (its figures, its blind control, the published figures),
    then a line naming the evaluation files and the commits that wrote them."""
    lines = ["| model | test set | ours | blind control | published |", "|---|---|---:|---|---|"]
    for summary in summaries:
        figures, controls = model_values(summary, root)
        labels = " / ".join(f["label"] for f in summary["figures"])
        control = "; ".join(f"{f['label']}: {v}" for f, v in zip(summary["controls"], controls)) or "none"
        cells = [summary["title"], f"{summary['test_set']}, {labels}", " / ".join(figures), control, summary["published"]]
        lines.append("| " + " | ".join(cells) + " |")
    sources = "; ".join(f"`{s['evaluation']}` (commit {s['measured_at']})" for s in summaries)
    return "\n".join(lines) + f"\n\nRead from the committed evaluation files: {sources}."


def _cell(values: Sequence[float], digits: int = 3, sign: bool = False) -> str:
    mean, half = interval(values)
    text = f"{mean:+.{digits}f}" if sign else f"{mean:.{digits}f}"
    return f"{text} ± {half:.{digits}f}" if len(values) > 1 else text


def _gaps(row: dict) -> list[float] | None:
    if "agent" not in row or "shuffled" not in row:
        return None
    return [a - s for a, s in zip(row["agent"], row["shuffled"])]


def _seeds(summary: dict) -> str:
    seeds = summary["seeds"]
    return f"seed {seeds[0]}" if len(seeds) == 1 else f"{len(seeds)} training seeds ({', '.join(map(str, seeds))})"


def agent_label(summary: dict) -> str:
    """The agent as the tables name it: policy, imitation, budget (``ppo-t + imitation, 300k steps``)."""
    meta = summary["meta"]
    started = meta.get("init_from") or any(summary.get("init_from", []))
    label = meta["policy"] + (" + imitation" if meta.get("imitation_coef") else "") + (" from BC" if started else "")
    if meta.get("total_steps"):
        steps = meta["total_steps"]
        label += f", {steps / 1e6:g}M steps" if steps >= 1e6 else f", {steps / 1e3:g}k steps"
    elif meta.get("demos"):
        label += f", {meta['demos']} demonstrations"
    return label


def held_out_note(split: str, share: float | None) -> str:
    """How held out ``split`` is: ``"N% of texts in train"`` from ``share`` (``texts_in_train`` of
    an evaluation), or "" for evaluations that did not record it and for the training split itself
    (``train`` with every text in train; another world's ``train``, ``evaluate --world``, gets it)."""
    return "" if share is None or (split == "train" and share == 1) else f"{100 * share:.0f}% of texts in train"


def held_out_label(split: str, share: float | None) -> str:
    """``split (N% of texts in train)``, or ``split`` where ``held_out_note`` is empty."""
    note = held_out_note(split, share)
    return f"{split} ({note})" if note else split


def _unit(meta: dict) -> str:
    """What a summary's success is averaged over: ``goal``, or ``instruction`` (the paper protocol)."""
    return meta.get("unit", "goal")


def split_table(summary: dict) -> str:
    """Markdown: one row per split (policies' mean ± 95% interval over seeds, and agent - shown
    another instruction; the published figure where the summary has one), then a line naming
    metric, seeds, release, device and command."""
    published = summary.get("published")
    header = ["split", *(POLICY_NAMES[p] for p in POLICIES), "agent - another instruction", *(["published"] if published else [])]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for split, row in summary["splits"].items():
        gaps = _gaps(row)
        cells = [_cell(row[p]) if p in row else "–" for p in POLICIES] + [_cell(gaps, sign=True) if gaps else "–"]
        if published:
            cells.append(f"{published['splits'][split]:.2f}" if split in published["splits"] else "–")
        note = held_out_note(split, row.get("texts_in_train"))
        name = f"{split} ({row['goals']} {_unit(summary['meta'])}s" + (f"; {note})" if note else ")")
        lines.append("| " + " | ".join([name, *cells]) + " |")
    source = f" Published: {published['source']}." if published else ""
    return "\n".join(lines) + "\n\n" + _caption([summary]) + source


def rows_table(summaries: Sequence[dict]) -> str:
    """Markdown: one row per split of each summary (five columns: what was trained, on its first
    row only, the split and the three policies)."""
    header = ["results", "split", *(POLICY_NAMES[p] for p in POLICIES)]
    lines = ["| " + " | ".join(header) + " |", "|---|---|" + "---:|" * (len(header) - 2)]
    for summary in summaries:
        seeds = len(summary["seeds"])
        what = f"{summary['title']}: {agent_label(summary)}, {seeds} seed{'s' if seeds != 1 else ''}"
        for i, (split, row) in enumerate(summary["splits"].items()):
            cells = [_cell(row[p], 2) if p in row else "–" for p in POLICIES]
            lines.append("| " + " | ".join([what if i == 0 else "", held_out_label(split, row.get("texts_in_train")), *cells]) + " |")
    return "\n".join(lines) + "\n\n" + _caption(summaries)


def _caption(summaries: Sequence[dict]) -> str:
    """Metric, interval, release and device of the table; for one summary its seeds and command."""
    metrics = sorted({s["meta"].get("success_metric", "success") for s in summaries})
    suites = sorted({s["suite"] for s in summaries})
    devices = sorted({f"{s['meta'].get('device', '?')}, jax {s['meta'].get('jax', '?')}" for s in summaries})
    interval_note = "mean over seeds ± 95% t-interval" if any(len(s["seeds"]) > 1 for s in summaries) else "one seed"
    unit = " / ".join(sorted({_unit(s["meta"]) for s in summaries}))
    text = f"{' / '.join(metrics)} per {unit}, averaged over {unit}s; {interval_note}. Suite {', '.join(suites)}; {'; '.join(devices)}."
    if len(summaries) == 1:
        first = summaries[0]
        episodes = first["meta"].get(f"episodes_per_{unit}", "?")
        text += f" {_seeds(first).capitalize()}, {episodes} episode{'s' if episodes != 1 else ''} per {unit} each: `{first['commands'][0]}`"
    return text


def render(names: Sequence[str], root: Path = Path()) -> str:
    """The block for a ``<!-- results: NAMES -->`` marker from ``root/docs/results``:
    ``split_table`` for one seed summary, ``rows_table`` for several, ``model_table`` for model
    summaries (their evaluation files are read relative to ``root``)."""
    summaries = [load(root / SUMMARIES / f"{name}.json") for name in names]
    kinds = {s["kind"] for s in summaries}
    if len(kinds) > 1:
        raise ResultsError(f"<!-- results: {' '.join(names)} -->: seed summaries and model summaries are separate tables")
    if kinds == {"model"}:
        return model_table(summaries, root)
    return split_table(summaries[0]) if len(summaries) == 1 else rows_table(summaries)


def _block(indent: str, names: list[str], root: Path) -> str:
    body = "\n".join(indent + line if line else "" for line in render(names, root).splitlines())
    return f"{indent}<!-- results: {' '.join(names)} -->\n{body}\n{indent}<!-- /results -->"


def pages(root: Path) -> list[Path]:
    """The README and every docs page."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def update_docs(root: Path, check: bool = False) -> list[Path]:
    """Rewrite every marked block of ``pages(root)`` from ``root/docs/results``; returns the pages
    that changed (with ``check``: that would change, nothing written)."""
    from baselines.worlds import cli

    changed = []
    for page in pages(root):
        text = page.read_text()
        try:
            new = MARKER.sub(lambda m: _block(m[1], m[2].split(), root), text)
        except ResultsError as error:
            raise ResultsError(f"{page}: {error}") from None
        if new != text:
            changed.append(page)
            if not check:
                cli.write_atomic(page, new)
    return changed


def bars(summary: dict, path: Path) -> Path:
    """``path``: each policy's mean per split with its 95% interval over seeds as an error bar."""
    from baselines import plots

    plt = plots.pyplot()
    splits = summary["splits"]
    fig, ax = plt.subplots(figsize=(max(1.9 * len(splits) + 3.4, 6.0), 3.6))
    width = 0.26
    for i, row in enumerate(splits.values()):
        for j, policy in enumerate(p for p in POLICIES if p in row):
            mean, half = interval(row[policy])
            x = i + (j - 1) * width
            ax.bar(
                x,
                mean,
                width,
                yerr=half or None,
                capsize=3,
                color=plots.POLICY_COLOURS[policy],
                label=POLICY_NAMES[policy] if i == 0 else None,
            )
            ax.text(x, min(mean + half + 0.01, 1.08), f"{mean:.2f}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(splits)), [f"{s}\n({row['goals']} {_unit(summary['meta'])}s)" for s, row in splits.items()], fontsize=8)
    ax.set(ylim=(0, 1.15), ylabel=summary["meta"].get("success_metric", "success"))
    spread = ", mean ± 95% t-interval over seeds" if len(summary["seeds"]) > 1 else ""
    ax.set_title(f"{summary['title']}\n{_seeds(summary)}{spread}", fontsize=9)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(axis="y", alpha=0.3)
    return plots.save(fig, path)


def _published(text: str) -> dict[str, float]:
    """``train=0.45,test_paraphrased=0.36`` -> {split: figure}; argparse error naming a bad entry."""
    figures = {}
    for entry in text.split(","):
        split, _, value = entry.partition("=")
        try:
            figures[split.strip()] = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{entry!r}: expected SPLIT=FIGURE") from None
    return figures


def parser() -> argparse.ArgumentParser:
    from baselines.worlds import cli

    p = argparse.ArgumentParser(
        prog="python -m baselines.results", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("summarize", help="one summary of runs that differ in their training seed")
    s.add_argument("runs", nargs="+", type=Path, help="run folders of python -m baselines or python -m baselines.bc")
    s.add_argument("--title", required=True, help="what the runs are, as the tables name them")
    s.add_argument(
        "--published",
        type=_published,
        default={},
        metavar="SPLIT=FIGURE,...",
        help="published figures to show beside, e.g. train=0.45,test_paraphrased=0.36 (with --published-source)",
    )
    s.add_argument("--published-source", default="", help="where the published figures come from (paper, table, setting)")
    cli.add_out(s, "the summary file NAME.json (NAME.png is drawn beside it)", required=True)
    u = sub.add_parser("update-docs", help="rewrite the README's and docs pages' marked figures from docs/results")
    u.add_argument("--check", action="store_true", help="write nothing; exit 1 naming the pages whose figures differ")
    return p


def run(args: argparse.Namespace) -> None:
    from baselines.worlds import cli

    if args.command == "summarize":
        if args.out.suffix != ".json":
            raise SystemExit(f"error: --out {args.out}: a summary is a .json file")
        cli.refuse_existing([args.out, args.out.with_suffix(".png")], args.overwrite, own=cli.reads_as(("format", "splits", "seeds")))
        if bool(args.published) != bool(args.published_source):
            raise SystemExit("error: --published and --published-source go together")
        published = {"source": args.published_source, "splits": args.published} if args.published else None
        summary = summarize(args.runs, args.title, published)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        cli.write_atomic(args.out, json.dumps(summary, indent=1) + "\n")
        print(split_table(summary))
        print(f"\nwrote {args.out} and {bars(summary, args.out.with_suffix('.png'))}")
        return
    root = Path.cwd()
    if not (root / "docs" / "results").is_dir():
        raise SystemExit(f"error: {root} has no docs/results; run update-docs in the repository's root")
    changed = update_docs(root, check=args.check)
    for page in changed:
        print(f"{page.relative_to(root)}: {'differs from' if args.check else 'rewritten from'} docs/results")
    if args.check and changed:
        raise SystemExit(1)
    if not changed:
        print("every marked figure matches docs/results")


def main(argv: list[str] | None = None) -> None:
    from baselines.worlds import cli

    cli.run(parser(), run, argv, errors=(ResultsError,))


if __name__ == "__main__":
    main()
