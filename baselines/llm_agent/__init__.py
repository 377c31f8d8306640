"""A language-model agent for any world of the suite, over its text view.

The model is reached through ``baselines.chat.ChatClient`` (the suite's one OpenAI-compatible
client: the key only to the configured host, https off the loopback, no redirects, bounded
retries). ``prompt``: the system prompt (the world's manual, its actions with one-line
descriptions, the instruction) and the user turn (a bounded history of observations and actions,
then the current observation). ``parse_action``: the reply to an action id: the whole reply is an
action name (case and spacing ignored), else the last action name it mentions (``strict=False``),
else an out-of-range action (every world's documented no-op) with feedback on the next turn. ``evaluate``: episodes
over seeds with timeouts as failures, success per goal, JSON lines logs of every prompt and reply,
the invalid-output rate, and the RL evaluation's summary and table (``baselines.evaluate``).
Command line: ``python -m baselines.llm_agent --env ID --base-url URL --model NAME``.
"""

from __future__ import annotations

import json
import re
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np

THINK = re.compile(r"<think>.*?</think>", re.S)


def system_prompt(manual: Sequence, instruction: str, num_actions: int) -> str:
    """The world's manual paragraph, its actions (pattern: description), the instruction and the
    reply format."""
    intro, *actions = manual
    lines = [intro, "", f"Actions ({num_actions} in all):"] + [f"- {name}: {help_}" for name, help_ in actions]
    return "\n".join(
        lines
        + ["", f"Your instruction: {instruction}", "", "Answer with exactly one action, written as above, on the last line of your reply."]
    )


def user_prompt(history: Sequence[tuple[str, str]], observation: str, feedback: str = "") -> str:
    """Past (observation, action) pairs, oldest first, then the current observation."""
    parts = [f"Step -{len(history) - i}:\n{obs}\nYou did: {act}" for i, (obs, act) in enumerate(history)]
    parts.append(("" if not feedback else feedback + "\n") + f"Now:\n{observation}\nYour action?")
    return "\n\n".join(parts)


class ActionParser:
    """Reply text -> action id, by the rules in the module docstring."""

    def __init__(self, action_names: Sequence[str], fallback: int, strict: bool = False):
        self.names = [" ".join(n.lower().split()) for n in action_names]
        self.ids = {n: i for i, n in enumerate(self.names)}
        self.fallback, self.strict = fallback, strict
        alternatives = sorted(self.ids, key=len, reverse=True)
        self.pattern = re.compile(r"(?<![\w])(" + "|".join(re.escape(n) for n in alternatives) + r")(?![\w])")

    def __call__(self, reply: str) -> tuple[int, bool]:
        """(action id, whether the reply named a valid action)."""
        text = " ".join(THINK.sub(" ", reply).lower().replace("`", " ").replace("*", " ").split()).strip(" .!\"'")
        if text in self.ids:
            return self.ids[text], True
        lines = [" ".join(line.lower().split()).strip(" .!\"'`*") for line in THINK.sub(" ", reply).splitlines() if line.strip()]
        if lines and lines[-1] in self.ids:
            return self.ids[lines[-1]], True
        if not self.strict:
            found = self.pattern.findall(text)
            if found:
                return self.ids[found[-1]], True
        return self.fallback, False


INVALID_FEEDBACK = "Your previous reply did not name a valid action, so nothing was done. Reply with one action name on the last line."


@dataclass
class LLMAgent:
    """Plays one world from its text view with a ``baselines.chat.ChatClient`` (or any
    ``chat(messages)`` object)."""

    client: object
    manual: Sequence
    action_names: Sequence[str]
    history: int = 16
    strict: bool = False

    def __post_init__(self):
        # an unparsable reply plays an out-of-range action: every world's documented no-op
        self.parse = ActionParser(self.action_names, len(self.action_names), self.strict)

    def name(self, action: int) -> str:
        return self.action_names[action] if action < len(self.action_names) else "(nothing)"

    def episode(
        self,
        instruction: str,
        first_observation: str,
        step: Callable[[int], tuple[str, bool, bool]],
        max_steps: int,
        log: Callable[[dict], None] | None = None,
    ) -> dict:
        """Play until ``step(action) -> (observation, success, ended)`` ends or ``max_steps`` pass;
        returns ``{"success", "steps", "invalid", "timed_out"}``."""
        system = system_prompt(self.manual, instruction, len(self.action_names))
        past: deque = deque(maxlen=self.history)
        observation, feedback, invalid = first_observation, "", 0
        for t in range(max_steps):
            messages = [{"role": "system", "content": system}, {"role": "user", "content": user_prompt(past, observation, feedback)}]
            reply = self.client.chat(messages)
            action, ok = self.parse(reply["text"])
            invalid += not ok
            feedback = "" if ok else INVALID_FEEDBACK
            if log:
                log(
                    {
                        "t": t,
                        "messages": messages,
                        "reply": reply["text"],
                        "usage": reply.get("usage", {}),
                        "action": self.name(action),
                        "valid_output": ok,
                    }
                )
            past.append((observation, self.name(action)))
            observation, success, ended = step(action)
            if ended:
                return {"success": bool(success), "steps": t + 1, "invalid": invalid, "timed_out": False}
        return {"success": False, "steps": max_steps, "invalid": invalid, "timed_out": True}


def evaluate(
    world,
    agent: LLMAgent,
    episodes: int,
    seed: int = 0,
    max_steps: int | None = None,
    log_path: str | Path | None = None,
    scope: str = "observed",
    style: str = "summary",
    quiet: bool = False,
) -> dict:
    """Episodes of a ``baselines.worlds.World`` in its schedule (goals in turn) with seeds ``seed,
    seed + 1, ...``: success overall and (``summary``) per goal, category and level, timeouts as
    failures, the invalid-output rate; every prompt and reply in ``log_path`` (JSON lines); a
    progress bar over the episodes unless ``quiet``."""
    import jax

    from baselines.worlds.cli import progress

    env, params = world.task.env, world.task.params
    kg = jax.jit(lambda state: env.kg(state, params, scope))
    limit = max_steps or int(world.spec["max_episode_steps"])
    log_file = Path(log_path).open("w") if log_path else None
    results = []
    try:
        for e in progress(range(episodes), desc="LLM agent", unit="episode", silent=quiet):
            text, s = world.schedule(e), seed + e
            obs, state = world.start(text, s)
            current = {"state": state, "obs": obs, "t": 0}
            goal = world.task.goals[int(world.task.text_goal[text])]["key"]

            def view() -> str:
                return env.verbalise(jax.device_get(kg(current["state"])), style)

            def step(action: int) -> tuple[str, bool, bool]:
                out = world.step(current["state"], action, s, current["t"])
                current.update(state=out.state, obs=out.obs, t=current["t"] + 1)
                return view(), out.success, out.terminated or out.truncated

            def log(row: dict) -> None:
                if log_file:
                    log_file.write(json.dumps({"episode": e, "seed": s, "goal": goal, **row}) + "\n")

            result = agent.episode(world.instruction(obs), view(), step, limit, log)
            results.append({"episode": e, "seed": s, "goal": goal, **result})
    finally:
        if log_file:
            log_file.close()
    steps = sum(r["steps"] for r in results)
    return {
        "env": world.env_id,
        "split": world.split,
        "episodes": episodes,
        "success_rate": sum(r["success"] for r in results) / episodes,
        "timeouts": sum(r["timed_out"] for r in results),
        "invalid_output_rate": sum(r["invalid"] for r in results) / max(steps, 1),
        "summary": summary(world.task, results),
        "results": results,
    }


def summary(task, results: list[dict]) -> dict:
    """The RL evaluation's split summary (``baselines.evaluate.summarize``: episode success per goal,
    and for CrafText per category and level) over the goals the episodes played; ``episodes`` is
    the number played."""
    from baselines.evaluate import summarize

    index = {label["key"]: i for i, label in enumerate(task.goals)}
    per_goal = Counter(index[r["goal"]] for r in results)
    played = sorted(per_goal)
    counts = np.zeros((2, len(played), max(per_goal.values(), default=1)))
    for r in results:
        g = played.index(index[r["goal"]])
        k = int(counts[1, g].sum())
        counts[:, g, k] = (float(r["success"]), 1.0)
    result = summarize(SimpleNamespace(metrics=("success",), goals=tuple(task.goals[i] for i in played)), {"success": counts})
    return {**result, "episodes": len(results)}
