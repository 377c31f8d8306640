"""A language model plays a world from its text view.

``python -m baselines.llm_agent --env ID --base-url URL --model NAME`` (``baselines.llm_agent``)
writes results.json, prompts.jsonl and the RL evaluation's evaluation.json / evaluation.md.
"""

from __future__ import annotations

import argparse
import json

from baselines import worlds
from baselines.worlds import cli

DEFAULT_OUT = "runs/llm_agent"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m baselines.llm_agent", description=__doc__)
    worlds.add_world_arguments(p, env_required=True)
    p.add_argument("--base-url", required=True, help="OpenAI-compatible API root, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--model", required=True)
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the key (default OPENAI_API_KEY)")
    p.add_argument(
        "--allow-insecure-http",
        action="store_true",
        help="let --base-url be plain http to a host off the loopback (the key travels in clear)",
    )
    p.add_argument("--episodes", type=int, default=8, help="episodes to play: the split's goals in turn (default 8)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first episode (the next ones count up)")
    p.add_argument("--max-steps", type=int, help="steps per episode at most (default: the world's --max-episode-steps)")
    p.add_argument("--history-steps", type=int, default=16, metavar="N", help="past observations and actions in the prompt (default 16)")
    p.add_argument("--style", choices=("summary", "grid", "triples"), default="summary")
    p.add_argument("--strict", action="store_true", help="only a reply that is an action name counts")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--max-tokens", type=int, default=512)
    cli.add_out(p, "run folder", default=DEFAULT_OUT)
    cli.add_run_options(p)
    return p


"""Old spellings accepted for one release."""


def main(argv: list[str] | None = None) -> None:
    from baselines.chat import ChatError

    cli.run(parser(), _run, argv, errors=(ValueError, OSError, ChatError))


def _run(args: argparse.Namespace) -> None:
    from baselines.chat import ChatClient
    from baselines.evaluate import save
    from baselines.llm_agent import LLMAgent, evaluate
    from baselines.worlds.base import TextHooks
    from baselines.worlds.session import World

    client = ChatClient(
        args.base_url,
        args.model,
        api_key_env=args.api_key_env,
        timeout_s=args.timeout,
        max_tokens=args.max_tokens,
        allow_insecure_http=args.allow_insecure_http,
    )
    spec = worlds.spec_from_args(args)
    world = World(spec, args.split)
    if not isinstance(world.task.env, TextHooks):
        raise ValueError(f"{world.env_id} declares no text view for a language model (baselines.worlds.base.TextHooks)")
    agent = LLMAgent(client, world.task.env.manual, world.task.env.action_names, history=args.history_steps, strict=args.strict)
    out = cli.prepare_out(args.out, kind="llm-agent", default=DEFAULT_OUT, overwrite=args.overwrite)
    out.mkdir(parents=True, exist_ok=True)
    with cli.compiling(f"{world.env_id}'s start and step", args.quiet):
        world.compile()
    result = evaluate(world, agent, args.episodes, args.seed, args.max_steps, out / "prompts.jsonl", style=args.style, quiet=args.quiet)
    result["model"], result["base_url"] = args.model, args.base_url
    cli.write_atomic(out / "results.json", json.dumps(result, indent=1))
    meta = {
        "env": spec["env"],
        "model": args.model,
        "base_url": args.base_url,
        "episodes": args.episodes,
        "seed": args.seed,
        "style": args.style,
    }
    order = worlds.family_of(spec["env"]).evaluation.group_order
    table = save({args.split: {"llm": result["summary"]}}, out, meta, {"llm": f"LLM {args.model}"}, order)
    cli.finish_out(out)
    print(table)
    print(json.dumps({k: v for k, v in result.items() if k not in ("results", "summary")}, indent=1))


if __name__ == "__main__":
    main()
