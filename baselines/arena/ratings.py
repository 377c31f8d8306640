"""Ratings derived from raw judgements, never stored: TrueSkill (the headline, BEDD's system) and
Bradley-Terry (maximum likelihood, 95% bootstrap intervals, ranks separated only by intervals).

An ``Outcome`` is one judgement seen from the ratings' side: the two agents, the verdict and the
answers. Outcomes are always taken in their canonical order (``Outcome.order``: submission time,
then the position in an imported file, then the match's uuid), which is a property of the record
itself, so the same judgements give the same ratings whatever order they were inserted in.

TrueSkill: the ``trueskill`` package with BASALT's parameters (``TRUESKILL``), one rating per
agent within a group (a world, or a world and task), the outcomes replayed in canonical order;
a draw is a draw. Bradley-Terry: P(i beats j) = 1 / (1 + 10 ** ((s_j - s_i) / 400)) on the Elo
scale, mean score 1000; a draw counts as half a win each way; the log-likelihood is maximised by
Newton's method with a vanishing ridge (``RIDGE`` on the natural-log strengths, so an undefeated
agent has a finite score); the interval is the 2.5-97.5 percentile of ``rounds`` refits on
judgements resampled with replacement (seeded).

Ranks only where the evidence supports them: an agent with fewer than ``MIN_RANKED`` judgements in
its group has no interval and no rank (``None``: "too few judgements"); among the others, rank =
1 + the number of ranked agents whose lower bound is above this agent's upper bound, so agents
with overlapping intervals share a rank.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import trueskill

TRUESKILL = {"mu": 25.0, "sigma": 25.0 / 3, "beta": 25.0 / 6, "tau": 25.0 / 300, "draw_probability": 0.10}
"""BASALT's TrueSkill parameters."""
RIDGE = 1e-4
ELO_SCALE = 400.0 / math.log(10.0)
"""Elo points per unit of natural-log strength."""
MIN_RANKED = 10
"""Judgements an agent needs within a group before it gets a Bradley-Terry interval and a rank."""
SCORE = {"left": 1.0, "draw": 0.5, "right": 0.0}
"""The left agent's score for a verdict (or a comparative answer other than ``na``)."""


def environment() -> trueskill.TrueSkill:
    """A TrueSkill environment with BASALT's parameters (no global state touched)."""
    return trueskill.TrueSkill(**TRUESKILL, backend=None)


@dataclass(frozen=True)
class Outcome:
    """One judgement: ``order`` (the canonical sort key), ``world``, ``task``, the ``left`` and
    ``right`` agents' names, the ``verdict`` and the answers (``comparisons``: question ->
    left/draw/right/na; ``direct``: question -> {"left": yes/no/unsure, "right": ...})."""

    order: tuple
    world: str
    task: str
    left: str
    right: str
    verdict: str
    comparisons: dict = field(default_factory=dict, compare=False, hash=False)
    direct: dict = field(default_factory=dict, compare=False, hash=False)

    def on(self, question: str | None) -> Outcome | None:
        """This outcome with the answer to a comparative ``question`` as its verdict (None when it
        was answered ``na`` or not asked); the overall verdict for ``question=None``."""
        if question is None:
            return self
        answer = self.comparisons.get(question, "na")
        return None if answer == "na" else Outcome(self.order, self.world, self.task, self.left, self.right, answer)


def canonical(outcomes: Iterable[Outcome]) -> list[Outcome]:
    return sorted(outcomes, key=lambda o: o.order)


class TrueSkillReplay:
    """TrueSkill ratings of the outcomes seen so far, replayed in canonical order. ``extend`` applies
    new outcomes incrementally when they all come after the last one applied, and replays from the
    start otherwise, so the result is always that of one replay of every outcome in canonical order."""

    def __init__(self):
        self.env = environment()
        self.outcomes: list[Outcome] = []
        self.ratings: dict[str, trueskill.Rating] = {}

    def rating(self, agent: str) -> trueskill.Rating:
        return self.ratings.get(agent) or self.env.create_rating()

    def extend(self, outcomes: Iterable[Outcome]) -> TrueSkillReplay:
        new = canonical(outcomes)
        if new and self.outcomes and new[0].order < self.outcomes[-1].order:
            new, self.outcomes, self.ratings = canonical(self.outcomes + new), [], {}
        for outcome in new:
            left, right = self.rating(outcome.left), self.rating(outcome.right)
            if outcome.verdict == "right":
                right, left = trueskill.rate_1vs1(right, left, env=self.env)
            else:
                left, right = trueskill.rate_1vs1(left, right, drawn=outcome.verdict == "draw", env=self.env)
            self.ratings[outcome.left], self.ratings[outcome.right] = left, right
        self.outcomes += new
        return self


def trueskill_ratings(outcomes: Iterable[Outcome]) -> dict[str, trueskill.Rating]:
    """agent -> TrueSkill rating after replaying ``outcomes`` in canonical order."""
    return TrueSkillReplay().extend(outcomes).ratings


def _pairs(outcomes: list[Outcome], agents: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    index = {a: i for i, a in enumerate(agents)}
    left = np.array([index[o.left] for o in outcomes], np.int64)
    right = np.array([index[o.right] for o in outcomes], np.int64)
    score = np.array([SCORE[o.verdict] for o in outcomes], np.float64)
    return left, right, score


def _fit(n: int, left: np.ndarray, right: np.ndarray, score: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """(n,) natural-log strengths maximising the weighted Bradley-Terry log-likelihood (minus the
    ridge), by Newton's method with backtracking; mean zero."""
    design = np.zeros((len(left), n))
    design[np.arange(len(left)), left] += 1.0
    design[np.arange(len(left)), right] -= 1.0

    def loss(r):
        margin = design @ r
        return float(np.sum(weight * (np.logaddexp(0, -margin) * score + np.logaddexp(0, margin) * (1 - score))) + RIDGE * r @ r)

    r = np.zeros(n)
    current = loss(r)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(design @ r)))
        gradient = design.T @ (weight * (p - score)) + 2 * RIDGE * r
        hessian = design.T @ (design * (weight * p * (1 - p))[:, None]) + 2 * RIDGE * np.eye(n)
        step = np.linalg.solve(hessian, gradient)
        t = 1.0
        while loss(r - t * step) > current and t > 1e-8:
            t /= 2
        r, previous, current = r - t * step, current, loss(r - t * step)
        if previous - current < 1e-12:
            break
    return r - r.mean()


def bradley_terry(outcomes: list[Outcome], agents: list[str], rounds: int = 200, seed: int = 0) -> dict[str, dict]:
    """agent -> {"score", "low", "high", "rank"}: Bradley-Terry scores on the Elo scale (mean 1000)
    with 95% bootstrap intervals over ``rounds`` resamples (seeded) and interval-separated ranks;
    ``low``, ``high`` and ``rank`` are None for an agent with fewer than ``MIN_RANKED`` judgements."""
    n = len(agents)
    counts = {a: sum(a in (o.left, o.right) for o in outcomes) for a in agents}
    ranked = np.array([counts[a] >= MIN_RANKED for a in agents], bool)
    if not outcomes:
        point = low = high = np.full(n, 1000.0)
    else:
        left, right, score = _pairs(outcomes, agents)
        strengths = _fit(n, left, right, score, np.ones(len(outcomes)))
        rng = np.random.default_rng(seed)
        draws = (
            np.array(
                [
                    _fit(n, left, right, score, rng.multinomial(len(outcomes), np.full(len(outcomes), 1 / len(outcomes))).astype(float))
                    for _ in range(rounds)
                ]
            )
            if rounds
            else strengths[None]
        )
        point = 1000.0 + ELO_SCALE * strengths
        low, high = 1000.0 + ELO_SCALE * np.percentile(draws, [2.5, 97.5], axis=0)
    fitted = {}
    for i, a in enumerate(agents):
        sure = bool(ranked[i])
        fitted[a] = {
            "score": float(point[i]),
            "low": float(low[i]) if sure else None,
            "high": float(high[i]) if sure else None,
            "rank": 1 + int(np.sum(ranked & (low > high[i]))) if sure else None,
        }
    return fitted


def group_key(outcome: Outcome, by: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(getattr(outcome, name) for name in by)


def leaderboard(
    outcomes: Iterable[Outcome], by: tuple[str, ...] = ("world",), question: str | None = None, rounds: int = 200, seed: int = 0
) -> list[dict]:
    """One row per (group, agent), groups by ``by`` (``("world",)`` or ``("world", "task")``), on the
    overall verdict or on a comparative ``question``: TrueSkill ``mu``, ``sigma``, ``conservative``
    (mu - 3 sigma), Bradley-Terry ``bt`` with ``bt_low`` / ``bt_high`` and ``rank`` (None below
    ``MIN_RANKED`` judgements), and the counts
    ``judgements``, ``wins``, ``draws``, ``losses``. Rows sorted by group, then conservative rating."""
    groups: dict[tuple, list[Outcome]] = {}
    for outcome in canonical(outcomes):
        on = outcome.on(question)
        if on is not None:
            groups.setdefault(group_key(on, by), []).append(on)
    rows = []
    for key in sorted(groups):
        members = groups[key]
        agents = sorted({o.left for o in members} | {o.right for o in members})
        ts = trueskill_ratings(members)
        bt = bradley_terry(members, agents, rounds, seed)
        for agent in agents:
            played = [o for o in members if agent in (o.left, o.right)]
            won = sum(o.verdict == ("left" if o.left == agent else "right") for o in played)
            drawn = sum(o.verdict == "draw" for o in played)
            rating = ts[agent]
            rows.append(
                {
                    **dict(zip(by, key)),
                    "question": question or "overall",
                    "agent": agent,
                    "mu": rating.mu,
                    "sigma": rating.sigma,
                    "conservative": rating.mu - 3 * rating.sigma,
                    "bt": bt[agent]["score"],
                    "bt_low": bt[agent]["low"],
                    "bt_high": bt[agent]["high"],
                    "rank": bt[agent]["rank"],
                    "judgements": len(played),
                    "wins": won,
                    "draws": drawn,
                    "losses": len(played) - won - drawn,
                }
            )
    rows.sort(key=lambda r: (tuple(r[name] for name in by), -r["conservative"]))
    return rows


def win_matrix(outcomes: Iterable[Outcome], question: str | None = None) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(agents, wins, games): ``wins[i, j]`` is i's score against j (draws count a half),
    ``games[i, j]`` the number of judgements between them."""
    members = [on for o in outcomes if (on := o.on(question)) is not None]
    agents = sorted({o.left for o in members} | {o.right for o in members})
    index = {a: i for i, a in enumerate(agents)}
    wins, games = np.zeros((len(agents), len(agents))), np.zeros((len(agents), len(agents)), np.int64)
    for o in members:
        i, j = index[o.left], index[o.right]
        wins[i, j] += SCORE[o.verdict]
        wins[j, i] += 1 - SCORE[o.verdict]
        games[i, j] += 1
        games[j, i] += 1
    return agents, wins, games


def direct_rates(outcomes: Iterable[Outcome]) -> list[dict]:
    """Per (world, agent, direct question): how often raters answered yes / no / unsure."""
    counts: dict[tuple, dict[str, int]] = {}
    for o in outcomes:
        for question, answers in o.direct.items():
            for side, agent in (("left", o.left), ("right", o.right)):
                tally = counts.setdefault((o.world, agent, question), {"yes": 0, "no": 0, "unsure": 0})
                tally[answers[side]] += 1
    return [
        {"world": w, "agent": a, "question": q, **tally, "yes_rate": tally["yes"] / max(1, sum(tally.values()))}
        for (w, a, q), tally in sorted(counts.items())
    ]
