"""python -m baselines.llm_agent --env ID --base-url URL --model NAME: a language model plays a
world from its text view (``baselines.llm_agent``); writes results.json, prompts.jsonl and the RL
evaluation's evaluation.json / evaluation.md."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    from baselines.tasks import WORLD_SPEC

    p = argparse.ArgumentParser(prog="python -m baselines.llm_agent", description=__doc__)
    p.add_argument("--env", required=True, help="a registered world id, e.g. CrafText-Classic-Symbolic-v1")
    p.add_argument("--split", default="train")
    p.add_argument("--base-url", required=True, help="OpenAI-compatible API root, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--model", required=True)
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the key (default OPENAI_API_KEY)")
    p.add_argument("--episodes", type=int, default=8)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-steps", type=int, help="steps per episode (default: the world's max_episode_steps)")
    p.add_argument("--history", type=int, default=16, help="past observations in the prompt (default 16)")
    p.add_argument("--style", choices=("summary", "grid", "triples"), default="summary")
    p.add_argument("--strict", action="store_true", help="only a reply that is an action name counts")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--max-tokens", type=int, default=512)
    p.add_argument("--out", type=Path, default=Path("runs/llm_agent"))
    for name in ("level", "max_episode_steps"):
        p.add_argument("--" + name.replace("_", "-"), type=type(WORLD_SPEC[name]), default=WORLD_SPEC[name])
    args = p.parse_args(argv)

    from baselines.episodes.replay import World
    from baselines.evaluate import save
    from baselines.llm_agent import Client, ClientError, LLMAgent, evaluate

    try:
        world = World({**WORLD_SPEC, "env": args.env, "level": args.level, "max_episode_steps": args.max_episode_steps}, args.split)
        client = Client(args.base_url, args.model, args.api_key_env, timeout_s=args.timeout, max_tokens=args.max_tokens)
        agent = LLMAgent(client, world.task.env.manual, world.task.env.action_names, history=args.history, strict=args.strict)
        args.out.mkdir(parents=True, exist_ok=True)
        result = evaluate(world, agent, args.episodes, args.seed, args.max_steps, args.out / "prompts.jsonl", style=args.style)
    except (ValueError, ClientError) as error:
        sys.exit(f"error: {error}")
    result["model"], result["base_url"] = args.model, args.base_url
    (args.out / "results.json").write_text(json.dumps(result, indent=1))
    meta = {"env": args.env, "model": args.model, "base_url": args.base_url, "episodes": args.episodes, "seed": args.seed, "style": args.style}
    print(save({args.split: {"llm": result["summary"]}}, args.out, meta, {"llm": f"LLM {args.model}"}))
    print(json.dumps({k: v for k, v in result.items() if k not in ("results", "summary")}, indent=1))


if __name__ == "__main__":
    main()
