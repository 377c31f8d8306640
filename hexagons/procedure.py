"""A drawing procedure of the Hexagons task, as the loader and the generator produce it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Procedure:
    """One drawing procedure: ``n`` instructions and the ``n + 1`` boards around them.

    ``boards`` is (n + 1, 180) int8 with ``boards[0]`` blank and ``boards[t]`` the gold board after
    instruction ``t`` (1-based); ``texts[t - 1]`` is that instruction, as released (whitespace kept).
    ``agreement_tags`` / ``agreement_scores`` are None where the release has the string "None".
    """

    index: int
    annotation_round: int
    category: str
    image_id: str
    instructor_id: int
    texts: tuple[str, ...]
    boards: np.ndarray
    agreement_tags: tuple[str, ...] | None = None
    agreement_scores: np.ndarray | None = None

    @property
    def num_steps(self) -> int:
        return len(self.texts)

    @property
    def agreed(self) -> bool:
        """The paper's "agreed procedure": the last step was reproduced exactly by a Verifier."""
        return self.agreement_tags is not None and self.agreement_tags[-1] in ("A", "V1", "V2")
