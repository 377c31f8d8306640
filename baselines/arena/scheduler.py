"""Which two episodes a rater sees next.

A candidate is two agents' episodes of the same unit: world, world settings, instruction and
seed, so both videos start from the same state. A rater is never served a candidate again while
another one is new to them: only the candidates this rater has been served least are considered,
and of those only the ones whose agent pair this rater has seen least. Among those, with
probability ``exploration`` one is drawn uniformly (settled agents keep meeting
and the comparison graph stays connected); otherwise the one with the largest expected reduction
of the two agents' TrueSkill variance
(sigma_a^2 + sigma_b^2) is served, the expectation over the two outcomes weighted by the
two-player win probability P(a beats b) = Phi((mu_a - mu_b) / sqrt(2 beta^2 + sigma_a^2 + sigma_b^2))
(BASALT used beta^2 here, which makes the probabilities too sharp and sends newcomers almost all
the traffic). Ties go to the unit this rater has seen least, then the candidate served least (by
anyone), then the random draw.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import trueskill

from baselines.arena.ratings import TRUESKILL, environment


@dataclass(frozen=True)
class Candidate:
    """Two agents' episodes of one unit: ``task_id``, ``world``, the episode ids and agent names,
    ``served`` (matches of this unit and agent pair so far), ``seen`` (of those, served to this
    rater), ``pair_seen`` (matches of this agent pair on any unit served to this rater) and
    ``unit_seen`` (matches of this unit served to this rater)."""

    task_id: int
    world: str
    episode_a: int
    agent_a: str
    episode_b: int
    agent_b: str
    served: int = 0
    seen: int = 0
    pair_seen: int = 0
    unit_seen: int = 0


def win_probability(a: trueskill.Rating, b: trueskill.Rating, beta: float = TRUESKILL["beta"]) -> float:
    """P(a beats b) under TrueSkill's two-player model (draws ignored): each performance has
    variance beta^2 + sigma^2, so their difference has 2 beta^2 + sigma_a^2 + sigma_b^2."""
    return 0.5 * (1.0 + math.erf((a.mu - b.mu) / math.sqrt(2.0 * (2 * beta**2 + a.sigma**2 + b.sigma**2))))


def expected_variance_drop(a: trueskill.Rating, b: trueskill.Rating, env: trueskill.TrueSkill | None = None) -> float:
    """Expected decrease of sigma_a^2 + sigma_b^2 from one judgement between a and b."""
    env = env or environment()
    before = a.sigma**2 + b.sigma**2
    a_wins = trueskill.rate_1vs1(a, b, env=env)
    b_wins = trueskill.rate_1vs1(b, a, env=env)
    p = win_probability(a, b, env.beta)
    return p * (before - a_wins[0].sigma ** 2 - a_wins[1].sigma ** 2) + (1 - p) * (before - b_wins[0].sigma ** 2 - b_wins[1].sigma ** 2)


def choose(
    candidates: list[Candidate], ratings: dict[str, dict[str, trueskill.Rating]], rng: random.Random, exploration: float = 0.2
) -> tuple[Candidate, float, bool]:
    """(candidate, expected variance drop, explored): the next pair to judge. ``ratings`` maps a
    world to its agents' TrueSkill ratings (absent agents are new)."""
    if not candidates:
        raise ValueError("no candidates")
    env = environment()
    gains: dict[tuple, float] = {}

    def gain(c: Candidate) -> float:
        key = (c.world, c.agent_a, c.agent_b)
        if key not in gains:
            world = ratings.get(c.world, {})
            gains[key] = expected_variance_drop(
                world.get(c.agent_a) or env.create_rating(), world.get(c.agent_b) or env.create_rating(), env
            )
        return gains[key]

    least = min(c.seen for c in candidates)
    fresh = [c for c in candidates if c.seen == least]
    least = min(c.pair_seen for c in fresh)
    fresh = [c for c in fresh if c.pair_seen == least]
    if rng.random() < exploration:
        chosen = rng.choice(fresh)
        return chosen, gain(chosen), True
    draws = {id(c): rng.random() for c in fresh}
    chosen = max(fresh, key=lambda c: (round(gain(c), 9), -c.unit_seen, -c.served, draws[id(c)]))
    return chosen, gain(chosen), False
