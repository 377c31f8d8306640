"""``python -m benchmarks.builder_encoders``: what the Builder's world encoders cost on this device.

For each world encoder of ``baselines.builder.model`` (``cnn``, ``set``) with the GRU decoder: the
seconds of one teacher-forced training step on a batch of 32 items padded to 4 and to 11 steps
(the step buckets most corpus batches fall in; boards/s = 32 x steps / seconds), and of greedy
decoding of 128 items (at most 10 actions, stopping once every item has stopped), medians of
``--repeats`` calls after the compiling one. Items: the corpus dev split with ``--mdc DIR``, else
the ``blocks`` simulator's dev items. Writes ``builder_encoders.json`` and ``builder_encoders.png``
under ``--out`` (default ``runs/benchmarks/<device>``; files already there are replaced only with
``--overwrite``). ``--quick`` is a seconds-long check that the code works (16 items, 2 steps, nothing
written unless ``--out`` is given).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from baselines.worlds import cli
from benchmarks import RESULTS_OUT, first_and_median_seconds

ENCODERS = ("cnn", "set")
STEPS = (4, 11)
BATCH = 32
DECODE_ITEMS = 128
FILES = ("builder_encoders.json", "builder_encoders.png")


def measure(mdc: str | None, repeats: int, quiet: bool = False, quick: bool = False) -> dict:
    """Training-step and decoding seconds of every encoder on the same items."""
    import jax
    import numpy as np

    from baselines.builder import data as builder_data
    from baselines.builder.train import Builder, Decoder, TrainConfig, text_inputs

    steps_list, num_items, max_actions = ((2,), 16, 2) if quick else (STEPS, DECODE_ITEMS, 10)
    if mdc:
        from blocksworld.data import load_items

        items, source = load_items(mdc, ("dev",))["dev"][:num_items], "MDC dev"
    else:
        items, source = builder_data.synthetic_items("blocks", "dev", num_items), "blocks simulator dev"
    vocabulary = builder_data.build_vocabulary(items)
    examples = builder_data.examples(items, vocabulary, max(steps_list) - 1, 100)
    rows = []
    for encoder in cli.progress(ENCODERS, desc="world encoders", unit="encoder", silent=quiet):
        config = TrainConfig(world_encoder=encoder, max_actions=max(steps_list) - 1)
        builder = Builder(config, len(vocabulary))
        text = text_inputs(config, examples)
        state = builder.init(text, examples)
        row = {"encoder": encoder, "params": int(sum(x.size for x in jax.tree.leaves(state.params)))}
        for steps in steps_list:
            index = np.resize(np.arange(len(examples)), BATCH)

            def train_step(steps=steps, index=index):
                jax.block_until_ready(builder.train_step(state, text, examples, index, steps))

            first, seconds = first_and_median_seconds(train_step, repeats)
            boards_per_s = round(BATCH * steps / seconds, 1)
            row[f"train_{steps}_steps"] = {"first_s": round(first, 2), "median_s": round(seconds, 4), "boards_per_s": boards_per_s}
        decoder = Decoder(builder, max_actions=max_actions, batch_size=num_items)
        first, seconds = first_and_median_seconds(lambda: decoder(state.params, text, examples), repeats)
        row["decode"] = {"first_s": round(first, 2), "median_s": round(seconds, 4), "items_per_s": round(len(examples) / seconds, 1)}
        rows.append(row)
    return {"items": source, "batch": BATCH, "steps": list(steps_list), "decode_items": len(examples), "repeats": repeats, "results": rows}


def plot(result: dict, info: dict, out: Path) -> Path:
    """``builder_encoders.png``: training boards/s per step bucket and decoding items/s, per encoder."""
    from baselines import plots

    rows, steps_list = result["results"], result["steps"]
    fig, axes = plots.pyplot().subplots(1, 2, figsize=(9, 3.2))
    width = 0.8 / len(rows)
    for k, row in enumerate(rows):
        offsets = [s + (k - (len(rows) - 1) / 2) * width for s in range(len(steps_list))]
        axes[0].bar(offsets, [row[f"train_{s}_steps"]["boards_per_s"] for s in steps_list], width, label=row["encoder"])
    labels = [f"{result['batch']} items x {s} steps" for s in steps_list]
    axes[0].set(xticks=range(len(steps_list)), xticklabels=labels, ylabel="boards / s (forward + backward)")
    axes[0].legend(fontsize=8)
    axes[1].bar([r["encoder"] for r in rows], [r["decode"]["items_per_s"] for r in rows], color="#3b7dd8")
    axes[1].set(ylabel=f"items / s (greedy decoding, {result['decode_items']} items)")
    where = f"{info['device']}, {info['host_cpus']} host CPUs, jax {info['jax']}"
    return plots.save(fig, out / "builder_encoders.png", f"Builder world encoders, {result['items']}: {where}")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.builder_encoders", description=__doc__.split("\n\n")[0])
    p.add_argument("--mdc", default=None, help="Minecraft Dialogue Corpus data/ folder: time on its dev items (default: simulated items)")
    p.add_argument("--repeats", type=int, default=3, help="timed calls after the compiling one (default 3)")
    p.add_argument("--quick", action="store_true", help="seconds-long check with tiny sizes")
    cli.add_out(p, RESULTS_OUT)
    cli.add_run_options(p)
    return p


def main(argv: list[str] | None = None) -> dict:
    from benchmarks.__main__ import device_info, output_folder

    args = cli.parse(parser(), argv)
    info = device_info()
    out = output_folder(args.out, info) if args.out or not args.quick else None
    if out is not None:
        cli.refuse_existing([out / name for name in FILES], args.overwrite)
    result = {"device": info, **measure(args.mdc, 1 if args.quick else args.repeats, args.quiet, args.quick)}
    print(f"{info['device']}, {info['host_cpus']} host CPUs, jax {info['jax']}; {result['items']}")
    for r in result["results"]:
        timed = [(s, r[f"train_{s}_steps"]) for s in result["steps"]]
        trains = ", ".join(f"{s} steps {t['median_s']:.2f} s ({t['boards_per_s']:.0f} boards/s)" for s, t in timed)
        print(f"{r['encoder']:<4} {r['params']:>9,} params; train batch of {BATCH}: {trains}; decode {r['decode']['median_s']:.2f} s")
    if out is None:
        return result
    out.mkdir(parents=True, exist_ok=True)
    cli.write_atomic(out / "builder_encoders.json", json.dumps(result, indent=1))
    print(f"wrote {out / 'builder_encoders.json'} and {plot(result, info, out)}")
    return result


if __name__ == "__main__":
    main()
