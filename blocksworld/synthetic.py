"""Synthetic BAP v2 data: games of the dialogue simulators, split by target structure.

Simulators (``blocksworld.simulators``): ``random`` (random structures, block-by-block dialogues),
``blocks`` (three-shape structures of all six shapes, blocks-based dialogues), ``shapes``
(two-shape structures of rows, diagonals and planes, shape-based dialogues), and ``explicit``
(one block on an absolutely named ground square: not in the paper, a grounding check). Game ``k`` of seed
``s`` is drawn from its own generator, so it does not depend on how many games are asked for; each
game has its own target structure and goes to train / dev / test with probabilities 0.8 / 0.1 /
0.1 (the corpus splits by structure too).

Items are ``BapItem``s, exactly what ``blocksworld.data`` derives from the corpus: ``write_corpus``
writes games in the corpus's own layout (``logs/splits.json``, one
``postprocessed-observations.json`` per game, ``gold-configurations/<id>.xml``), and the corpus
loader reads them back into the same items.

Usage: ``python -m blocksworld.synthetic [--games N] [--seed S] [--simulators random blocks shapes]
[--out DIR [--format jsonl|corpus]]`` prints per simulator and split the games, items, empty-board
items, mean raw / net action-sequence length, vocabulary size, spatial-relation types and items per
minute.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from blocksworld import lexicon
from blocksworld.data import split_statistics, write_jsonl
from blocksworld.grid import COLOURS, PLACE
from blocksworld.item import ARCHITECT, BUILDER
from blocksworld.simulators import SIMULATORS, Game, generate_items, generate_targets, simulate_game
from blocksworld.tokenizer import Vocabulary, words

if TYPE_CHECKING:
    from blocksworld.env import BlocksWorld, EnvParams

RELATION_KINDS = ("none", "1D", "2D", "3D", "builder-anchored", "absolute")
"""How instructions locate their blocks (counted per game by ``statistics``)."""


def simulate(simulator: str, num_games: int, seed: int = 0) -> list[Game]:
    return [simulate_game(simulator, k, seed) for k in range(num_games)]


def vocabulary() -> Vocabulary:
    """Dialogue tokens covering every line the simulators can produce (no unknown words), so
    params drawn from fresh games keep the token table of the first ones."""
    tokens = sorted(lexicon.words()) + [str(n) for n in range(21)] + list(",.!?-'")
    return Vocabulary(tokens)


def episode_params(env: BlocksWorld, simulator: str, num_items: int, seed: int, **settings) -> EnvParams:
    """Params of ``num_items`` fresh synthetic episodes for a BlocksWorld env (BAP items or, for
    Build, target structures): same shapes for every seed, so one compiled step runs them all."""
    if env.task == "build":
        items = generate_targets(num_items, seed, simulator)
    else:
        items = generate_items(num_items, seed, simulator)
    return env.make_params(items, **settings)


def endless_params(env: BlocksWorld, simulator: str, num_items: int, seed: int = 0, **settings) -> Iterator[EnvParams]:
    """``episode_params`` for seeds ``seed``, ``seed + 1``, ...: swap them in between jitted
    training chunks for an endless supply of tasks without recompiling."""
    for k in itertools.count(seed):
        yield episode_params(env, simulator, num_items, k, **settings)


def statistics(games: Sequence[Game]) -> dict[str, float]:
    """``blocksworld.data.split_statistics`` of the games' items, their vocabulary size and their
    spatial-relation counts."""
    vocab = {w for g in games for speaker, text in g.history if speaker in (ARCHITECT, BUILDER) for w in words(text)}
    relations = sum((g.relations for g in games), Counter())
    return {
        **split_statistics([i for g in games for i in g.items]),
        "vocabulary": len(vocab),
        **{f"relations_{k}": relations[k] for k in RELATION_KINDS},
    }


def _snapshot(pose, chat: list[str], blocks: dict) -> dict:
    x, y, z, yaw, pitch = pose
    return {
        "BuilderPosition": {"X": x, "Y": y, "Z": z, "Yaw": yaw, "Pitch": pitch},
        "ChatHistory": list(chat),
        "BlocksInGrid": [
            {"AbsoluteCoordinates": {"X": cx, "Y": cy, "Z": cz}, "Type": f"cwc_minecraft_{COLOURS[colour - 1]}_rn"}
            for (cx, cy, cz), colour in sorted(blocks.items())
        ],
    }


def game_log(game: Game) -> dict:
    """The game as a corpus ``postprocessed-observations.json``: two empty snapshots, then one per
    chat line and one per action."""
    first_pose = game.events[0][2]
    chat: list[str] = []
    blocks: dict = {}
    states = [_snapshot(first_pose, chat, blocks), _snapshot(first_pose, chat, blocks)]
    for event in game.events:
        if event[0] == "chat":
            chat.append(event[1])
        else:
            kind, x, y, z, colour = event[1]
            if kind == PLACE:
                blocks[(x, y, z)] = colour
            else:
                del blocks[(x, y, z)]
        states.append(_snapshot(event[2], chat, blocks))
    return {"WorldStates": states}


def write_corpus(games: Sequence[Game], directory: str | Path) -> None:
    """Write games in the corpus layout under ``directory`` (readable by ``blocksworld.data``)."""
    directory = Path(directory)
    splits: dict[str, list[str]] = {"train": [], "val": [], "test": []}
    names = {"train": "train", "dev": "val", "test": "test"}
    for game in games:
        splits[names[game.split]].append(game.structure_id)
        log_dir = directory / "logs" / "data-synthetic" / "logs" / game.game_id
        log_dir.mkdir(parents=True, exist_ok=True)
        (log_dir / "postprocessed-observations.json").write_text(json.dumps(game_log(game)))
        gold = directory / "gold-configurations" / f"{game.structure_id}.xml"
        gold.parent.mkdir(parents=True, exist_ok=True)
        gold.write_text(
            "".join(
                f'<DrawBlock type="cwc_minecraft_{COLOURS[c - 1]}_rn" x="{x + 100}" y="{y}" z="{z + 100}"/>\n'
                for x, y, z, c in game.items[-1].end
            )
        )
    (directory / "logs" / "splits.json").write_text(json.dumps(splits))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m blocksworld.synthetic", description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=200, help="games per simulator (default 200)")
    p.add_argument("--seed", type=int, default=0, help="simulator seed (default 0)")
    p.add_argument("--simulators", nargs="+", default=list(SIMULATORS), choices=list(SIMULATORS))
    p.add_argument("--out", type=Path, help="write the games here, one folder per simulator")
    p.add_argument("--overwrite", action="store_true", help="replace what --out holds")
    p.add_argument("--format", choices=("jsonl", "corpus"), default="jsonl", help="items-<split>.jsonl or the corpus's log layout")
    return p


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    if args.out and args.out.exists() and any(args.out.iterdir()) and not args.overwrite:
        raise SystemExit(f"error: {args.out} already exists; replace it with --overwrite or choose another --out")
    header = (
        f"{'simulator':<9} {'split':<5} {'games':>6} {'items':>7} {'EB':>5} {'raw len':>7} {'net len':>7} {'vocab':>5}  relations ("
        + "/".join(RELATION_KINDS)
        + ")"
    )
    print(header)
    for simulator in args.simulators:
        began = time.perf_counter()
        games = simulate(simulator, args.games, args.seed)
        seconds = time.perf_counter() - began
        for split in ("train", "dev", "test", "all"):
            chosen = [g for g in games if split in ("all", g.split)]
            s = statistics(chosen)
            relations = "/".join(str(s[f"relations_{k}"]) for k in RELATION_KINDS)
            print(
                f"{simulator:<9} {split:<5} {s['games']:>6} {s['items']:>7} {s['empty_board_items']:>5} "
                f"{s['raw_mean']:>7.2f} {s['net_mean']:>7.2f} {s['vocabulary']:>5}  {relations}"
            )
        items = sum(len(g.items) for g in games)
        print(f"{simulator}: {items} items in {seconds:.1f} s = {items / seconds * 60:,.0f} items/min")
        if args.out:
            out = args.out / simulator
            out.mkdir(parents=True, exist_ok=True)
            if args.format == "corpus":
                write_corpus(games, out)
            else:
                for split in ("train", "dev", "test"):
                    write_jsonl([i for g in games if g.split == split for i in g.items], out / f"items-{split}.jsonl")
            print(f"wrote {simulator} games to {out}")


if __name__ == "__main__":
    main()
