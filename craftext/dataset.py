"""The CrafText dataset: versioned files produced by ``craftext.generator``, loading, statistics.

Files (``craftext/data/<data version>/``, ``v1`` and ``v2``, see ``DATA_VERSIONS``):
``<game>/default.jsonl`` (the default release: a sample of goals per level and scenario, 6
phrasings each), ``<game>/full.jsonl.gz`` (every valid goal of the parameter spaces, 7 phrasings
each) for ``game`` in ``classic`` / ``full``; ``v2/<game>/metadata.json`` (what ``python -m
craftext.validate --metadata`` found on the default release: goals that fire at once, the
scripted expert's completion per scenario and level); and ``craftext/data/vocab.json`` (every word
of every shipped phrasing: v1's sorted, then the words only v2 uses, sorted, so that v1's word ids
never change). One JSON record per goal and split: ``key``, ``scenario``, ``args``, ``classic``,
``category``, ``level``, ``split``, ``phrasings``.

Quality gates, enforced when a release is built and re-checked by the tests: no test phrasing
appears in training; no ``test_new_objects`` goal's parameter combination appears in training;
no duplicate goal within a split and no duplicate phrasing; every level has all three splits;
every goal constructs (so its blocks, items and achievements exist in its Craftax version).

Usage::

    python -m craftext.dataset stats [--data-version v1|v2] [--release default|full] [--version classic|full]
    python -m craftext.dataset build            # regenerate the shipped files (deterministic)
    python -m craftext.dataset import-official PATH
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from craftext.generator import LEVELS, SPLITS, combination, held_out, level, parameter_space, phrase, phrasings
from craftext.goals import Goal, Scenario
from craftext.quality import foreign_objects, infeasible
from craftext.tokenizer import Vocabulary, words

DATA = Path(__file__).parent / "data"
VOCABULARY = DATA / "vocab.json"
RELEASES = {"default": ("default.jsonl", 6), "full": ("full.jsonl.gz", 7)}
DATA_VERSIONS = ("v1", "v2")
"""``v1``: the release as first published (the paper-comparable figures use it; unchanged).
``v2``: v1 without the goals the Craftax rules make infeasible (``craftext.quality.infeasible``),
and each phrasing that names a block or item its goal does not involve
(``craftext.quality.foreign_objects``) drawn again until it names none; every other goal and
phrasing is v1's."""
DEFAULT_TRAIN_PER_SCENARIO, DEFAULT_NEW_PER_SCENARIO = 25, 8


class DatasetError(ValueError):
    """A dataset file or release breaks the format or a quality gate."""


@dataclass(frozen=True)
class Entry:
    goal: Goal
    level: str
    split: str
    phrasings: tuple[str, ...]

    def to_json(self) -> dict:
        return {**self.goal.to_json(), "level": self.level, "split": self.split, "phrasings": list(self.phrasings)}

    @classmethod
    def from_json(cls, record: dict, where: str) -> Entry:
        try:
            goal = Goal(record["scenario"], record["args"], record["classic"])
            entry = cls(goal, record["level"], record["split"], tuple(record["phrasings"]))
        except (KeyError, TypeError, ValueError) as e:
            raise DatasetError(f"{where}: {type(e).__name__}: {e}") from None
        if entry.level not in LEVELS or entry.split not in SPLITS or not entry.phrasings:
            raise DatasetError(f"{where}: bad level / split / phrasings")
        return entry


@dataclass
class Dataset:
    """Goals with their phrasings (one level and split, or a whole release)."""

    entries: list[Entry]

    def pairs(self) -> list[tuple[Goal, tuple[str, ...]]]:
        return [(e.goal, e.phrasings) for e in self.entries]

    def texts(self) -> list[str]:
        return [t for e in self.entries for t in e.phrasings]

    def select(self, level: str | None = None, split: str | None = None) -> Dataset:
        return Dataset([e for e in self.entries if (level is None or e.level == level) and (split is None or e.split == split)])


# ----------------------------------------------------------------------------- building
def build_release(classic: bool, release: str = "default", seed: int = 0, data_version: str = "v1") -> Dataset:
    """Generate a release (``v2``: from v1's, see ``DATA_VERSIONS``) and enforce the quality gates."""
    if data_version == "v2":
        return repaired(build_release(classic, release, seed), seed)
    per_goal = RELEASES[release][1]
    rng = np.random.default_rng(seed + (0 if classic else 1))
    by_cell: dict[tuple[str, Scenario], list[Goal]] = defaultdict(list)
    for goal in parameter_space(classic):
        by_cell[(level(goal), goal.scenario)].append(goal)
    entries: list[Entry] = []
    for (lvl, _), goals in sorted(by_cell.items(), key=lambda kv: (LEVELS.index(kv[0][0]), kv[0][1])):
        new = [g for g in goals if held_out(g)]
        train = [g for g in goals if not held_out(g)]
        if release == "default":
            train = [train[i] for i in sorted(rng.permutation(len(train))[:DEFAULT_TRAIN_PER_SCENARIO])]
            new = [new[i] for i in sorted(rng.permutation(len(new))[:DEFAULT_NEW_PER_SCENARIO])]
        for goal in train:
            entries.append(Entry(goal, lvl, "train", tuple(phrasings(goal, per_goal, rng))))
        for goal in train[: max(1, len(train) // 3)] if train else []:
            entries.append(Entry(goal, lvl, "test_paraphrased", tuple(phrasings(goal, per_goal, rng, test=True))))
        for goal in new:
            entries.append(Entry(goal, lvl, "test_new_objects", tuple(phrasings(goal, per_goal, rng))))
    dataset = Dataset(entries)
    check_gates(dataset)
    return dataset


def repaired(v1: Dataset, seed: int = 0, tries: int = 1000) -> Dataset:
    """v2 from a v1 release: infeasible goals dropped, each phrasing naming a foreign object drawn
    again (a test-paraphrased one from the held-out frame) until it names none and is new; gates enforced."""
    rng = np.random.default_rng(seed + 2)
    used = set(v1.texts())
    entries = []
    for e in v1.entries:
        if infeasible(e.goal):
            continue
        texts = []
        for text in e.phrasings:
            if foreign_objects(e.goal, text):
                drawn = (phrase(e.goal, rng, test=e.split == "test_paraphrased") for _ in range(tries))
                new = next((t for t in drawn if t not in used and not foreign_objects(e.goal, t)), None)
                if new is None:
                    raise DatasetError(f"{e.goal.key()} ({e.split}): no new phrasing without a foreign object in {tries} draws")
                used.add(new)
                text = new
            texts.append(text)
        entries.append(Entry(e.goal, e.level, e.split, tuple(texts)))
    dataset = Dataset(entries)
    check_gates(dataset)
    return dataset


def check_gates(dataset: Dataset) -> dict[str, int]:
    """Raise ``DatasetError`` if a quality gate fails; else counts of what was checked."""
    train = dataset.select(split="train")
    train_texts = set(train.texts())
    train_combinations = {combination(e.goal) for e in train.entries}
    leaks = [t for e in dataset.entries if e.split != "train" for t in e.phrasings if t in train_texts]
    if leaks:
        raise DatasetError(f"{len(leaks)} test phrasings also appear in train, e.g. {leaks[0]!r}")
    new_leaks = [e.goal.key() for e in dataset.select(split="test_new_objects").entries if combination(e.goal) in train_combinations]
    if new_leaks:
        raise DatasetError(f"{len(new_leaks)} new-objects goals combine parameters seen in train, e.g. {new_leaks[0]}")
    for split in SPLITS:
        keys = Counter((e.level, e.goal) for e in dataset.select(split=split).entries)
        dup = [k for k, c in keys.items() if c > 1]
        if dup:
            raise DatasetError(f"duplicate goal in {split}: {dup[0][1].key()}")
    texts = Counter(dataset.texts())
    dup_texts = [t for t, c in texts.items() if c > 1]
    if dup_texts:
        raise DatasetError(f"{len(dup_texts)} duplicate phrasings, e.g. {dup_texts[0]!r}")
    empty = [(lvl, s) for lvl in LEVELS for s in SPLITS if not dataset.select(lvl, s).entries]
    if empty:
        raise DatasetError(f"empty split: {empty[0]}")
    return {"phrasings": len(texts), "test_phrasings_checked": sum(len(e.phrasings) for e in dataset.entries if e.split != "train")}


def _path(classic: bool, release: str, data_version: str = "v1") -> Path:
    if data_version not in DATA_VERSIONS:
        raise ValueError(f"data version must be one of {DATA_VERSIONS}, not {data_version!r}")
    return DATA / data_version / ("classic" if classic else "full") / RELEASES[release][0]


def write(dataset: Dataset, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps(e.to_json(), sort_keys=True) + "\n" for e in dataset.entries)
    if path.suffix == ".gz":
        with gzip.GzipFile(path, "wb", mtime=0) as f:  # mtime 0: byte-identical rebuilds
            f.write(lines.encode())
    else:
        path.write_text(lines)


def build_all() -> None:
    """Regenerate every shipped release file and the vocabulary (v1's words, then v2's new ones)."""
    texts: dict[str, set[str]] = {v: set() for v in DATA_VERSIONS}
    for data_version in DATA_VERSIONS:
        for classic in (True, False):
            for release in RELEASES:
                dataset = build_release(classic, release, data_version=data_version)
                write(dataset, _path(classic, release, data_version))
                texts[data_version].update(dataset.texts())
    known = sorted({w for t in texts["v1"] for w in words(t)})
    new = sorted({w for t in texts["v2"] for w in words(t)} - set(known))
    VOCABULARY.write_text(json.dumps(known + new, indent=0))


# ----------------------------------------------------------------------------- loading
@functools.cache
def load_release(classic: bool = True, release: str = "default", data_version: str = "v1") -> Dataset:
    """A whole shipped release (every level and split)."""
    path = _path(classic, release, data_version)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        return Dataset([Entry.from_json(json.loads(line), f"{path}, line {i}") for i, line in enumerate(f, 1) if line.strip()])


def load(level: str = "medium", split: str = "train", classic: bool = True, release: str = "default", data_version: str = "v1") -> Dataset:
    """One level and split of a shipped release."""
    if level not in LEVELS or split not in SPLITS:
        raise ValueError(f"level must be one of {LEVELS} and split one of {SPLITS}")
    return load_release(classic, release, data_version).select(level, split)


@functools.cache
def vocabulary() -> Vocabulary:
    """The vocabulary of every shipped phrasing (unknown words of user instructions map to id 1)."""
    return Vocabulary.load(VOCABULARY)


# ----------------------------------------------------------------------------- statistics
def statistics(dataset: Dataset) -> dict[str, dict]:
    """Goals, phrasings and vocabulary per scenario, level and split."""
    out: dict[str, dict] = {"scenario": {}, "level": {}, "split": {}}
    groups = {
        "scenario": lambda e: e.goal.scenario.name,
        "level": lambda e: e.level,
        "split": lambda e: e.split,
    }
    for name, key in groups.items():
        buckets: dict[str, list[Entry]] = defaultdict(list)
        for e in dataset.entries:
            buckets[key(e)].append(e)
        for value, entries in buckets.items():
            texts = [t for e in entries for t in e.phrasings]
            out[name][value] = {
                "goals": len({e.goal for e in entries}),
                "phrasings": len(texts),
                "vocabulary": len({w for t in texts for w in words(t)}),
            }
    texts = dataset.texts()
    out["total"] = {
        "goals": len({e.goal for e in dataset.entries}),
        "phrasings": len(texts),
        "vocabulary": len({w for t in texts for w in words(t)}),
    }
    return out


def metadata_path(classic: bool, data_version: str) -> Path:
    """What ``python -m craftext.validate RELEASE_FILE --metadata`` found on a version's default
    release (shipped for v2)."""
    return _path(classic, "default", data_version).with_name("metadata.json")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m craftext.dataset", description=__doc__.split("\n\n")[0].replace("``", ""))
    sub = p.add_subparsers(dest="command", required=True)
    stats = sub.add_parser("stats", help="goals, phrasings and vocabulary per scenario, level and split; leak check")
    stats.add_argument("--data-version", default="v1", choices=DATA_VERSIONS, help="v1 (the paper's) or v2 (DATA_VERSIONS)")
    stats.add_argument("--release", default="default", choices=list(RELEASES))
    stats.add_argument("--version", default="classic", choices=("classic", "full"), help="Craftax version")
    sub.add_parser("build", help="regenerate the shipped dataset files")
    official = sub.add_parser("import-official", help="import the official CrafText data (wheel, folder or installed copy)")
    official.add_argument("path", help="the official craftext 0.2.2 wheel, an unpacked folder or an installed copy's site-packages")
    official.add_argument("--out", type=Path, help="write the imported goals here as a goal file (JSON lines) for --goals-file")
    official.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    return p


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    if args.command == "build":
        build_all()
        print(f"wrote {DATA}")
    elif args.command == "import-official":
        from craftext.official import main as import_main

        import_main(args.path, out=args.out, overwrite=args.overwrite)
    else:
        dataset = load_release(args.version == "classic", args.release, args.data_version)
        s = statistics(dataset)
        print(
            f"CrafText {args.data_version} {args.release} release, {args.version}: {s['total']['goals']} goals, "
            f"{s['total']['phrasings']} phrasings, vocabulary {s['total']['vocabulary']}"
        )
        for group in ("scenario", "level", "split"):
            print(f"\n{group:<22} {'goals':>6} {'phrasings':>10} {'vocabulary':>11}")
            for value, row in sorted(s[group].items()):
                print(f"{value:<22} {row['goals']:>6} {row['phrasings']:>10} {row['vocabulary']:>11}")
        checked = check_gates(dataset)
        print(
            f"\nleak check: passed ({checked['test_phrasings_checked']} test phrasings, none in train; no new-objects combination in train)"
        )


if __name__ == "__main__":
    main()
