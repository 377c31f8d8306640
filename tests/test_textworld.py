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
    assert s == {"precision": 0.5, "recall": 0.5, "f1": 0.5, "em_jw": 0.5, "set_em": 0.0}
    # token level: multisets of tokens over all parts
    t = metrics.graph_instance([["you", "in", "hall"]], [["you", "in", "kitchen"]])["token"]
    assert t["precision"] == pytest.approx(2 / 3) and t["recall"] == pytest.approx(2 / 3)
    # empty conventions, and JerichoWorld's empty-name triples are dropped
    assert metrics.graph_instance([], [["", "in", ""]])["graph"] == dict.fromkeys(metrics.MEASURES, 1.0)
    assert metrics.graph_instance([["a", "b", "c"]], [])["graph"] == dict.fromkeys(metrics.MEASURES, 0.0)
    a = metrics.action_instance(["Go North", "take lamp"], ["go north", "open door", "take lamp", "west"])
    assert a["em_jw"] == 0.5 and a["precision"] == 1.0 and a["f1"] == pytest.approx(2 / 3) and a["set_em"] == 0.0
    assert metrics.diff([["a", "r", "b"]], [["a", "r", "c"]]) == {"add": [["a", "r", "c"]], "del": [["a", "r", "b"]]}
    agg = metrics.aggregate(["g1", "g1", "g2"], {"x": np.array([1.0, 0.0, 1.0])})
    assert agg["per_world"]["g1"]["x"] == 50.0 and agg["overall"]["x"] == pytest.approx(200 / 3) and agg["instances"] == 3


def _numpy_scores(pred: set, gold: set) -> dict:
    """An independent reading of the definitions (boolean membership vectors)."""
    universe = sorted(pred | gold)
    p, g = np.array([u in pred for u in universe], bool), np.array([u in gold for u in universe], bool)
    tp = float((p & g).sum())
    if not p.any() and not g.any():
        return dict.fromkeys(metrics.MEASURES, 1.0)
    if not p.any() or not g.any():
        return dict.fromkeys(metrics.MEASURES, 0.0)
    return {
        "precision": tp / p.sum(),
        "recall": tp / g.sum(),
        "f1": 2 * tp / (p.sum() + g.sum()),
        "em_jw": tp / g.sum(),
        "set_em": float((p == g).all()),
    }


def test_host_numpy_and_jitted_scores_agree():
    rng = np.random.default_rng(0)
    boards = rng.choice(8, size=(40, 180), p=[0.7] + [0.3 / 7] * 7).astype(np.int8)
    boards[3] = 0
    graphs = jax.jit(jax.vmap(hex_kg.graph))(boards)
    pairs = [(i, j) for i in range(40) for j in (i, (i + 1) % 40, 3)]
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
            assert ours[m] == pytest.approx(ref[m]) and float(jitted[m][n]) == pytest.approx(ref[m], abs=1e-6), (i, j, m)
            assert batch[m][n] == pytest.approx(ref[m]), (i, j, m)
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
    summary = dataset.generate(world, "mixed", 6, out, steps=12, batch_size=4, shard_size=40, parquet=True, quiet=True)
    return world, out, summary, dataset.read(out)


def test_generated_records(hexagons_records):
    world, out, summary, rows = hexagons_records
    assert summary["records"] == len(rows) > 40 and set(dataset.RECORD_FIELDS) <= set(rows[0])
    assert len(summary["shards"]) == -(-len(rows) // 40) and len(list(out.glob("*.parquet"))) == len(summary["shards"])
    vocab = json.loads((out / "vocab" / "Hexagons-Paint-v1.json").read_text())
    assert vocab["entities"] == list(world.task.env.kg_schema["entities"]) and len(vocab["sha256"]) == 64
    for r in rows:
        assert r["action"] in r["valid_actions"] and r["action_id"] in r["valid_action_ids"]
        assert all(all(part for part in t) for t in r["graph"] + r["next_graph"])  # no empty names
        assert {k: sorted(v) for k, v in r["graph_diff"].items()} == metrics.diff(r["graph"], r["next_graph"])
        assert [t for t in r["next_graph"] if t not in r["graph"]] == r["graph_diff"]["add"]  # in graph order
        assert [vocab["entities"][s] for s, _, _ in r["graph_ids"]] == [t[0] for t in r["graph"]]
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


def test_stats_and_score_commands(hexagons_records, tmp_path, capsys):
    _, out, _, rows = hexagons_records
    st = stats(rows)["Hexagons-Paint-v1"]
    assert st["records"] == len(rows) and st["episodes"] == 6 and st["valid_actions_per_state"] > 1000
    copy = tmp_path / "copy.jsonl"  # the copy baseline: the next graph is the current one
    copy.write_text("".join(json.dumps({"id": r["id"], "next_graph": r["graph"]}) + "\n" for r in rows[: len(rows) // 2]))
    main(["score", str(copy), str(out), "--task", "graph", "--out", str(tmp_path / "s.json")])
    result = json.loads((tmp_path / "s.json").read_text())
    assert result["missing_predictions"] == len(rows) - len(rows) // 2 and 0 < result["overall"]["graph"]["f1"] < 100
    assert score(rows, rows, "actions")["overall"]["set_em"] == 100.0
    assert score([{"id": rows[0]["id"], "graph_diff": rows[0]["graph_diff"]}], rows[:1], "diff")["overall"]["add"]["f1"] == 100.0
    (tmp_path / "bad.jsonl").write_text('{"id": "nope"}\n')
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["generate", "--world", "Hexagon-Paint-v1", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert "--world is deprecated" in err and "unknown env id 'Hexagon-Paint-v1'. Did you mean Hexagons-Paint-v1" in err
    with pytest.raises(SystemExit, match=f"{tmp_path / 'copy.jsonl'} already exists"):
        main(["score", str(copy), str(out), "--out", str(copy)])
    with pytest.raises(SystemExit, match="No such file"):
        main(["score", str(tmp_path / "missing.jsonl"), str(out)])
    with pytest.raises(SystemExit, match="not in the gold records"):
        main(["score", str(tmp_path / "bad.jsonl"), str(out)])
    with pytest.raises(ValueError, match="expected a \\[subject, relation, object\\] triple"):
        score([{"id": rows[0]["id"], "next_graph": ["not a triple"]}], rows[:1], "graph")
    with pytest.raises(ValueError, match="unknown policy"):
        dataset.generate(hexagons_records[0], "greedy", 1, tmp_path)
    with pytest.raises(ValueError, match="shard_size must be positive"):
        dataset.generate(hexagons_records[0], "random", 1, tmp_path, shard_size=0)


JERICHO = [
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
                "valid_acts": {"d1": "open mailbox", "d2": "north"},
            },
            "next_state": {
                "obs": "Opening the mailbox reveals a leaflet.",
                "graph": [["you", "in", "west of house"], ["leaflet", "in", "mailbox"], ["", "in", ""]],
                "valid_acts": {},
            },
        },
        {
            "rom": "zork1",
            "action": "take leaflet",
            "reward": 0,
            "state": {"obs": "Opening the mailbox reveals a leaflet.", "graph": [], "valid_acts": {"d1": "take leaflet"}},
            "next_state": {"obs": "Taken.", "graph": [["you", "in", "west of house"], ["you", "have", "leaflet"]], "valid_acts": {}},
        },
    ]
]


def test_jerichoworld_reader(tmp_path, capsys):
    path = tmp_path / "test.json"
    path.write_text(json.dumps(JERICHO))
    rows, counts = jericho.load(path)
    assert counts == {"instances": 2, "dropped_triples": 1, "empty_graphs": 2, "repaired_graphs": 0}
    assert rows[0]["next_graph"] == [["leaflet", "in", "mailbox"], ["you", "in", "west of house"]]
    assert rows[0]["valid_actions"] == ["north", "open mailbox"] and rows[0]["world"] == "jericho:zork1"
    rows, counts = jericho.load(path, repair=True)
    assert counts["repaired_graphs"] == 1 and rows[1]["graph"] == rows[0]["next_graph"]
    assert rows[1]["graph_diff"] == {"add": [["you", "have", "leaflet"]], "del": [["leaflet", "in", "mailbox"]]}
    main(["import-jericho", str(path), "--out", str(tmp_path / "jw"), "--repair"])
    assert score(rows, dataset.read(tmp_path / "jw"), "graph")["overall"]["graph"]["f1"] == 100.0
    bad = json.loads(json.dumps(JERICHO))
    bad[0][1]["state"]["graph"] = [["a", "b"]]
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match=r"test.json: game 0: instance 1: state: field 'graph' item 0"):
        jericho.load(path)


def test_craftext_records_regenerate(tmp_path):
    """A batched Craftax reset is not bitwise the unbatched one on XLA:CPU (different maps for
    most seeds), so ``generate`` resets slot by slot: the first and last states of every episode
    regenerate exactly from (seed, actions)."""
    world = dataset.world_of("CrafText-Classic-Symbolic-v1", data_size=16, level="easy")
    dataset.generate(world, "random", 32, tmp_path, seed=7, steps=2, batch_size=32, quiet=True)
    episodes: dict = {}
    for r in dataset.read(tmp_path):
        episodes.setdefault(r["seed"], []).append(r)
    assert sorted(episodes) == list(range(7, 39))
    for rows in episodes.values():
        for r in (rows[0], rows[-1]):
            again = dataset.regenerate(world, r, [x["action_id"] for x in rows[: r["step"]]])
            assert again == {"graph": r["graph"], "observation": r["observation"]}, r["id"]
