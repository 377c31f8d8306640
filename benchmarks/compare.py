"""``python -m benchmarks compare OLD NEW``: every figure two benchmark folders share, as a ratio.

``OLD`` and ``NEW`` are folders written by ``python -m benchmarks`` (``env_sps.json`` and, where
present, ``training_sps.json``) or by ``python -m benchmarks.device`` (``device.json``). Each
environment figure is keyed by world and num_envs, each training figure by world, policy and
num_envs; the table prints NEW / OLD of the median env steps/s (training: steps/s of the whole
training loop) and flags a drop of more than ``--tolerance`` (default 15%). Figures of different
devices are compared only with ``--any-device`` (a ratio across machines says little). The exit
status is 1 when a figure dropped, so a release check can run it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from baselines.worlds import cli

FILES = {
    "env_sps.json": (("world", "num_envs"), "steps_per_s_median"),
    "training_sps.json": (("world", "policy", "num_envs"), "train_steps_per_s"),
    "device.json": (("world", "num_envs"), "steps_per_s_median"),
}
"""Result file -> (the fields that name one figure in it, the field of its steps/s)."""


def figures(folder: Path) -> tuple[dict, dict[tuple, float]]:
    """(device info of the folder's env figures, (file, key...) -> steps/s) of a results folder;
    ValueError naming the file when it is missing or not a benchmark result."""
    found: dict[tuple, float] = {}
    device: dict = {}
    for name, (fields, figure) in FILES.items():
        path = Path(folder) / name
        if not path.is_file():
            continue
        try:
            record = json.loads(path.read_text())
            device = device or record["device"]
            for row in record["results"]:
                found[(name.removesuffix(".json"), *(row[f] for f in fields))] = float(row[figure])
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{path}: not a benchmark result ({type(error).__name__}: {error})") from None
    if not device:
        raise ValueError(
            f"{Path(folder) / 'env_sps.json'}: no such file (a folder of python -m benchmarks or benchmarks.device results holds one)"
        )
    return device, found


def compare(old: Path, new: Path, tolerance: float = 0.15, any_device: bool = False) -> tuple[str, list[tuple]]:
    """(Markdown table of every shared figure with its ratio NEW / OLD, the keys that dropped by
    more than ``tolerance``)."""
    old_device, before = figures(old)
    new_device, after = figures(new)
    if old_device.get("device") != new_device.get("device") and not any_device:
        raise ValueError(
            f"{old} was measured on {old_device.get('device')}, {new} on {new_device.get('device')}: "
            "compare one kind of machine (or pass --any-device)"
        )
    lines = [
        f"OLD {old}: suite {old_device.get('suite', '?')}, commit {old_device.get('commit', '?')}, jax {old_device.get('jax', '?')}",
        f"NEW {new}: suite {new_device.get('suite', '?')}, commit {new_device.get('commit', '?')}, jax {new_device.get('jax', '?')}",
        "",
        "| figure | OLD steps/s | NEW steps/s | NEW / OLD | |",
        "|---|---:|---:|---:|---|",
    ]
    dropped = []
    for key in sorted(before.keys() & after.keys(), key=str):
        ratio = after[key] / before[key]
        flag = f"**drop > {tolerance:.0%}**" if ratio < 1 - tolerance else ""
        if flag:
            dropped.append(key)
        lines.append(f"| {' '.join(map(str, key))} | {before[key]:,.0f} | {after[key]:,.0f} | {ratio:.2f} | {flag} |")
    missing = sorted(before.keys() - after.keys(), key=str)
    if missing:
        lines += ["", f"only in OLD (not measured again): {', '.join(' '.join(map(str, k)) for k in missing)}"]
    return "\n".join(lines), dropped


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks compare", description=__doc__.split("\n\n")[0])
    p.add_argument("old", type=Path, help="the earlier results folder (e.g. benchmarks/results/cpu-2cores of the last release)")
    p.add_argument("new", type=Path, help="the new results folder (python -m benchmarks --out ...)")
    p.add_argument("--tolerance", type=float, default=0.15, help="a drop beyond this share is flagged (default 0.15)")
    p.add_argument("--any-device", action="store_true", help="compare results of different devices too")
    args = cli.parse(p, argv)
    try:
        table, dropped = compare(args.old, args.new, args.tolerance, args.any_device)
    except ValueError as error:
        raise SystemExit(f"error: {error}") from None
    print(table)
    print(f"\n{len(dropped)} figures dropped by more than {args.tolerance:.0%}" if dropped else "\nno figure dropped")
    return 1 if dropped else 0
