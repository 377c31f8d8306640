"""baselines.llm_agent offline: a scripted OpenAI-compatible server on 127.0.0.1 checks the request
schema, retries on 429 / 500 (Retry-After), timeouts, malformed replies and refused redirects; the
parser's rules; and one end-to-end episode per world with a scripted policy behind the server."""

from __future__ import annotations

import json

import pytest

from baselines.chat import ChatClient, ChatError
from baselines.evaluate import table
from baselines.llm_agent import ActionParser, LLMAgent, evaluate
from baselines.worlds import World, world_spec
from tests.servers import Scripted


def ok(text):
    return (200, {"choices": [{"message": {"role": "assistant", "content": text}}]}, {}, 0)


def test_client_request_retries_and_errors(monkeypatch):
    monkeypatch.setenv("TEST_LLM_KEY", "sk-test")
    waits = []
    server = Scripted([(429, "slow down", {"Retry-After": "3"}, 0), (500, "oops", {}, 0), (200, "not json", {}, 0), ok("right")])
    client = ChatClient(server.url, "m", api_key_env="TEST_LLM_KEY", backoff_s=0.01, sleep=waits.append)
    reply = client.chat([{"role": "user", "content": "hi"}])
    assert reply["text"] == "right" and reply["attempts"] == 4 and waits[0] == 3.0 and len(waits) == 3
    request = server.requests[-1]
    assert request["path"] == "/v1/chat/completions" and request["body"]["model"] == "m"
    assert request["body"]["messages"] == [{"role": "user", "content": "hi"}] and request["headers"]["Authorization"] == "Bearer sk-test"
    server.script = [(400, "bad request", {}, 0)]
    with pytest.raises(ChatError, match="HTTP 400"):
        client.chat([])
    server.script = [(302, "", {"Location": "http://example.invalid/steal"}, 0)]
    with pytest.raises(ChatError, match="HTTP 302"):
        client.chat([])
    assert all("example.invalid" not in str(r) for r in server.requests)
    server.script = [(200, {"choices": []}, {}, 0)]
    with pytest.raises(ChatError, match="malformed reply"):
        ChatClient(server.url, "m", max_retries=1, sleep=waits.append).chat([])
    server.script = [(200, {"choices": [{"message": {"content": "x"}}]}, {}, 1.0)]
    with pytest.raises(ChatError, match="no reply after 2 attempts"):
        ChatClient(server.url, "m", timeout_s=0.2, max_retries=1, sleep=waits.append).chat([])
    server.close()
    with pytest.raises(ValueError, match="URL 'localhost:8000'"):
        ChatClient("localhost:8000", "m")


def test_one_client_keeps_the_key_with_the_configured_host(tmp_path, monkeypatch, capsys):
    """The planner and the agent share the client's rules: https off the loopback unless
    --allow-insecure-http, redirects refused (the key never follows one)."""
    from baselines.llm_agent.__main__ import main as agent_cli
    from baselines.planner import ChatPlanner

    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    for make in (lambda url, **kw: ChatClient(url, "m", **kw), lambda url, **kw: ChatPlanner(url, "m", api_key="sk-secret", **kw)):
        with pytest.raises(ValueError, match="must use https"):
            make("http://10.1.2.3:8000/v1")
        make("http://10.1.2.3:8000/v1", allow_insecure_http=True)  # said out loud: allowed
        make("https://10.1.2.3/v1")
    with pytest.raises(SystemExit, match="must use https"):
        agent_cli(["--env", "Hexagons-Paint-v1", "--base-url", "http://10.1.2.3:8000/v1", "--model", "m", "--out", str(tmp_path / "a")])
    target = Scripted([ok("stolen")])
    redirecting = Scripted([(307, "", {"Location": target.url + "/chat/completions"}, 0)])
    with pytest.raises(ChatError, match="HTTP 307"):
        ChatPlanner(redirecting.url, "m", api_key="sk-secret", max_retries=0).client.chat([{"role": "user", "content": "plan"}])
    assert redirecting.requests[0]["headers"]["Authorization"] == "Bearer sk-secret" and target.requests == []  # the key went nowhere else
    redirecting.close()
    target.close()


def test_parser_rules():
    names = ["noop", "left", "right", "do", "place_table", "make_wood_pickaxe"]
    parse = ActionParser(names, len(names))
    assert parse("RIGHT") == (2, True) and parse("  Do. ") == (3, True)
    assert parse("I think left is blocked, so:\nplace_table") == (4, True)
    assert parse("Going left first, then right would be best, so right it is!") == (2, True)  # the last one mentioned
    assert parse("<think>left? do?</think> make_wood_pickaxe") == (5, True)
    assert parse("I am not sure.") == (6, False)
    assert ActionParser(names, 6, strict=True)("go right now") == (6, False)
    grid = ActionParser(["paint tile (1, 1) red", "paint tile (1, 10) red", "stop"], 3)
    assert grid("I will paint tile (1, 10) red.") == (1, True) and grid("paint tile (1, 1) red") == (0, True)


@pytest.mark.parametrize(
    "env_id, replies",
    [
        ("CrafText-Classic-Symbolic-v1", ["Let me look around. right", "do", "Hmm, I am not sure."]),
        ("Hexagons-Paint-v1", ["paint tile (1, 1) red", "stop"]),
        ("BlocksWorld-BAP-v1", ["place red at (0, 1, 0)", "stop"]),
    ],
)
def test_one_episode_per_world_behind_the_server(env_id, replies, tmp_path):
    turn = iter(range(10**6))
    seen = []

    def policy(body):
        seen.append(body["messages"])
        return replies[min(next(turn), len(replies) - 1)]

    server = Scripted([policy])
    world = World(world_spec({"env": env_id, "data_size": 8, "max_episode_steps": 4}), "train")
    env = world.task.env
    agent = LLMAgent(ChatClient(server.url, "scripted", api_key_env=None), env.manual, env.action_names, history=2)
    result = evaluate(world, agent, 1, seed=3, log_path=tmp_path / "log.jsonl")
    server.close()
    logs = [json.loads(line) for line in (tmp_path / "log.jsonl").open()]
    assert result["summary"]["goals"] == 1 and result["summary"]["success"] == result["success_rate"]
    assert "| train | llm |" in table({"train": {"llm": result["summary"]}})
    assert result["episodes"] == 1 and 1 <= logs[-1]["t"] + 1 == result["results"][0]["steps"] <= 4
    system, user = seen[0]
    assert system["role"] == "system" and "Your instruction:" in system["content"] and env.manual[1][0] in system["content"]
    assert user["content"].startswith("Now:") and user["content"].rstrip().endswith("Your action?")
    assert logs[0]["action"] == env.action_names[ActionParser(env.action_names, env.num_actions)(replies[0])[0]]
    if len(logs) > 1:
        assert "You did:" in seen[1][1]["content"]
    if env_id.startswith("CrafText"):  # the third reply names no action: a no-op, feedback, counted
        assert result["results"][0]["steps"] == 4 and result["success_rate"] == 0 and logs[2]["valid_output"] is False
        assert "did not name a valid action" in seen[3][1]["content"] and result["invalid_output_rate"] == pytest.approx(2 / 4)
    else:  # STOP ends the turn (Hexagons: the instruction; BAP: the episode)
        assert logs[1]["action"] == "stop"


def test_command_line_writes_the_rl_evaluation_files(tmp_path, capsys):
    from baselines.llm_agent.__main__ import main

    server = Scripted([lambda body: "stop"])
    main(
        [
            "--env",
            "Hexagons-Paint-v1",
            "--base-url",
            server.url,
            "--model",
            "scripted",
            "--api-key-env",
            "",
            "--episodes",
            "2",
            "--max-episode-steps",
            "4",
            "--out",
            str(tmp_path),
        ]
    )
    server.close()
    assert {"results.json", "prompts.jsonl", "evaluation.json", "evaluation.md"} <= {p.name for p in tmp_path.iterdir()}
    assert "| train | LLM scripted |" in capsys.readouterr().out
    summary = json.loads((tmp_path / "evaluation.json").read_text())["splits"]["train"]["llm"]
    assert summary["episodes"] == 2 and summary["goals"] == 2  # two episodes, not goals x episodes
    with pytest.raises(SystemExit, match="URL 'nowhere'"):
        main(["--env", "Hexagons-Paint-v1", "--base-url", "nowhere", "--model", "m", "--out", str(tmp_path)])
