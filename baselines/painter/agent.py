"""A trained painter as a policy in ``Hexagons-Paint-v1``: at each new instruction it predicts the
step's paints from the board it sees and the instructions so far, paints them one action at a time
(``tile * 8 + colour``), then STOPs. It has the interface of ``baselines.episodes.agent.PolicyAgent``
(``baselines.worlds.agents.Agent``: ``name``, ``reset(seed)``, ``act(obs, t)``), so ``python -m
baselines.episodes record --policy agent --run RUN`` records its episodes for replay, videos and
the arena.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from baselines.painter.data import apply, rule_paints
from baselines.painter.train import Painter
from baselines.worlds.session import World
from hexagons import REGISTERED_IDS
from hexagons.env import STOP, HexagonsPaint
from hexagons.geometry import NUM_COLOURS


class PainterAgent:
    """A painter run (``python -m baselines.painter train``) playing a Hexagons world."""

    def __init__(self, run: str | Path, world: World):
        if not isinstance(world.task.env, HexagonsPaint):
            raise ValueError(f"{run}: a painter plays {', '.join(REGISTERED_IDS)}, not {world.env_id}")
        self.painter, self.world = Painter.load(Path(run)), world
        self.name = f"painter:{Path(run).name}"
        self.reset(0)

    def reset(self, seed: int) -> None:
        """Start an episode (the painter is deterministic: ``seed`` is not used)."""
        self.texts: list[str] = []
        self.current: int | None = None
        self.queue: list[int] = []

    def act(self, obs: Any, t: int) -> int:
        """The next paint of the current instruction, or STOP when they are done."""
        text_id = int(self.world.task.observe(obs).text)
        if text_id != self.current:
            self.current = text_id
            self.texts.append(self.world.task.texts[text_id])
            board = np.asarray(obs.board, np.int8)[None]
            tokens = self.painter.config.layout.encode(self.painter.vocabulary, tuple(self.texts), len(self.texts))[None]
            after = apply(board, self.painter.classes(tokens, board, rule_paints(self.texts[-1])[None]))[0]
            self.queue = [int(tile) * NUM_COLOURS + int(after[tile]) for tile in np.flatnonzero(after != board[0])] + [STOP]
        feasible = self.world.mask(obs)
        while len(self.queue) > 1 and not feasible[self.queue[0]]:
            self.queue.pop(0)
        return self.queue.pop(0) if len(self.queue) > 1 else self.queue[0]


def load(run: Path, world: World, greedy: bool = False) -> PainterAgent:
    """The loader of the ``painter`` agent kind (``baselines.worlds.agents``; the painter is
    deterministic, so ``greedy`` changes nothing)."""
    return PainterAgent(run, world)
