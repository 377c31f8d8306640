"""baselines.textworld: scores (hand cases, a numpy re-implementation, jitted = host), generated
records (fields, regeneration from seed + actions, stats, score, Parquet) and the JerichoWorld reader."""

from __future__ import annotations

import json

import jax
import numpy as np
import pytest

from baselines.textworld import dataset, jericho, metrics
from baselines.textworld.__main__ import main, score, stats
from hexagons import kg as hex_kg
from hexagons import text as hex_text


def test_scores_by_hand():
    gold = [["You", "in", "Kitchen"], ["lamp", "in", "kitchen"]]
    assert metrics.graph_instance([["you", " in ", "KITCHEN"], ["lamp", "in", "kitchen"], ["you", "in", "kitchen"]], gold)[
        "graph"
    ] == dict.fromkeys(metrics.MEASURES, 1.0)  # case, spaces and duplicates do not count
    s = metrics.graph_instance([["you", "in", "kitchen"], ["sword", "in", "case"]], gold)["graph"]
    assert s == {"precision": 0.5, "recall": 0.5, "f1": 0.5, "set_em": 0.0}
    assert "em_jw" not in metrics.MEASURES  # the paper's example reading of EM is recall, reported once
    # token level: multisets of tokens over all parts
    t = metrics.graph_instance([["you", "in", "hall"]], [["you", "in", "kitchen"]])["token"]
    assert t["precision"] == pytest.approx(2 / 3) and t["recall"] == pytest.approx(2 / 3)
    # an empty gold set is not scored by default (NaN, left out of means); "one" is the old convention
    assert all(np.isnan(v) for v in metrics.graph_instance([], [["", "in", ""]])["graph"].values())
    assert metrics.graph_instance([], [["", "in", ""]], "one")["graph"] == dict.fromkeys(metrics.MEASURES, 1.0)
    assert metrics.graph_instance([["a", "b", "c"]], [], "one")["graph"] == dict.fromkeys(metrics.MEASURES, 0.0)
    assert metrics.graph_instance([], [["a", "b", "c"]])["graph"] == dict.fromkeys(metrics.MEASURES, 0.0)
    # malformed predicted items are wrong, not dropped: a short triple, an empty part, a non-string, a nested list
    for bad in (["you", "in"], ["you", "", "kitchen"], ["you", "in", 3], ["you", "in", ["kitchen"]], "you in kitchen"):
        s = metrics.graph_instance([["you", "in", "kitchen"], bad], [["you", "in", "kitchen"]])["graph"]
        assert s["precision"] == 0.5 and s["recall"] == 1.0 and s["set_em"] == 0.0, bad
    assert metrics.action_instance(["", 7, "north"], ["north"])["precision"] == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="expected a \\[subject, relation, object\\] triple"):  # in gold: an error
        metrics.graph_instance([], ["not a triple"])
    a = metrics.action_instance(["Go North", "take lamp"], ["go north", "open door", "take lamp", "west"])
    assert a["recall"] == 0.5 and a["precision"] == 1.0 and a["f1"] == pytest.approx(2 / 3) and a["set_em"] == 0.0
    assert metrics.diff([["a", "r", "b"]], [["a", "r", "c"]]) == {"add": [["a", "r", "c"]], "del": [["a", "r", "b"]]}
    agg = metrics.aggregate(["g1", "g1", "g2", "g2"], {"x": np.array([1.0, 0.0, 1.0, np.nan])})
    assert agg["per_world"]["g1"]["x"] == 50.0 and agg["overall"]["x"] == pytest.approx(200 / 3) and agg["instances"] == 4
    assert agg["overall"]["scored"] == 3 and agg["per_world"]["g2"]["scored"] == 1


def _numpy_scores(pred: set, gold: set) -> dict:
    """An independent reading of the definitions (boolean membership vectors)."""
    universe = sorted(pred | gold)
    p, g = np.array([u in pred for u in universe], bool), np.array([u in gold for u in universe], bool)
    tp = float((p & g).sum())
    if not g.any():
        return dict.fromkeys(metrics.MEASURES, np.nan)
    return {
        "precision": tp / p.sum() if p.any() else 0.0,
        "recall": tp / g.sum(),
        "f1": 2 * tp / (p.sum() + g.sum()),
        "set_em": float((p == g).all()),
    }


def test_host_numpy_and_jitted_scores_agree():
    rng = np.random.default_rng(0)
    boards = rng.choice(8, size=(40, 180), p=[0.7] + [0.3 / 7] * 7).astype(np.int8)
    boards[3] = 0
    graphs = jax.jit(jax.vmap(hex_kg.graph))(boards)
    pairs = [(i, j) for i in range(40) for j in (i, (i + 1) % 40, 3)] + [(3, 5)]
    jitted = jax.jit(jax.vmap(metrics.graph_scores))(
        jax.tree.map(lambda x: x[np.array([i for i, _ in pairs])], graphs),
        jax.tree.map(lambda x: x[np.array([j for _, j in pairs])], graphs),
    )
    host = jax.device_get(graphs)
    names = [hex_text.triples(jax.tree.map(lambda x: x[k], host)) for k in range(40)]
    batch = metrics.batch_scores("graph", [names[i] for i, _ in pairs], [names[j] for _, j in pairs])["graph"]
    for n, (i, j) in enumerate(pairs):
        p, g = names[i], names[j]
        ours = metrics.graph_instance(p, g)["graph"]
        ref = _numpy_scores(metrics.triple_set(p), metrics.triple_set(g))
        for m in metrics.MEASURES:
            expected = pytest.approx(ref[m], nan_ok=True)
            assert ours[m] == expected and batch[m][n] == expected, (i, j, m)
            assert float(jitted[m][n]) == pytest.approx(ref[m], abs=1e-6, nan_ok=True), (i, j, m)
    tokens = metrics.batch_scores("graph", [names[i] for i, _ in pairs], [names[j] for _, j in pairs])["token"]
    metrics.CHUNK_CELLS = 64  # a few instances per chunk: the same token scores
    try:
        chunked = metrics.batch_scores("graph", [names[i] for i, _ in pairs], [names[j] for _, j in pairs])["token"]
    finally:
        metrics.CHUNK_CELLS = 2**24
    for m in metrics.MEASURES:
        np.testing.assert_allclose(chunked[m], tokens[m])
        assert tokens[m][0] == pytest.approx(metrics.graph_instance(names[0], names[0])["token"][m])
    # token bags are multisets: "a b | r | b" holds b twice, so one gold "b" matches once
    tokens = metrics.graph_instance([("a b", "r", "b")], [("b", "r", "x")])["token"]
    assert tokens["precision"] == pytest.approx(2 / 4) and tokens["recall"] == pytest.approx(2 / 3)


@pytest.fixture(scope="module")
def hexagons_records(tmp_path_factory):
    out = tmp_path_factory.mktemp("records")
    world = dataset.world_of("Hexagons-Paint-v1", data_size=16)
    summary = dataset.generate(
        world, "mixed", 6, out, steps=12, batch_size=4, shard_size=40, parquet=True, valid_actions="names", quiet=True
    )
    return world, out, summary, dataset.read(out)


def test_generated_records(hexagons_records):
    world, out, summary, rows = hexagons_records
    assert summary["records"] == len(rows) > 40 and set(rows[0]) == set(dataset.record_fields("names"))
    assert len(summary["shards"]) == -(-len(rows) // 40) and len(list(out.glob("*.parquet"))) == len(summary["shards"])
    vocab = json.loads((out / "vocab" / "Hexagons-Paint-v1.json").read_text())
    assert vocab["entities"] == list(world.task.env.kg_schema["entities"]) and len(vocab["sha256"]) == 64
    for r in rows:
        assert r["action"] in r["valid_actions"] and r["action_id"] in r["valid_action_ids"]
        assert [vocab["actions"][i] for i in r["valid_action_ids"]] == r["valid_actions"]
        assert all(all(part for part in t) for t in r["graph"] + r["next_graph"])  # no empty names
        assert {k: sorted(v) for k, v in r["graph_diff"].items()} == metrics.diff(r["graph"], r["next_graph"])
        assert [t for t in r["next_graph"] if t not in r["graph"]] == r["graph_diff"]["add"]  # in graph order
        assert [vocab["entities"][s] for s, _, _ in r["graph_ids"]] == [t[0] for t in r["graph"]]
        assert r["id"] == f"Hexagons-Paint-v1/train/{summary['run']}/{r['seed']}/episode/{r['step']}" and r["run"] == summary["run"]
    by_episode: dict = {}
    for r in rows:
        by_episode.setdefault(r["seed"], []).append(r)
    for episode in by_episode.values():
        assert [r["step"] for r in episode] == list(range(len(episode)))
        assert all(a["next_graph"] == b["graph"] for a, b in zip(episode, episode[1:]))
    record = by_episode[max(by_episode)][-1]
    prefix = [r["action_id"] for r in by_episode[max(by_episode)][:-1]]
    again = dataset.regenerate(world, record, prefix)
    assert again == {"graph": record["graph"], "observation": record["observation"]}
    import pyarrow.parquet as pq

    tables = [pq.read_table(p) for p in sorted(out.glob("*.parquet"))]
    assert sum(t.num_rows for t in tables) == len(rows) and tables[0].to_pylist() == rows[: tables[0].num_rows]


def _expert_labels(rows: list[dict]) -> dict:
    labels: dict = {}
    for r in rows:
        labels.setdefault((r["instruction"], r["observation"]), set()).add(r["action"])
    return labels


@pytest.mark.parametrize("env_id", ["Hexagons-Paint-v1", "BlocksWorld-BAP-v1"])
def test_records_carry_the_instruction_the_action_was_taken_under(env_id, tmp_path):
    """A record's input is the state and instruction before its step: the expert's records never
    give one (instruction, observation) two labels. Before, a Hexagons STOP that moved on to the
    next instruction was labelled with that next instruction."""
    world = dataset.world_of(env_id, data_size=16)
    dataset.generate(world, "expert", 8, tmp_path, steps=40, batch_size=8, quiet=True)
    rows = dataset.read(tmp_path)
    clashes = {k: v for k, v in _expert_labels(rows).items() if len(v) > 1}
    assert not clashes, next(iter(clashes.items()))
    episode = max((r for r in rows if r["action"] in ("stop", "<stop>")), key=lambda r: r["seed"], default=rows[-1])["seed"]
    played = [r for r in rows if r["seed"] == episode]
    obs, state = world.start(world.schedule(played[0]["episode"]), episode)
    for r in played:  # replayed: the instruction the observation showed when the action was chosen
        assert r["instruction"] == world.instruction(obs), r["id"]
        step = world.step(state, r["action_id"], episode, r["step"])
        obs, state = step.obs, step.state
    if env_id == "Hexagons-Paint-v1":
        moved_on = [a for a, b in zip(played, played[1:]) if a["instruction"] != b["instruction"]]
        assert any(a["action"] == "stop" for a in moved_on)


def test_runs_have_unique_ids_and_one_folder_holds_one_run_unless_appended(hexagons_records, tmp_path):
    world = hexagons_records[0]
    dataset.generate(world, "random", 3, tmp_path, steps=4, batch_size=4, quiet=True)
    with pytest.raises(ValueError, match="holds records of another run .*--append"):
        dataset.generate(world, "expert", 3, tmp_path, steps=4, batch_size=4, quiet=True)
    dataset.generate(world, "expert", 3, tmp_path, steps=4, batch_size=4, quiet=True, append=True)
    with pytest.raises(ValueError, match="already holds run expert-seed0-"):
        dataset.generate(world, "expert", 3, tmp_path, steps=4, batch_size=4, quiet=True, append=True)
    rows = dataset.read(tmp_path)
    assert len({r["id"] for r in rows}) == len(rows) == 24 and stats(rows)["Hexagons-Paint-v1"]["episodes"] == 6
    shard = sorted(tmp_path.glob("*.jsonl"))[0]
    (tmp_path / "copy.jsonl").write_text(shard.read_text())
    with pytest.raises(ValueError, match=r"copy.jsonl: line 1: id '.*' is already used at .*-00000.jsonl: line 1"):
        dataset.read(tmp_path)
    with pytest.raises(ValueError, match="row 13: id .* is used twice"):
        score(rows[:12] + rows[:12], rows[:12] + rows[:12], "graph")
    with pytest.raises(SystemExit, match="is already used at"):
        main(["stats", str(tmp_path)])


def test_scores_stand_beside_their_floors(hexagons_records, tmp_path, capsys):
    _, out, _, rows = hexagons_records
    copy = [{"id": r["id"], "next_graph": r["graph"]} for r in rows]
    result = score(copy, rows, "graph")
    assert result["floors"]["copy"] == result["overall"] and result["floors"]["empty"]["graph"]["f1"] == 0.0
    assert 0 < result["overall"]["graph"]["f1"] < 100 and "em_jw" not in result["overall"]["graph"]
    # a missing prediction is an error, or scored as empty / left out when asked
    with pytest.raises(ValueError, match=f"{len(rows) - 5} gold record\\(s\\) have no prediction"):
        score(copy[:5], rows, "graph")
    assert score(copy[:5], rows, "graph", missing="empty")["missing_predictions"] == len(rows) - 5
    assert score(copy[:5], rows, "graph", missing="skip")["instances"] == 5
    # submitting nothing earns nothing: empty deletions are not rewarded where the gold has none
    nothing = score([{"id": r["id"], "graph_diff": {"add": [], "del": []}} for r in rows], rows, "diff")
    deleting = sum(bool(r["graph_diff"]["del"]) for r in rows)
    assert nothing["overall"]["del"] == {**dict.fromkeys(metrics.MEASURES, 0.0), "scored": deleting} and deleting > 0
    assert (
        score([{"id": r["id"], "graph_diff": r["graph_diff"]} for r in rows], rows, "diff", empty_gold="one")["overall"]["del"]["f1"] == 100
    )
    # valid actions are scored by id; the copy floor is the previous step's set
    actions = score([{"id": r["id"], "valid_action_ids": r["valid_action_ids"]} for r in rows], rows, "actions")
    assert actions["field"] == "valid_action_ids" and actions["overall"]["set_em"] == 100.0 and 90 < actions["floors"]["copy"]["f1"] < 100
    with pytest.raises(ValueError, match="field 'valid_action_ids' must be a list"):
        score([{"id": rows[0]["id"], "valid_actions": ["stop"]}], rows, "actions", missing="skip")
    (tmp_path / "copy.jsonl").write_text("".join(json.dumps(c) + "\n" for c in copy[: len(rows) // 2]))
    main(["score", str(tmp_path / "copy.jsonl"), str(out), "--missing", "empty", "--out", str(tmp_path / "s.json")])
    written = json.loads((tmp_path / "s.json").read_text())
    assert written["missing_predictions"] == len(rows) - len(rows) // 2 and set(written["floors"]) == {"copy", "empty"}
    (tmp_path / "bad.jsonl").write_text('{"id": "nope", "next_graph": []}\n')
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["generate", "--env", "Hexagon-Paint-v1", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert "unknown env id 'Hexagon-Paint-v1'. Did you mean Hexagons-Paint-v1" in err
    with pytest.raises(
        SystemExit, match=f"will not write into {tmp_path / 'copy.jsonl'}: it is not a file a textworld score command wrote"
    ):
        main(["score", str(tmp_path / "copy.jsonl"), str(out), "--out", str(tmp_path / "copy.jsonl")])
    with pytest.raises(SystemExit, match="No such file"):
        main(["score", str(tmp_path / "missing.jsonl"), str(out)])
    with pytest.raises(SystemExit, match="not in the gold records"):
        main(["score", str(tmp_path / "bad.jsonl"), str(out)])
    with pytest.raises(ValueError, match="unknown policy"):
        dataset.generate(hexagons_records[0], "greedy", 1, tmp_path)
    with pytest.raises(ValueError, match="shard_size must be positive"):
        dataset.generate(hexagons_records[0], "random", 1, tmp_path, shard_size=0)
    easy = dataset.world_of("CrafText-Classic-Symbolic-v1", level="easy")
    with pytest.raises(ValueError, match="no expert for these goals .*every goal of --level medium.*--policy random"):
        dataset.generate(easy, "mixed", 1, tmp_path / "easy")


def test_compact_records_fit_a_prompt(tmp_path):
    """Valid actions as ids by default (names in the vocabulary file): a Hexagons record is a
    fraction of its size with names; ``none`` leaves them out."""
    world = dataset.world_of("Hexagons-Paint-v1", data_size=16)
    sizes = {}
    for mode in dataset.VALID_ACTIONS:
        dataset.generate(world, "random", 2, tmp_path / mode, steps=6, batch_size=2, valid_actions=mode, quiet=True)
        rows = dataset.read(tmp_path / mode)
        assert set(rows[0]) == set(dataset.record_fields(mode))
        sizes[mode] = stats(rows)["Hexagons-Paint-v1"]["bytes_per_record"]
    assert sizes["none"] < 4_000 < sizes["ids"] < 12_000 < 30_000 < sizes["names"], sizes


JERICHO = [  # the release's format and its documented defects: empty names, empty graphs (each trajectory starts with one), case
    [
        {
            "rom": "zork1",
            "action": "open mailbox",
            "reward": 0,
            "state": {
                "obs": "West of House",
                "loc_desc": "You are west of a house.",
                "inv_desc": "You are empty-handed.",
                "graph": [],
                "valid_acts": {"[(64, 'Opened')]": "open mailbox", "[(4, 'West of House', 'North of House')]": "north"},
                "walkthrough_act": "north",
                "walkthrough_diff": "((), (), ())",
                "score": 0,
                "location": {"name": "West of House", "num": 180},
                "inv_objs": {},
                "inv_attrs": {},
                "surrounding_objs": {"The small mailbox is closed.": ["mailbox"]},
                "surrounding_attrs": {"mailbox": ["container", "openable"]},
            },
            "next_state": {
                "obs": "Opening the small mailbox reveals a leaflet.",
                "graph": [["you", "in", "West of House"], ["leaflet", "in", "Small Mailbox"], ["", "in", ""]],
                "valid_acts": {},
                "score": 0,
            },
            "graph_diff": [["leaflet", "in", "Small Mailbox"]],
        },
        {
            "rom": "zork1",
            "action": "take leaflet",
            "reward": 0,
            "state": {
                "obs": "Opening the small mailbox reveals a leaflet.",
                "graph": [],
                "valid_acts": {"[(86, 'leaflet')]": "take leaflet"},
            },
            "next_state": {"obs": "Taken.", "graph": [["you", "in", "West of House"], ["you", "have", "Leaflet"]], "valid_acts": {}},
        },
    ]
]


def test_jerichoworld_reader(tmp_path, capsys):
    """Every field of the release is kept (names' case, walkthrough act, score, location, objects,
    attributes, valid actions with their world diffs); defects are counted and never patched from
    a neighbouring record (which may belong to another branch)."""
    path = tmp_path / "test.json"
    path.write_text(json.dumps(JERICHO))
    rows, counts = jericho.load(path)
    assert counts == {"instances": 2, "dropped_triples": 1, "empty_graphs": 2}
    assert rows[0]["next_graph"] == [["you", "in", "West of House"], ["leaflet", "in", "Small Mailbox"]]
    assert rows[0]["valid_actions"] == ["north", "open mailbox"] and rows[0]["world"] == "jericho:zork1"
    for row, inst in zip(rows, JERICHO[0]):
        assert row["jericho"] == {k: v for k, v in inst.items() if k not in ("rom", "action", "reward")}
    assert rows[0]["jericho"]["state"]["walkthrough_act"] == "north" and rows[0]["jericho"]["state"]["location"]["num"] == 180
    assert rows[0]["jericho"]["state"]["valid_acts"]["[(64, 'Opened')]"] == "open mailbox"
    assert rows[1]["graph"] == [] and rows[1]["graph_diff"]["add"] == [["you", "in", "West of House"], ["you", "have", "Leaflet"]]
    main(["import-jericho", str(path), "--out", str(tmp_path / "jw")])
    assert dataset.read(tmp_path / "jw") == json.loads(json.dumps(rows))
    assert score(rows, rows, "graph")["overall"]["graph"]["f1"] == 100.0
    with pytest.raises(SystemExit):
        main(["import-jericho", str(path), "--out", str(tmp_path / "jw2"), "--repair"])
    assert "unrecognized arguments: --repair" in capsys.readouterr().err
    bad = json.loads(json.dumps(JERICHO))
    bad[0][1]["state"]["graph"] = [["a", "b"]]
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match=r"test.json: game 0: instance 1: state: field 'graph' item 0"):
        jericho.load(path)


@pytest.mark.slow
def test_craftext_jerichoworld_sampling_regenerates(tmp_path):
    """``--policy jericho`` on CrafText (medium, the expert's goals): the first third of each
    expert trajectory, a 2-step random excursion from each of its states and a random walk. The
    first and last records of the parts regenerate exactly from (seed, actions before them),
    although an excursion's records leave out the walkthrough steps before it. (A batched Craftax
    reset is not bitwise the unbatched one on XLA:CPU, so ``generate`` resets slot by slot.)"""
    world = dataset.world_of("CrafText-Classic-Symbolic-v1", data_size=16, level="medium")
    summary = dataset.generate(world, "jericho", 3, tmp_path, seed=7, steps=18, walk_steps=5, batch_size=16, quiet=True)
    rows = dataset.read(tmp_path)
    lengths = dataset.expert_steps(world, 3, 7, 18)
    parts: dict = {}
    for r in rows:
        parts.setdefault((r["seed"], r["part"]), []).append(r)
    for e, n in enumerate(lengths):
        trunk = parts[(7 + e, "walkthrough")]
        assert [r["step"] for r in trunk] == list(range(-(-n // 3)))
        for k in range(len(trunk)):
            branch = parts[(7 + e, f"excursion-{k}")]
            assert [r["step"] for r in branch] == [k, k + 1][: len(branch)] and branch[0]["graph"] == trunk[k]["graph"]
        assert [r["step"] for r in parts[(7 + e, "random-walk")]] == list(range(5))
    assert summary["units"] == len(parts) == sum(2 + -(-n // 3) for n in lengths)
    clashes = {k: v for k, v in _expert_labels([r for r in rows if r["part"] == "walkthrough"]).items() if len(v) > 1}
    assert not clashes
    last = max(k for s, k in parts if s == 7 and k.startswith("excursion"))
    for part in ("walkthrough", "random-walk", "excursion-0", last):
        for r in (parts[(7, part)][0], parts[(7, part)][-1]):
            again = dataset.regenerate(world, r, _prefix(parts, 7, part, r["step"]))
            assert again == {"graph": r["graph"], "observation": r["observation"]}, r["id"]


def _prefix(parts: dict, seed: int, part: str, step: int) -> list[int]:
    """The actions before ``step`` of a part: an excursion from step k follows the walkthrough's first k."""
    own = {r["step"]: r["action_id"] for r in parts[(seed, part)]}
    trunk = {r["step"]: r["action_id"] for r in parts[(seed, "walkthrough")]}
    return [own.get(t, trunk.get(t)) for t in range(step)]


def test_language_model_baseline_on_records(hexagons_records, tmp_path, monkeypatch):
    """``predict`` through the suite's chat client against a scripted server: the gold changes
    score 100; a reply with a malformed line scores below, never as if the line were absent."""
    from baselines.textworld import predict
    from tests.servers import Scripted

    _, out, _, rows = hexagons_records
    by_graph = {}
    for r in rows[:6]:
        by_graph[predict.prompt(r)[1]["content"]] = r

    def answer(body):
        r = by_graph[body["messages"][1]["content"]]
        lines = [f"+ {' | '.join(t)}" for t in r["graph_diff"]["add"]] + [f"- {' | '.join(t)}" for t in r["graph_diff"]["del"]]
        return "\n".join(lines) or "no change"

    server = Scripted([answer])
    try:
        main(["predict", str(out), "--base-url", server.url, "--model", "m", "--limit", "6", "--out", str(tmp_path / "p.jsonl"), "--quiet"])
        gold = score(dataset.read_lines(tmp_path / "p.jsonl"), rows, "graph", missing="skip")
        assert gold["instances"] == 6 and gold["overall"]["graph"]["f1"] == 100.0
        assert score(dataset.read_lines(tmp_path / "p.jsonl"), rows, "diff", missing="skip")["overall"]["add"]["f1"] == 100.0
        server.script[:] = [lambda body: answer(body) + "\nthe tile turns blue"]
        main(["predict", str(out), "--base-url", server.url, "--model", "m", "--limit", "6", "--out", str(tmp_path / "q.jsonl"), "--quiet"])
        noisy = score(dataset.read_lines(tmp_path / "q.jsonl"), rows, "graph", missing="skip")["overall"]["graph"]
        assert noisy["recall"] == 100.0 and noisy["precision"] < 100.0
    finally:
        server.close()
    assert server.requests[0]["body"]["messages"][0]["content"] == predict.SYSTEM
    assert predict.parse("+ a | b | c\n- d | e | f\nno change\n+ g | h") == {
        "add": [["a", "b", "c"], ["+ g | h"]],
        "del": [["d", "e", "f"]],
    }
