"""A Builder Action Prediction item, as the corpus loader and the simulators produce it."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from blocksworld.grid import Action, Block

ARCHITECT, BUILDER = "Architect", "Builder"


@dataclass(frozen=True)
class BapItem:
    """One BAP item.

    start / end: blocks before the first and after the last action (world coordinates).
    actions: the Builder's actions in recorded order; ``action_states[j]`` is the index (into the
        position-filtered states) of the snapshot whose diff produced action j.
    history: everything before the item, oldest first: ``(ARCHITECT | BUILDER, text)`` for a chat
        line (speaker prefix removed), ``(PLACE | PICK, colour name)`` for an earlier action.
    builder_pose: (x, y, z, yaw, pitch) of the last snapshot before the first action.
    """

    game_id: str
    structure_id: str
    split: str
    sample_id: int
    start: tuple[Block, ...]
    end: tuple[Block, ...]
    actions: tuple[Action, ...]
    action_states: tuple[int, ...]
    history: tuple[tuple[str, str], ...]
    builder_pose: tuple[float, float, float, float, float]

    @property
    def empty_board(self) -> bool:
        return not self.start

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, record: dict) -> BapItem:
        return cls(
            **{k: record[k] for k in ("game_id", "structure_id", "split", "sample_id")},
            start=tuple(map(tuple, record["start"])),
            end=tuple(map(tuple, record["end"])),
            actions=tuple(map(tuple, record["actions"])),
            action_states=tuple(record["action_states"]),
            history=tuple(map(tuple, record["history"])),
            builder_pose=tuple(record["builder_pose"]),
        )
