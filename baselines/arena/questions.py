"""What a rater is asked about two episodes of one task (BEDD's decomposed questions).

Direct questions are asked of each video (``yes`` / ``no`` / ``unsure``: unlike BASALT's
checkbox, "no" and "skipped" differ); comparative questions ask which video did better
(``left`` / ``draw`` / ``right`` / ``na``); the overall verdict is ``left`` / ``draw`` / ``right``.
A question set belongs to a world family, the part of the env id before the first ``-``
(``CrafText-Classic-Symbolic-v1`` -> ``CrafText``); an unknown family gets the generic set.
"""

from __future__ import annotations

from dataclasses import dataclass

DIRECT_ANSWERS = ("yes", "no", "unsure")
COMPARATIVE_ANSWERS = ("left", "draw", "right", "na")
VERDICTS = ("left", "draw", "right")


@dataclass(frozen=True)
class Questions:
    """A world family's questions: ``direct`` and ``comparative`` are ``(id, text)`` pairs."""

    direct: tuple[tuple[str, str], ...]
    comparative: tuple[tuple[str, str], ...]

    def as_json(self) -> dict:
        return {"direct": [{"id": i, "text": t} for i, t in self.direct],
                "comparative": [{"id": i, "text": t} for i, t in self.comparative],
                "direct_answers": list(DIRECT_ANSWERS), "comparative_answers": list(COMPARATIVE_ANSWERS), "verdicts": list(VERDICTS)}


_PROGRESS = ("progress", "Which player made more progress towards what the instruction asks?")
_EFFICIENCY = ("efficiency", "Which player reached its result with fewer wasted steps?")
_IRRELEVANT = ("irrelevant", "Which player took fewer actions unrelated to the instruction?")
_HUMAN_LIKE = ("human_like", "Which player seemed more human-like (rather than a bot)?")

QUESTIONS = {
    "CrafText": Questions(
        direct=(("completed", "Did this player complete the instruction?"),),
        comparative=(_PROGRESS, _EFFICIENCY, _IRRELEVANT,
                     ("safety", "Which player kept itself safer (health, food, drink, enemies)?"), _HUMAN_LIKE)),
    "BlocksWorld": Questions(
        direct=(("matches_target", "Does this player's final structure match the target?"),),
        comparative=(("shape", "Which structure has the target's shape more nearly?"),
                     ("colours", "Which structure has the right colours in more places?"),
                     ("position", "Which structure is in the right position more nearly?"),
                     ("stray", "Which player placed fewer stray blocks?"), _HUMAN_LIKE)),
    "Hexagons": Questions(
        direct=(("board_matches", "Does this player's final board match the target board?"),),
        comparative=(("pattern", "Which player better captured the pattern the instruction describes?"),
                     ("wrong_tiles", "Which player painted fewer wrong tiles?"), _EFFICIENCY, _HUMAN_LIKE)),
}
GENERIC = Questions(direct=(("completed", "Did this player complete the task?"),), comparative=(_PROGRESS, _EFFICIENCY, _IRRELEVANT, _HUMAN_LIKE))


def family(world: str) -> str:
    """The world family of an env id (the part before the first ``-``)."""
    return world.split("-", 1)[0]


def questions_for(world: str) -> Questions:
    """The question set of a world (env id); the generic set for an unknown family."""
    return QUESTIONS.get(family(world), GENERIC)


def check_answers(world: str, verdict: str, direct: dict, comparisons: dict) -> None:
    """Raise ValueError naming the field unless the answers fit the world's questions: ``direct``
    maps every direct question id to ``{"left": a, "right": a}`` with ``a`` in ``DIRECT_ANSWERS``;
    ``comparisons`` maps every comparative question id to one of ``COMPARATIVE_ANSWERS``."""
    questions = questions_for(world)
    if verdict not in VERDICTS:
        raise ValueError(f"verdict: {verdict!r} is not one of {', '.join(VERDICTS)}")
    expected = {q for q, _ in questions.direct}
    if not isinstance(direct, dict) or set(direct) != expected:
        raise ValueError(f"direct: answer exactly the questions {sorted(expected)}, got {sorted(direct) if isinstance(direct, dict) else direct!r}")
    for question, answers in direct.items():
        if not isinstance(answers, dict) or set(answers) != {"left", "right"} or not all(a in DIRECT_ANSWERS for a in answers.values()):
            raise ValueError(f"direct.{question}: give {{'left': a, 'right': a}} with a in {', '.join(DIRECT_ANSWERS)}, got {answers!r}")
    expected = {q for q, _ in questions.comparative}
    if not isinstance(comparisons, dict) or set(comparisons) != expected:
        raise ValueError(f"comparisons: answer exactly the questions {sorted(expected)}, got "
                         f"{sorted(comparisons) if isinstance(comparisons, dict) else comparisons!r}")
    for question, answer in comparisons.items():
        if answer not in COMPARATIVE_ANSWERS:
            raise ValueError(f"comparisons.{question}: {answer!r} is not one of {', '.join(COMPARATIVE_ANSWERS)}")
