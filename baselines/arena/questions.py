"""What a rater is asked about two episodes of one task (BEDD's decomposed questions).

Direct questions are asked of each video (``yes`` / ``no`` / ``unsure``: unlike BASALT's
checkbox, "no" and "skipped" differ); comparative questions ask which video did better
(``left`` / ``draw`` / ``right`` / ``na``); the overall verdict is ``left`` / ``draw`` / ``right``.
A question set belongs to a world family (``baselines.worlds``: each family's ``Questions`` facet); a
world the registry does not know (imported judgements of other worlds) gets the generic set.
"""

from __future__ import annotations

from baselines import worlds
from baselines.worlds.base import EFFICIENCY, HUMAN_LIKE, IRRELEVANT, PROGRESS, Questions

DIRECT_ANSWERS = ("yes", "no", "unsure")
COMPARATIVE_ANSWERS = ("left", "draw", "right", "na")
VERDICTS = ("left", "draw", "right")
GENERIC = Questions(
    direct=(("completed", "Did this player complete the task?"),), comparative=(PROGRESS, EFFICIENCY, IRRELEVANT, HUMAN_LIKE)
)


def questions_for(world: str) -> Questions:
    """The question set of a world (env id): its family's, or the generic set."""
    family = worlds.find_family(world)
    return (family.facet(Questions) if family is not None else None) or GENERIC


def questions_json(questions: Questions) -> dict:
    """What the rater page shows: the questions and the answers each may take."""
    return {
        "direct": [{"id": i, "text": t} for i, t in questions.direct],
        "comparative": [{"id": i, "text": t} for i, t in questions.comparative],
        "direct_answers": list(DIRECT_ANSWERS),
        "comparative_answers": list(COMPARATIVE_ANSWERS),
        "verdicts": list(VERDICTS),
    }


def check_answers(world: str, verdict: str, direct: dict, comparisons: dict) -> None:
    """Raise ValueError naming the field unless the answers fit the world's questions: ``direct``
    maps every direct question id to ``{"left": a, "right": a}`` with ``a`` in ``DIRECT_ANSWERS``;
    ``comparisons`` maps every comparative question id to one of ``COMPARATIVE_ANSWERS``."""
    questions = questions_for(world)
    if verdict not in VERDICTS:
        raise ValueError(f"verdict: {verdict!r} is not one of {', '.join(VERDICTS)}")
    expected = {q for q, _ in questions.direct}
    if not isinstance(direct, dict) or set(direct) != expected:
        raise ValueError(
            f"direct: answer exactly the questions {sorted(expected)}, got {sorted(direct) if isinstance(direct, dict) else direct!r}"
        )
    for question, answers in direct.items():
        if not isinstance(answers, dict) or set(answers) != {"left", "right"} or not all(a in DIRECT_ANSWERS for a in answers.values()):
            raise ValueError(f"direct.{question}: give {{'left': a, 'right': a}} with a in {', '.join(DIRECT_ANSWERS)}, got {answers!r}")
    expected = {q for q, _ in questions.comparative}
    if not isinstance(comparisons, dict) or set(comparisons) != expected:
        raise ValueError(
            f"comparisons: answer exactly the questions {sorted(expected)}, got "
            f"{sorted(comparisons) if isinstance(comparisons, dict) else comparisons!r}"
        )
    for question, answer in comparisons.items():
        if answer not in COMPARATIVE_ANSWERS:
            raise ValueError(f"comparisons.{question}: {answer!r} is not one of {', '.join(COMPARATIVE_ANSWERS)}")
