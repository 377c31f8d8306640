"""The three BAP v2 dialogue simulators (Jayannavar et al., section 5 and appendix 11).

Each iteration of a game is one dialogue segment and one BAP item: the Architect plans the next
block(s), the Builder's pose is sampled facing the action area (``blocksworld.spatial``), the
Architect instructs (template-based, ``blocksworld.lexicon``), optionally leaving out one element
that the Builder then asks for, the Builder acts (``Game.act``: a floating block gets a temporary
column of supporting blocks beneath it, placed before and removed after it) and may say "done".

* ``random_dialogue``: a random structure grown block by block: the first four actions place, then
  90% placements and 10% removals; a placement goes to a random empty cell of the connected
  neighbourhood (faces and edges) of the structure, in a random colour; removals keep the
  structure grounded and connected.
* ``blocks_dialogue``: a given shape structure, shape by shape, the next block preferring the
  neighbourhood of the last one, then as many blocks as continue the same direction from the
  reference block ("place three red blocks to the left of the last block").
* ``explicit_dialogue`` (not in the paper; a grounding check for learned Builders): blocks on the
  ground at absolute squares ("put a red block on the ground at square 3 from the west and 8 from
  the south"), one per instruction.
* ``shape_dialogue``: a given structure of two shapes (rows, diagonals, planes), one whole shape
  per instruction from a bottom corner, its directions anchored to the Builder ("going up and to
  your left"), the second one's start placed relative to the last block of the first.

Reference blocks (the closest block sharing a face or an edge with the target, the last block of
the previous action first on ties) are named by priority: the last block placed / removed, the only
block of its colour, the unique extreme of its colour in the Builder's frame ("the leftmost red
block"); a closest block that none of these names is skipped for the next closest.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence

from blocksworld import lexicon as lx
from blocksworld.grid import BLOCKS_PER_COLOUR, COLOURS, FACES, NUM_COLOURS, PICK, PLACE, Action, in_region
from blocksworld.item import ARCHITECT, BUILDER, BapItem
from blocksworld.shapes import NEIGHBOURS, SHAPE_KINDS, Cell, Shape, connected, shape_structure, touches
from blocksworld.spatial import Pose, sample_pose, to_builder

P_DONE = 0.2
"""Probability that the Builder says "done" after acting."""
P_OMIT = 0.1
"""Probability that the instruction leaves out each omissible element (one at most per instruction)."""
P_ELLIPSIS = 0.1
"""Probability of leaving out "the last block" when it is the reference of a placement."""
P_FRONTED = 0.25
"""Probability of the other word order: the location before the verb ("to the left of the red one,
put a blue block"), a shape's directions before its size."""
MAX_BLOCKS = 40
"""The random structure stops growing (it only loses blocks) at this size."""

_NEIGHBOURS = frozenset(NEIGHBOURS)


def _sub(a: Cell, b: Cell) -> Cell:
    return a[0] - b[0], a[1] - b[1], a[2] - b[2]


def _add(a: Cell, b: Cell, k: int = 1) -> Cell:
    return a[0] + k * b[0], a[1] + k * b[1], a[2] + k * b[2]


def _distance(a: Cell, b: Cell) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2])


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _number(rng: random.Random, n: int) -> str:
    return lx.NUMBERS[n] if n < len(lx.NUMBERS) and rng.random() < 0.7 else str(n)


class Game:
    """One simulated game: the board, the Builder's inventory and pose, the dialogue history, the
    BAP items cut from it and a log of events (``blocksworld.synthetic.write_corpus`` writes it in
    the corpus's format). ``relations`` counts the spatial-relation types the Architect used."""

    def __init__(self, game_id: str, structure_id: str, split: str, rng: random.Random):
        self.game_id, self.structure_id, self.split, self.rng = game_id, structure_id, split, rng
        self.blocks: dict[Cell, int] = {}
        self.inventory = [0] + [BLOCKS_PER_COLOUR] * NUM_COLOURS
        self.history: list[tuple[str, str]] = []
        self.items: list[BapItem] = []
        self.events: list[tuple] = []
        self.relations: Counter[str] = Counter()
        self.last: tuple[str, Cell, int] | None = None
        self.pose: Pose | None = None
        self.state = 2  # the corpus-log index of the next snapshot (0 and 1 hold the empty start)

    # ----------------------------------------------------------------- board
    def supported(self, cell: Cell, placed: set[Cell] | frozenset[Cell] = frozenset()) -> bool:
        """A block at ``cell`` rests on the floor or shares a face with a block (or with ``placed``)."""
        return cell[1] == 1 or any(_add(cell, f) in self.blocks or _add(cell, f) in placed for f in FACES)

    def face_pose(self, focus: Sequence[Cell]) -> Pose:
        self.pose = sample_pose(self.rng, focus, set(self.blocks))
        return self.pose

    def say(self, speaker: str, text: str) -> None:
        self.history.append((speaker, text))
        self.events.append(("chat", f"<{speaker}> {text}", self.pose))
        self.state += 1

    def dialogue(self, lines: Sequence[tuple[str, str]]) -> None:
        for speaker, text in lines:
            self.say(speaker, text)

    def _do(self, kind: str, cell: Cell, colour: int, actions: list[Action]) -> None:
        if kind == PLACE:
            self.blocks[cell] = colour
            self.inventory[colour] -= 1
        else:
            del self.blocks[cell]
            self.inventory[colour] += 1
        action = (kind, *cell, colour)
        actions.append(action)
        self.events.append(("act", action, self.pose))

    def act(self, targets: Sequence[Action]) -> None:
        """The Builder performs ``targets`` in order, as one BAP item; an unsupported placement gets
        a column of supporting blocks (the colour the Builder has most of) placed beneath it first
        and removed after it."""
        start = tuple(sorted((*c, v) for c, v in self.blocks.items()))
        history = tuple(self.history)
        actions: list[Action] = []
        for kind, x, y, z, colour in targets:
            cell = (x, y, z)
            if kind == PICK:
                self._do(PICK, cell, colour, actions)
                continue
            column, below = [], cell
            while not self.supported(below):
                below = (x, below[1] - 1, z)
                column.append(below)
            support = max((c for c in range(1, NUM_COLOURS + 1) if c != colour), key=lambda c: self.inventory[c])
            for c in reversed(column):
                self._do(PLACE, c, support, actions)
            self._do(PLACE, cell, colour, actions)
            for c in column:
                self._do(PICK, c, support, actions)
        for action in actions:
            self.history.append((action[0], COLOURS[action[4] - 1]))
        self.items.append(
            BapItem(
                game_id=self.game_id,
                structure_id=self.structure_id,
                split=self.split,
                sample_id=self.state,
                start=start,
                end=tuple(sorted((*c, v) for c, v in self.blocks.items())),
                actions=tuple(actions),
                action_states=tuple(range(self.state, self.state + len(actions))),
                history=history,
                builder_pose=self.pose,
            )
        )
        self.state += len(actions)
        kind, *cell, colour = targets[-1]
        self.last = (kind, tuple(cell), colour)
        if self.rng.random() < P_DONE:
            self.say(BUILDER, self.rng.choice(lx.DONE))

    # ----------------------------------------------------------------- language
    def needs_support(self, cells: Sequence[Cell]) -> bool:
        """Some of ``cells``, placed in order, floats when its turn comes."""
        placed: set[Cell] = set()
        for cell in cells:
            if not self.supported(cell, placed):
                return True
            placed.add(cell)
        return False

    def reference_phrase(self, cell: Cell) -> str | None:
        """A phrase naming the block at (or, for the last removed one, last at) ``cell``, or None."""
        rng = self.rng
        if self.last is not None and self.last[1] == cell:
            return rng.choice(lx.LAST_PLACED if self.last[0] == PLACE else lx.LAST_REMOVED)
        colour = self.blocks[cell]
        same = [c for c, v in self.blocks.items() if v == colour]
        name = COLOURS[colour - 1]
        if len(same) == 1:
            return rng.choice(lx.UNIQUE_COLOUR).format(colour=name)
        yaw = self.pose[3]
        frame = {c: to_builder(c, yaw) for c in same}
        options = [
            names
            for (axis, sign), names in lx.EXTREMES.items()
            if all(sign * frame[o][axis] < sign * frame[cell][axis] for o in same if o != cell)
        ]
        if not options:
            return None
        return rng.choice(lx.EXTREME_COLOUR).format(extreme=rng.choice(rng.choice(options)), colour=name)

    def reference(self, target: Cell) -> tuple[Cell, str] | None:
        """The closest nameable block sharing a face or an edge with ``target`` (the last block
        first on ties), and its phrase."""
        candidates = [c for c in self.blocks if c != target and _sub(target, c) in _NEIGHBOURS]
        last = self.last[1] if self.last is not None else None
        if self.last is not None and self.last[0] == PICK and last != target and _sub(target, last) in _NEIGHBOURS:
            candidates.append(last)
        keyed = sorted((_distance(c, target), c != last, self.rng.random(), c) for c in candidates)
        for *_, cell in keyed:
            phrase = self.reference_phrase(cell)
            if phrase is not None:
                return cell, phrase
        return None

    def relation(self, offset: Cell) -> str:
        """Words for a world offset of a target from a reference, in the Builder's frame, ending
        in "of" where English wants it ("to the left of", "behind", "one to the left and two above")."""
        rng = self.rng
        parts = [(axis, 1 if v > 0 else -1, abs(v)) for axis, v in enumerate(to_builder(offset, self.pose[3])) if v]
        kind = f"{len(parts)}D"
        self.relations[kind] += 1
        if all(m == 1 for *_, m in parts) and len(parts) == 1:
            return rng.choice(lx.RELATIONS[parts[0][:2]])
        if all(m == 1 for *_, m in parts) and len(parts) == 2:
            words = [lx.COMPOUND_UP[s] if axis == 1 else lx.RELATIONS[(axis, s)][0] for axis, s, _ in parts]
            rng.shuffle(words)
            return rng.choice(lx.DIAGONALLY) + " and ".join(words)
        words = [f"{_number(rng, m)} {lx.COUNTED[(axis, s)]}" for axis, s, m in parts]
        if parts[-1][:2] in ((0, 1), (0, -1), (2, -1)):
            words[-1] += " of"
        return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]

    def place_instruction(self, cells: Sequence[Cell], colour: int, reference: tuple[Cell, str]) -> list[tuple[str, str]]:
        """Lines that ask for ``cells`` (a run from the reference outwards) in ``colour``."""
        rng = self.rng
        ref_cell, ref_phrase = reference
        relation = self.relation(_sub(cells[0], ref_cell))
        if self.last is not None and self.last[0] == PLACE and self.last[1] == ref_cell and rng.random() < P_ELLIPSIS:
            location = relation.removesuffix(" of")
        else:
            location = f"{relation} {ref_phrase}"
        floating = f"{lx.FLOATING} " if self.needs_support(cells) else ""
        name = COLOURS[colour - 1]
        omit = rng.choices((None, "colour", "location"), (1 - 2 * P_OMIT, P_OMIT, P_OMIT))[0]
        shown = "" if omit == "colour" else f"{name} "
        if len(cells) == 1:
            words = f"{floating}{shown}{rng.choice(lx.NOUNS)}"
            obj = f"{_article(words)} {words}"
        else:
            obj = f"{_number(rng, len(cells))} {floating}{shown}{rng.choice(lx.PLURAL_NOUNS)}"
        verb = rng.choice(lx.PLACE_VERBS)
        where = "" if omit == "location" else f" {location}"
        if where and rng.random() < P_FRONTED:
            text = f"{rng.choice(lx.OPENERS)}{location}, {verb} {obj}"
        else:
            text = f"{rng.choice(lx.OPENERS)}{verb} {obj}{where}"
        lines = [(ARCHITECT, text + rng.choice(lx.ENDINGS))]
        if omit == "colour":
            answers = lx.COLOUR_ANSWERS if len(cells) > 1 else lx.COLOUR_ANSWERS[:3]
            lines += [(BUILDER, rng.choice(lx.COLOUR_QUESTIONS)), (ARCHITECT, rng.choice(answers).format(colour=name))]
        elif omit == "location":
            lines += [(BUILDER, rng.choice(lx.WHERE_QUESTIONS)), (ARCHITECT, location)]
        return lines

    def first_instruction(self, colour: int) -> list[tuple[str, str]]:
        name = COLOURS[colour - 1]
        obj = f"{_article(name)} {name} {self.rng.choice(lx.NOUNS)}"
        text = self.rng.choice(lx.FIRST_BLOCK).format(obj=obj, verb=self.rng.choice(lx.PLACE_VERBS))
        return [(ARCHITECT, f"{text}{self.rng.choice(lx.ENDINGS)}")]


# --------------------------------------------------------------------------- random structures
def _first_block(game: Game, cell: Cell, colour: int) -> None:
    game.face_pose([cell])
    game.relations["none"] += 1
    game.dialogue(game.first_instruction(colour))
    game.act([(PLACE, *cell, colour)])


def _removable(game: Game) -> list[Cell]:
    """Blocks whose removal leaves a grounded, connected structure of at least one block."""
    if len(game.blocks) < 2:
        return []
    out = []
    for cell in game.blocks:
        rest = [c for c in game.blocks if c != cell]
        if any(c[1] == 1 for c in rest) and connected(rest):
            out.append(cell)
    return out


def random_dialogue(game: Game, min_actions: int = 6, max_actions: int = 20) -> bool:
    """Grow and edit a random structure for ``min_actions``..``max_actions`` iterations."""
    rng = game.rng
    for step in range(rng.randint(min_actions, max_actions)):
        if not game.blocks:
            _first_block(game, (rng.randint(-3, 3), 1, rng.randint(-3, 3)), rng.randint(1, NUM_COLOURS))
            continue
        removable = _removable(game) if step >= 4 and (rng.random() < 0.1 or len(game.blocks) >= MAX_BLOCKS) else []
        if removable:
            target = rng.choice(removable)
            colour = game.blocks[target]
            game.face_pose([target])
            if game.last is not None and game.last[0] == PLACE and game.last[1] == target:
                game.relations["none"] += 1
                game.dialogue([(ARCHITECT, rng.choice(lx.REMOVE_LAST))])
                game.act([(PICK, *target, colour)])
                continue
            reference = game.reference(target)
            if reference is not None:  # else place a block instead
                ref_cell, phrase = reference
                noun = rng.choice(lx.NOUNS)
                text = (  # one f-string, so the words are drawn in this order
                    f"{rng.choice(lx.OPENERS)}{rng.choice(lx.REMOVE_VERBS)} the {COLOURS[colour - 1]} {noun} "
                    f"{game.relation(_sub(target, ref_cell))} {phrase}"
                )
                game.dialogue([(ARCHITECT, text + rng.choice(lx.ENDINGS))])
                game.act([(PICK, *target, colour)])
                continue
        frontier = sorted(c for c in {_add(b, n) for b in game.blocks for n in NEIGHBOURS} - game.blocks.keys() if in_region(*c))
        colours = [c for c in range(1, NUM_COLOURS + 1) if game.inventory[c] > 5]
        for _ in range(20):
            target = rng.choice(frontier)
            game.face_pose([target])
            reference = game.reference(target)
            if reference is not None:
                colour = rng.choice(colours)
                game.dialogue(game.place_instruction([target], colour, reference))
                game.act([(PLACE, *target, colour)])
                break
    return True


def explicit_dialogue(game: Game, num_blocks: int = 1) -> bool:
    """``num_blocks`` blocks on free ground squares, each named by its absolute square."""
    rng = game.rng
    for _ in range(num_blocks):
        free = [(x, 1, z) for x in range(-5, 6) for z in range(-5, 6) if (x, 1, z) not in game.blocks]
        cell, colour = rng.choice(free), rng.randint(1, NUM_COLOURS)
        game.face_pose([cell])
        game.relations["absolute"] += 1
        name = COLOURS[colour - 1]
        text = rng.choice(lx.EXPLICIT_PLACE).format(
            verb=rng.choice(lx.PLACE_VERBS), obj=f"{_article(name)} {name} {rng.choice(lx.NOUNS)}", x=cell[0] + 6, z=cell[2] + 6
        )
        game.dialogue([(ARCHITECT, f"{rng.choice(lx.OPENERS)}{text}{rng.choice(lx.ENDINGS)}")])
        game.act([(PLACE, *cell, colour)])
    return True


# --------------------------------------------------------------------------- shape structures
def blocks_dialogue(game: Game, shapes: Sequence[Shape], max_run: int = 5) -> bool:
    """Build ``shapes`` block by block (runs of up to ``max_run``); False if some block could not
    be described (the caller draws another structure)."""
    rng = game.rng
    remaining = [set(s.cells) for s in shapes]
    colour_of = {c: s.colour for s in shapes for c in s.cells}
    current = rng.choice([i for i, s in enumerate(shapes) if s.bottom == 1])
    while any(remaining):
        if not remaining[current]:
            current = rng.choice([i for i, r in enumerate(remaining) if r and touches(r, game.blocks)])
        if not game.blocks:
            target = rng.choice(sorted(c for c in remaining[current] if c[1] == 1))
            _first_block(game, target, colour_of[target])
            remaining[current].discard(target)
            continue
        last = game.last[1] if game.last is not None and game.last[0] == PLACE else None

        def priority(cell: Cell) -> tuple:
            near = 2 if last is None else (0 if _distance(cell, last) == 1 else 1 if _sub(cell, last) in _NEIGHBOURS else 2)
            return near, game.needs_support([cell]), cell[1], rng.random()

        candidates = sorted((c for c in remaining[current] if touches([c], game.blocks)), key=priority)
        for target in candidates:
            game.face_pose([target])
            reference = game.reference(target)
            if reference is None:
                continue
            step = _sub(target, reference[0])
            run = [target]
            while len(run) < max_run and _add(reference[0], step, len(run) + 1) in remaining[current]:
                run.append(_add(reference[0], step, len(run) + 1))
            game.dialogue(game.place_instruction(run, shapes[current].colour, reference))
            game.act([(PLACE, *c, shapes[current].colour) for c in run])
            remaining[current].difference_update(run)
            break
        else:
            return False
    return True


def bottom_corners(shape: Shape) -> list[Cell]:
    """The shape's cells at its lowest layer that are corners of its bounding box."""
    low = [[min(c[a] for c in shape.cells), max(c[a] for c in shape.cells)] for a in range(3)]
    return [c for c in shape.cells if c[1] == low[1][0] and c[0] in low[0] and c[2] in low[2]]


def shape_axes(shape: Shape, start: Cell) -> list[tuple[Cell, int]]:
    """(world unit step, number of blocks along it) spanning the shape from the corner ``start``:
    one diagonal step for a diagonal, one step for a row, two for a plane."""
    if shape.kind in ("row", "diagonal"):
        end = max(shape.cells, key=lambda c: _distance(c, start))
        return [(tuple((e > s) - (e < s) for e, s in zip(end, start)), len(shape.cells))]
    axes = []
    for a in range(3):
        values = {c[a] for c in shape.cells}
        if len(values) > 1:
            step = [0, 0, 0]
            step[a] = 1 if max(values) > start[a] else -1
            axes.append((tuple(step), len(values)))
    return axes


def builder_order(rng: random.Random, shape: Shape, start: Cell) -> list[Cell]:
    """The Builder's order for a shape from ``start``: along it for a row or a diagonal; a plane
    row by row or column by column, optionally zigzagging."""
    axes = shape_axes(shape, start)
    if len(axes) == 1:
        step, n = axes[0]
        return [_add(start, step, k) for k in range(n)]
    if rng.random() < 0.5:
        axes.reverse()
    (outer, n_outer), (inner, n_inner) = axes
    zigzag = rng.random() < 0.5
    order = []
    for i in range(n_outer):
        js = range(n_inner - 1, -1, -1) if zigzag and i % 2 else range(n_inner)
        order += [_add(_add(start, outer, i), inner, j) for j in js]
    return order


def _anchor(rng: random.Random, step: Cell, yaw: float) -> list[str]:
    """Builder-anchored words for each non-zero component of a world step ("up", "to your left")."""
    return [rng.choice(lx.ANCHORS[(axis, 1 if v > 0 else -1)]) for axis, v in enumerate(to_builder(step, yaw)) if v]


def shape_instruction(game: Game, shape: Shape, start: Cell, where: str | None) -> list[tuple[str, str]]:
    """Lines that ask for the whole ``shape`` from ``start`` (``where``: its start relative to the
    last block, for the second shape)."""
    rng, yaw = game.rng, game.pose[3]
    axes = shape_axes(shape, start)
    rng.shuffle(axes)
    name = rng.choice(lx.SHAPE_NAMES[(shape.kind, shape.vertical)])
    tower = shape.kind == "row" and shape.vertical
    if shape.kind == "plane":
        (s1, a), (s2, b) = axes
        size = rng.choice(lx.AREA).format(a=_number(rng, a), b=_number(rng, b), da=a, db=b)
        directions = _anchor(rng, s1, yaw) + _anchor(rng, s2, yaw)
    else:
        ((step, n),) = axes
        size = rng.choice(lx.HEIGHT if tower else lx.LENGTH).format(n=_number(rng, n))
        directions = _anchor(rng, step, yaw)
        rng.shuffle(directions)
    going = f"{lx.GOING} " + " and ".join(directions)
    game.relations["builder-anchored"] += 1
    options = [None, "colour", "size"] + ([] if tower else ["direction"]) + ([] if where is None else ["start"])
    omit = rng.choices(options, [1 - P_OMIT * (len(options) - 1)] + [P_OMIT] * (len(options) - 1))[0]
    colour = COLOURS[shape.colour - 1]
    shown = "" if omit == "colour" else f"{colour} "
    words = f"{shown}{name}"
    text = f"{rng.choice(lx.OPENERS)}{rng.choice(lx.BUILD_VERBS)} {_article(words)} {words}"
    parts = ["" if omit == "size" else f" {size}", "" if omit == "direction" or (tower and rng.random() < 0.5) else f" {going}"]
    if parts[1] and parts[0] and rng.random() < P_FRONTED:  # "a red wall going up and to your left, 3x2"
        parts = [parts[1], "," + parts[0]]
    text += "".join(parts)
    start_clause = "" if where is None else rng.choice(lx.SHAPE_START).format(where=where)
    text += "" if omit == "start" else start_clause
    lines = [(ARCHITECT, text + rng.choice(lx.ENDINGS))]
    if omit == "colour":
        lines += [(BUILDER, rng.choice(lx.COLOUR_QUESTIONS)), (ARCHITECT, rng.choice(lx.COLOUR_ANSWERS[:3]).format(colour=colour))]
    elif omit == "size":
        if size.startswith("of "):  # alone, "of four blocks" is no answer: "four blocks long"
            size = (lx.HEIGHT if tower else lx.LENGTH)[0].format(n=size.split()[1])
        lines += [(BUILDER, rng.choice(lx.SIZE_QUESTIONS)), (ARCHITECT, size)]
    elif omit == "direction":
        lines += [(BUILDER, rng.choice(lx.DIRECTION_QUESTIONS)), (ARCHITECT, going)]
    elif omit == "start":
        lines += [(BUILDER, rng.choice(lx.START_QUESTIONS)), (ARCHITECT, start_clause.lstrip(", "))]
    return lines


def shape_dialogue(game: Game, shapes: Sequence[Shape]) -> bool:
    """Build a two-shape structure one whole shape per instruction."""
    rng = game.rng
    if len(shapes) != 2 or any(s.kind not in ("row", "diagonal", "plane") for s in shapes):
        raise ValueError("shape dialogues take two shapes among rows, diagonals and planes")
    first = rng.choice([s for s in shapes if s.bottom == 1])
    second = shapes[1] if first is shapes[0] else shapes[0]
    start = max(bottom_corners(first), key=lambda c: (min(_distance(c, o) for o in second.cells), rng.random()))
    order = builder_order(rng, first, start)
    game.face_pose(first.cells)
    game.dialogue(shape_instruction(game, first, start, None))
    game.act([(PLACE, *c, first.colour) for c in order])
    last = order[-1]
    start = min(bottom_corners(second), key=lambda c: (_distance(c, last), rng.random()))
    game.face_pose(second.cells)
    where = f"{game.relation(_sub(start, last))} {rng.choice(lx.LAST_PLACED)}"
    game.dialogue(shape_instruction(game, second, start, where))
    game.act([(PLACE, *c, second.colour) for c in builder_order(rng, second, start)])
    return True


SIMULATORS = {"random": "RND", "blocks": "BLK", "shapes": "SHP", "explicit": "EXP"}
"""Simulator name -> the prefix of its structure ids."""
SPLITS = (("train", 0.8), ("dev", 0.1), ("test", 0.1))


def simulate_game(simulator: str, index: int, seed: int = 0) -> Game:
    """Game ``index`` of ``simulator`` for ``seed`` (deterministic)."""
    if simulator not in SIMULATORS:
        raise ValueError(f"unknown simulator {simulator!r}; use one of {', '.join(SIMULATORS)}")
    rng = random.Random(f"{simulator}:{seed}:{index}")
    split = rng.choices([name for name, _ in SPLITS], [fraction for _, fraction in SPLITS])[0]
    structure_id = f"{SIMULATORS[simulator]}{seed}_{index}"
    game_id = f"B0-A0-{structure_id}-{index:013d}"
    while True:
        game = Game(game_id, structure_id, split, rng)
        if simulator == "random":
            done = random_dialogue(game)
        elif simulator == "explicit":
            done = explicit_dialogue(game)
        elif simulator == "blocks":
            done = blocks_dialogue(game, shape_structure(rng, 3, SHAPE_KINDS))
        else:
            done = shape_dialogue(game, shape_structure(rng, 2, ("row", "diagonal", "plane")))
        if done:
            return game


def generate_items(num_items: int, seed: int = 0, simulator: str = "random") -> list[BapItem]:
    """The first ``num_items`` BAP items of the simulator's games 0, 1, ..."""
    items: list[BapItem] = []
    for k in itertools.count():
        if len(items) >= num_items:
            return items[:num_items]
        items += simulate_game(simulator, k, seed).items


def as_target(game: Game) -> BapItem:
    """A Build item of a game: empty start, the game's final structure, the Builder's whole action
    sequence (temporary supports included) as the gold actions, its first pose, and the game's
    whole chat (every Architect and Builder line, no actions) as its instruction."""
    items = game.items
    chat = tuple((speaker, text) for speaker, text in items[-1].history if speaker in (ARCHITECT, BUILDER))
    return BapItem(
        game_id=game.game_id,
        structure_id=game.structure_id,
        split=game.split,
        sample_id=0,
        start=(),
        end=items[-1].end,
        actions=tuple(a for i in items for a in i.actions),
        action_states=tuple(s for i in items for s in i.action_states),
        history=chat,
        builder_pose=items[0].builder_pose,
    )


def generate_targets(num_targets: int, seed: int = 0, simulator: str = "blocks") -> list[BapItem]:
    """Build items (``as_target``) of the simulator's games 0..num_targets-1."""
    return [as_target(simulate_game(simulator, k, seed)) for k in range(num_targets)]
