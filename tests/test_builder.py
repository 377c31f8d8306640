"""BAP v2 Builder models at tiny scale: loss falls, decoding stays feasible, gold scores 100, the
v2 annotation procedure, the floors and the command line."""

import json
import shutil

import jax
import numpy as np
import pytest

from baselines.builder import data as builder_data
from baselines.builder import evaluate as builder_evaluate
from baselines.builder.__main__ import main
from baselines.builder.evaluate import copy_last_action
from baselines.builder.model import (
    MAX_BLOCKS,
    BuilderModel,
    SetWorldEncoder,
    builder_frame_neighbours,
    neighbour_features,
    world_features,
)
from baselines.builder.train import Builder, Decoder, TrainConfig, View, dev_f1, evaluated_params, score
from blocksworld.annotations import AnnotationError, clean_test_set, read_annotations
from blocksworld.augment import action_codes, permute_colours
from blocksworld.env import BlocksWorld, feasible_actions, inventory_of
from blocksworld.grid import PICK, PLACE, STOP, apply_action, decode_action, encode_action, to_grid
from blocksworld.item import BapItem
from blocksworld.replay import replay_in_env
from blocksworld.tokenizer import Vocabulary

MAX_ACTIONS = 3


@pytest.fixture(scope="module")
def items():
    return builder_data.synthetic_items("blocks", "train", 12)


@pytest.fixture(scope="module")
def vocabulary(items):
    return builder_data.build_vocabulary(items)


@pytest.fixture(scope="module")
def examples(items, vocabulary):
    return builder_data.examples(items, vocabulary, MAX_ACTIONS, max_tokens=24)


@pytest.fixture(scope="module")
def gru(vocabulary):
    return Builder(TrainConfig(max_actions=MAX_ACTIONS, lr=3e-3, max_tokens=24), len(vocabulary))


def _fit_steps(builder, text, examples, steps=12):
    state = builder.init(text, examples)
    index = np.arange(len(examples))
    losses = []
    for _ in range(steps):
        state, loss, _ = builder.train_step(state, text, examples, index, MAX_ACTIONS + 1)
        losses.append(float(loss))
    return state, losses


def feasible_of(starts: np.ndarray) -> jax.Array:
    """(N, 7624) feasible actions of start grids (N, 11, 9, 11)."""
    return jax.vmap(lambda grid: feasible_actions(grid, inventory_of(grid)))(starts)


def test_examples_cap_actions_and_end_with_stop_only_when_complete(items, examples):
    for item, targets, length in zip(items, examples.targets, examples.lengths):
        assert length == min(len(item.actions), MAX_ACTIONS) + (len(item.actions) <= MAX_ACTIONS)
        assert (targets[length:] == -1).all()
        assert (targets[length - 1] == STOP) == (len(item.actions) <= MAX_ACTIONS)
    later = [k for k, item in enumerate(items) if item.start]
    assert later and all(examples.last_action[k] >= 0 for k in later), "a game's earlier actions give the previous action"
    assert (examples.ages[later] < 5).any(axis=(1, 2, 3)).all(), "recently changed cells carry a recency age"


GRU_VARIANTS = {
    "gru-cnn": {"world_encoder": "cnn"},
    "gru-attention": {"text_attention": True},
    "gru-builder-frame": {"builder_frame": True},
    "gru-dropout": {"dropout": 0.2},
}
"""TrainConfig settings of the GRU variants whose training loss must fall like the default's."""


@pytest.mark.parametrize("kind", ["gru", "transformer", *(pytest.param(k, marks=pytest.mark.slow) for k in GRU_VARIANTS)])
def test_teacher_forced_loss_decreases(kind, gru, examples, vocabulary):
    if kind == "gru":
        builder, text = gru, {"tokens": examples.tokens}
    elif kind in GRU_VARIANTS:
        builder = Builder(TrainConfig(max_actions=MAX_ACTIONS, lr=3e-3, max_tokens=24, **GRU_VARIANTS[kind]), len(vocabulary))
        text = {"tokens": examples.tokens}
    else:
        builder = Builder(TrainConfig(model="transformer", max_actions=MAX_ACTIONS, lr=1e-3), len(vocabulary))
        rng = np.random.default_rng(0)
        text = {"states": rng.normal(size=(len(examples), 6, 384)).astype(np.float16), "mask": np.ones((len(examples), 6), bool)}
    _, losses = _fit_steps(builder, text, examples)
    assert losses[0] > np.log(50), "an untrained model spreads its mass over the feasible actions"
    assert losses[-1] < 0.6 * losses[0]


def test_text_attention_reads_every_dialogue_token_and_ignores_padding(examples, vocabulary):
    model = BuilderModel("gru", vocab_size=len(vocabulary), text_attention=True)
    tokens = examples.tokens[:4]
    lengths = (tokens != 0).sum(-1)
    assert lengths.min() < tokens.shape[1] and not tokens[lengths.argmin(), lengths.min() :].any(), "0-padded at the end"
    previous = np.full((4, 2), -1)

    def decoder_outputs(module, text, previous):
        return module._outputs(module.context(text), previous)

    params = model.init(jax.random.key(0), {"tokens": tokens}, previous, method=decoder_outputs)

    def outputs(tokens):
        return np.asarray(model.apply(params, {"tokens": tokens}, previous, method=decoder_outputs))

    padded = np.pad(tokens, ((0, 0), (0, 7)))
    np.testing.assert_allclose(outputs(padded), outputs(tokens), atol=1e-5)
    first = tokens.copy()
    first[:, 0] = np.where(first[:, 0] == 5, 6, 5)
    assert np.abs(outputs(first) - outputs(tokens)).max() > 1e-4, "the first word reaches the decoder"
    with pytest.raises(ValueError, match="text_attention is a GRU decoder option"):
        TrainConfig(model="transformer", text_attention=True).validate()


@pytest.mark.slow
def test_moving_average_of_the_params_leaves_their_path_as_it_was(gru, examples, vocabulary):
    text, index = {"tokens": examples.tokens}, np.arange(len(examples))
    averaged = Builder(TrainConfig(max_actions=MAX_ACTIONS, lr=3e-3, max_tokens=24, ema=0.2), len(vocabulary))
    state, plain = averaged.init(text, examples), gru.init(text, examples)
    expected = state.average
    for t in range(4):  # the decay warms up as (1 + t) / (10 + t): 0.1, 0.18, then the cap 0.2
        state, loss, _ = averaged.train_step(state, text, examples, index, MAX_ACTIONS + 1)
        plain, plain_loss, _ = gru.train_step(plain, text, examples, index, MAX_ACTIONS + 1)
        decay = min(0.2, (1 + t) / (10 + t))
        expected = jax.tree.map(lambda a, p, d=decay: d * a + (1 - d) * p, expected, state.params)
        np.testing.assert_allclose(float(loss), float(plain_loss), rtol=1e-6)
    for online, alone, average, wanted in zip(*map(jax.tree.leaves, (state.params, plain.params, state.average, expected))):
        np.testing.assert_allclose(online, alone, atol=1e-6)  # the online params train as without the average
        np.testing.assert_allclose(average, wanted, atol=1e-6)
    assert max(np.abs(a - p).max() for a, p in zip(jax.tree.leaves(state.average), jax.tree.leaves(state.params))) > 1e-4
    assert evaluated_params(state) is state.average and evaluated_params(plain) is plain.params
    for bad in (-0.1, 1.0):
        with pytest.raises(ValueError, match=r"ema must be in \[0, 1\)"):
            TrainConfig(ema=bad).validate()


@pytest.mark.parametrize("kind", ["gru", "transformer"])
def test_dropout_acts_in_training_only_and_follows_its_key(kind, examples, vocabulary):
    if kind == "gru":
        text = {"tokens": examples.tokens[:4]}
    else:
        text = {"states": np.random.default_rng(0).normal(size=(4, 6, 384)).astype(np.float32), "mask": np.ones((4, 6), bool)}
    previous = np.full((4, 2), -1)
    features = jax.vmap(world_features)(examples.starts[:4], examples.ages[:4], examples.poses[:4])[:, None].repeat(2, 1)
    model = BuilderModel(kind, vocab_size=len(vocabulary), dropout=0.5)
    params = model.init(jax.random.key(0), text, previous, features)
    plain = BuilderModel(kind, vocab_size=len(vocabulary)).apply(params, text, previous, features)
    np.testing.assert_array_equal(model.apply(params, text, previous, features), plain)

    def trained(seed):
        return np.asarray(model.apply(params, text, previous, features, train=True, rngs={"dropout": jax.random.key(seed)}))

    np.testing.assert_array_equal(trained(1), trained(1))
    assert np.abs(trained(1) - plain).max() > 1e-3 and np.abs(trained(1) - trained(2)).max() > 1e-3
    for bad in (-0.1, 1.0):
        with pytest.raises(ValueError, match=r"dropout must be in \[0, 1\)"):
            TrainConfig(dropout=bad).validate()


def test_lr_scale_scales_the_whole_adamw_step(gru, examples):
    text, index = {"tokens": examples.tokens}, np.arange(len(examples))
    state = gru.init(text, examples)
    steps = {scale: gru.train_step(state, text, examples, index, MAX_ACTIONS + 1, scale)[0].params for scale in (0.0, 0.5, 1.0)}
    moved = {s: jax.tree.map(lambda a, b: np.asarray(a - b), p, state.params) for s, p in steps.items()}
    assert all(not m.any() for m in jax.tree.leaves(moved[0.0])), "a zero rate moves nothing, weight decay included"
    for half, whole in zip(jax.tree.leaves(moved[0.5]), jax.tree.leaves(moved[1.0])):
        np.testing.assert_allclose(2 * half, whole, rtol=1e-4, atol=1e-7)


def test_dev_f1_scores_the_corpus_items_apart(examples):
    changed = np.flatnonzero((examples.starts != examples.ends).any(axis=(1, 2, 3)))
    assert len(changed) >= 4
    part = examples.take(changed)
    predicted = part.ends.copy()
    predicted[2:] = part.starts[2:]  # the first 2 (the "corpus") built right, the others nothing
    f1 = dev_f1(part, predicted, corpus_items=2)
    assert f1["dev_corpus_strict_f1"] == f1["dev_corpus_fairer_f1"] == 100
    assert 0 < f1["dev_strict_f1"] < 100
    assert set(dev_f1(part, predicted)) == {"dev_strict_f1", "dev_fairer_f1"}


def test_greedy_decoding_only_emits_feasible_actions_and_runs_them_in_the_env(gru, examples):
    text = {"tokens": examples.tokens}
    params = gru.init(text, examples).params  # untrained: it acts rather than stopping
    grids, codes = Decoder(gru, MAX_ACTIONS, batch_size=8)(params, text, examples)
    assert codes.shape == (len(examples), MAX_ACTIONS) and grids.shape == examples.starts.shape
    emitted = 0
    for start, row, end in zip(examples.starts, codes, grids):
        grid = start.copy()
        for code in row:
            if code == STOP:
                break
            (xi, yi, zi), k = decode_action(int(code))
            kind, colour = (PICK, int(grid[xi, yi, zi])) if k == 6 else (PLACE, k + 1)
            assert apply_action(grid, (kind, xi - 5, yi + 1, zi - 5, colour)), f"infeasible action {code}"
            emitted += 1
        np.testing.assert_array_equal(grid, end)
    assert emitted > 0
    fitted = _fit_steps(gru, text, examples)[0].params  # stops after some items: a batch decodes until all its items have
    batched, alone = (Decoder(gru, MAX_ACTIONS, batch_size=size)(fitted, text, examples) for size in (8, 1))
    assert (batched[1][:, :-1] == STOP).any() and not (batched[1] == STOP).all()
    np.testing.assert_array_equal(batched[0], alone[0])
    np.testing.assert_array_equal(batched[1], alone[1])


def test_stop_bias_shortens_and_lengthens_decoding(gru, examples):
    text = {"tokens": examples.tokens}
    params = gru.init(text, examples).params
    decoder = Decoder(gru, MAX_ACTIONS, batch_size=8)
    grids, codes = decoder(params, text, examples, stop_bias=1e4)
    assert (codes == STOP).all() and (grids == examples.starts).all(), "a large bias stops at once"
    grids, codes = decoder(params, text, examples, stop_bias=-1e4)
    assert (codes != STOP).all(), "a large negative bias acts while any action is feasible"
    assert (grids != examples.starts).any()


@pytest.mark.slow
def test_an_ensemble_decodes_the_argmax_of_its_members_mean_log_probabilities(gru, examples):
    text = {"tokens": examples.tokens}
    fitted = _fit_steps(gru, text, examples)[0].params
    alone = Decoder(gru, MAX_ACTIONS, batch_size=8)(fitted, text, examples)
    twice = Decoder([gru, gru], MAX_ACTIONS, batch_size=8)([fitted, fitted], [text, text], examples)
    for a, b in zip(alone, twice):
        np.testing.assert_array_equal(a, b)  # a model's ensemble with itself is the model
    other = Builder(TrainConfig(max_actions=MAX_ACTIONS, max_tokens=24, seed=1), gru.model.vocab_size)
    members = [fitted, other.init(text, examples).params]
    _, codes = Decoder([gru, other], MAX_ACTIONS, batch_size=8)(members, [text, text], examples)
    features = jax.vmap(world_features)(examples.starts, examples.ages, examples.poses)[:, None]
    feasible = feasible_of(examples.starts)
    first = np.full((len(examples), 1), -1)
    log_probs = [
        jax.nn.log_softmax(np.where(feasible, builder.model.apply(params, text, first, features)[:, 0], -1e9))
        for builder, params in zip((gru, other), members)
    ]
    expected = np.argmax(np.where(feasible, (log_probs[0] + log_probs[1]) / 2, -np.inf), -1)
    np.testing.assert_array_equal(codes[:, 0], expected)
    with pytest.raises(ValueError, match="a decoder of 2 models takes that many params"):
        Decoder([gru, other], MAX_ACTIONS)([fitted], [text], examples)


@pytest.mark.slow
def test_views_decode_the_argmax_of_the_mean_log_probabilities_read_back_in_the_items_codes(gru, items, vocabulary, examples):
    text = {"tokens": examples.tokens}
    fitted = _fit_steps(gru, text, examples)[0].params
    decoder = Decoder(gru, MAX_ACTIONS, batch_size=8)
    alone = decoder(fitted, text, examples)
    identity = View(examples, (text,), np.arange(STOP + 1, dtype=np.int32))
    for a, b in zip(alone, decoder(fitted, text, examples, views=[identity])):
        np.testing.assert_array_equal(a, b)  # the item twice is the item
    permutation = [3, 5, 1, 6, 2, 4]
    permuted = builder_data.examples([permute_colours(i, permutation) for i in items], vocabulary, MAX_ACTIONS, max_tokens=24)
    view = View(permuted, ({"tokens": permuted.tokens},), action_codes(permutation, 0))
    _, codes = decoder(fitted, text, examples, views=[view])
    log_probs = []
    for part in (examples, permuted):
        features = jax.vmap(world_features)(part.starts, part.ages, part.poses)[:, None]
        logits = gru.model.apply(fitted, {"tokens": part.tokens}, np.full((len(part), 1), -1), features)[:, 0]
        log_probs.append(jax.nn.log_softmax(np.where(feasible_of(part.starts), logits, -1e9)))
    mean = (log_probs[0] + log_probs[1][:, view.codes]) / 2
    np.testing.assert_array_equal(codes[:, 0], np.argmax(np.where(feasible_of(examples.starts), mean, -np.inf), -1))
    assert (codes[:, 0] != alone[1][:, 0]).any(), "the permuted view changes some first action"
    with pytest.raises(ValueError, match="every view holds the same"):
        decoder(fitted, text, examples, views=[View(permuted.take(np.arange(3)), view.text, view.codes)])


def test_gold_sequences_replayed_in_the_env_score_100(items, examples, vocabulary):
    env = BlocksWorld(vocabulary, max_tokens=24)
    ends = replay_in_env(env, env.make_params(items), [i.actions for i in items])
    summary = score(examples, ends)["all"]
    for metric in ("strict", "fairer", "type", "colour", "location", "shape"):
        assert summary[metric]["micro_f1"] == pytest.approx(100.0)
    assert score(examples, examples.starts)["all"]["strict"]["micro_f1"] == 0.0


def test_copy_last_action_repeats_the_kind_and_colour_at_the_nearest_feasible_cell():
    start = to_grid([(0, 1, 0, 5)])
    last = encode_action((PLACE, 0, 1, 0, 5))  # that cell is full now: the nearest free supported cell
    end = np.asarray(copy_last_action(start[None], np.array([last])))[0]
    added = np.argwhere(end != start)
    assert len(added) == 1 and end[tuple(added[0])] == 5
    assert np.abs(added[0] - np.array([5, 0, 5])).sum() == 1
    unchanged = np.asarray(copy_last_action(start[None], np.array([-1])))[0]
    np.testing.assert_array_equal(unchanged, start)


def test_perspective_features_follow_the_builders_yaw():
    grid = np.zeros((11, 9, 11), np.int8)
    ages = np.full((11, 9, 11), 5)
    ahead = (5, 0, 7)  # world (0, 1, 2): two blocks along +z
    for yaw, forward, right in ((0.0, 0.2, 0.0), (90.0, 0.0, -0.2)):
        feats = np.asarray(world_features(grid, ages, np.array([0, 1, 0, yaw, 0], np.float32)))
        np.testing.assert_allclose(feats[ahead][8:10], [forward, right], atol=1e-6)
    assert feats.shape == (11, 9, 11, 11) and (feats[..., 7] == 0).all()


def test_neighbour_features_are_the_six_face_neighbours_cells():
    grid = np.zeros((11, 9, 11), np.int8)
    grid[5, 4, 5] = 3
    feats = world_features(grid, np.full((11, 9, 11), 5), np.zeros(5, np.float32))
    near = np.asarray(neighbour_features(feats)).reshape(11, 9, 11, 6, 7)
    # (neighbour order -x, +x, -y, +y, -z, +z): the cell at x=4 sees the block at its +x side
    for cell, side in (((4, 4, 5), 1), ((6, 4, 5), 0), ((5, 3, 5), 3), ((5, 5, 5), 2), ((5, 4, 4), 5), ((5, 4, 6), 4)):
        assert near[cell][side].argmax() == 3 and near[cell][side].sum() == 1
    assert (near[5, 4, 5, :, 0] == 1).all(), "the block's own neighbours are empty cells"
    assert (near[0, :, :, 0] == 0).all() and (near[:, 8, :, 3] == 0).all(), "outside the grid: all zero"


def test_builder_frame_neighbours_turn_with_the_builder():
    grid = np.zeros((11, 9, 11), np.int8)
    grid[5, 4, 5] = 3
    ages = np.full((11, 9, 11), 5)

    def near(grid, yaw, x=0.0, z=0.0):
        feats = world_features(grid, ages, np.array([x, 1, z, yaw, 20], np.float32))[None]
        return np.asarray(builder_frame_neighbours(feats, neighbour_features(feats)))[0].reshape(11, 9, 11, 6, 7)

    # (order behind, front, below, above, left, right); yaw 0 faces +z with -x on the right
    for yaw, beside in ((0, (((4, 4, 5), 4), ((6, 4, 5), 5), ((5, 4, 4), 1), ((5, 4, 6), 0))), (80, (((6, 4, 5), 1), ((5, 4, 6), 5)))):
        for cell, side in beside + (((5, 3, 5), 3),):
            assert near(grid, yaw)[cell][side].argmax() == 3, (yaw, cell, side)
    rng = np.random.default_rng(0)
    grid[tuple(rng.integers(0, (11, 9, 11), (30, 3)).T)] = rng.integers(1, 7, 30)
    xi, yi, zi = np.indices(grid.shape)
    turned = np.zeros_like(grid)
    turned[10 - zi, yi, xi] = grid  # a quarter turn, as blocksworld.augment.rotate: (x, z) -> (-z, x), yaw + 90
    for yaw in (0.0, 30.0, 95.0, -170.0):
        np.testing.assert_array_equal(near(turned, yaw + 90, x=-2.0, z=1.0)[10 - zi, yi, xi], near(grid, yaw, x=1.0, z=2.0))
    with pytest.raises(ValueError, match="builder_frame is a set encoder option"):
        TrainConfig(world_encoder="cnn", builder_frame=True).validate()


def test_set_encoder_lets_every_cell_see_a_distant_block_and_takes_full_boards():
    import jax

    ages = np.full((11, 9, 11), 5)
    pose = np.zeros(5, np.float32)
    empty = np.zeros((11, 9, 11), np.int8)
    one = empty.copy()
    one[10, 0, 10] = 2
    full = np.ones((11, 9, 11), np.int8)  # 1,089 blocks, more than MAX_BLOCKS
    feats = np.stack([np.asarray(world_features(g, ages, pose)) for g in (empty, one, full)])
    encoder = SetWorldEncoder()
    out = np.asarray(encoder.apply(encoder.init(jax.random.key(0), feats), feats))
    assert out.shape == (3, 11, 9, 11, 32) and np.isfinite(out).all() and (full != 0).sum() > MAX_BLOCKS
    assert not np.allclose(out[0, 0, 0, 0], out[1, 0, 0, 0]), "a cell far from the block reads it through the board token"


# ----------------------------------------------------------------------------- v2 annotations
def _game(game, n):
    return [
        BapItem(
            game,
            "C1",
            "test",
            s,
            start=((0, 1, 0, 1),) if s else (),
            end=((0, 1, 0, 1), (s, 1, 1, 2)),
            actions=(("putdown", s, 1, 1, 2),),
            action_states=(s,),
            history=(),
            builder_pose=(0, 1, 0, 0, 0),
        )
        for s in range(n)
    ]


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_clean_test_set_drops_unclear_fixes_by_look_ahead_and_drops_the_rest(tmp_path):
    items = _game("g1", 6) + _game("g2", 2)
    notes = [
        "clear unique correct",
        "clear unique incorrect",
        "clear unique incorrect",
        "clear unique correct",
        "unclear",
        "clear unique incorrect",
        "clear multiple correct",
        "clear unique incorrect",
    ]
    rows = []
    for item, note in zip(items, notes):
        context, *rest = note.split()
        row = {"game_id": item.game_id, "sample_id": item.sample_id, "context": context}
        if rest:
            row.update(interpretation=rest[0], structure=rest[1])
        rows.append(row)
    rows[6]["interpretation"] = "multiple"  # g2's first item is empty-board: allowed there
    clean = clean_test_set(items, read_annotations(_write(tmp_path / "a.jsonl", rows)))
    kept = [(i.game_id, i.sample_id) for i in clean.items]
    assert kept == [("g1", 0), ("g1", 1), ("g1", 2), ("g1", 3), ("g2", 0)]
    assert clean.items[1].end == clean.items[2].end == items[3].end, "incorrect items take the next correct item's structure"
    assert (clean.dropped_unclear, clean.fixed, clean.dropped_incorrect) == (1, 2, 2)
    assert clean.multiple == [False, False, False, False, True]


@pytest.mark.parametrize(
    "row, field",
    [
        ({"game_id": "g", "sample_id": 0, "context": "maybe"}, "context"),
        ({"game_id": "g", "sample_id": 0, "context": "clear", "structure": "correct"}, "interpretation"),
        ({"game_id": "g", "sample_id": 0, "context": "unclear", "structure": "correct"}, "structure"),
        ({"game_id": "g", "sample_id": "0", "context": "unclear"}, "sample_id"),
        ({"game_id": "g", "sample_id": 0, "context": "unclear", "note": 1}, "note"),
    ],
)
def test_malformed_annotations_name_the_file_line_and_field(tmp_path, row, field):
    path = _write(tmp_path / "bad.jsonl", [{"game_id": "g", "sample_id": 9, "context": "unclear"}, row])
    with pytest.raises(AnnotationError, match=rf"bad.jsonl, line 2, field '{field}'"):
        read_annotations(path)


def test_multiple_interpretations_only_on_empty_boards(tmp_path):
    items = _game("g", 2)
    rows = [{"game_id": "g", "sample_id": s, "context": "clear", "interpretation": "multiple", "structure": "correct"} for s in (0, 1)]
    with pytest.raises(AnnotationError, match="g:1.*non-empty board"):
        clean_test_set(items, read_annotations(_write(tmp_path / "a.jsonl", rows)))
    with pytest.raises(AnnotationError, match="g:1 has no annotation"):
        clean_test_set(items, read_annotations(_write(tmp_path / "b.jsonl", rows[:1])))


# ----------------------------------------------------------------------------- command line
def _best_epoch(run) -> int:
    import orbax.checkpoint as ocp

    return ocp.CheckpointManager((run / "best").absolute()).latest_step()


@pytest.mark.slow
def test_train_resume_and_evaluate_from_the_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(builder_data, "SYNTHETIC_EVAL_ITEMS", {"dev": 8, "test": 8})
    run = tmp_path / "run"
    common = ["train", "--out", str(run), "--simulated-items", "16", "--max-actions", "2", "--batch-size", "16", "--embeddings", "learned"]
    common += ["--plateau-decay", "0.5", "--dropout", "0.2", "--ema", "0.9"]  # dropout masks follow the step: resuming draws the same
    main(common + ["--max-epochs", "1"])
    assert json.loads((run / "config.json").read_text())["config"]["max_actions"] == 2
    with pytest.raises(SystemExit, match="already exists; continue it with --resume or replace it with --overwrite"):
        main(common + ["--max-epochs", "2"])
    main(common + ["--max-epochs", "2", "--max-actions", "5", "--select", "dev_strict_f1", "--resume"])  # saved settings, a new budget
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["epoch"] for r in rows] == [1, 2]
    assert "resumed from" in capsys.readouterr().out
    assert _best_epoch(run) == 2, "a new --select chooses afresh from the next epoch"
    whole = tmp_path / "one-sitting"  # two sittings give the run that one sitting gives
    main([common[0], "--out", str(whole), *common[3:], "--max-epochs", "2", "--select", "dev_strict_f1", "--quiet"])
    once = [json.loads(line) for line in (whole / "metrics.jsonl").read_text().splitlines()]
    assert _best_epoch(whole) == 1 + int(np.argmax([r["dev_strict_f1"] for r in once]))
    for key in ("train_loss", "dev_loss", "online_dev_loss", "dev_strict_f1", "dev_fairer_f1", "lr"):
        assert [r[key] for r in once] == [r[key] for r in rows], key  # the moving average resumes too
    improved = rows[1]["online_dev_loss"] < rows[0]["online_dev_loss"]  # the rate follows the online params
    assert rows[1]["lr"] == rows[0]["lr"] * (1 if improved else 0.5) == 1e-3 * (1 if improved else 0.5)
    assert (run / "learning_curve.png").stat().st_size > 0
    scored = tmp_path / "scored"
    main(["evaluate", str(run), "--out", str(scored)])
    result = json.loads((scored / "evaluation.json").read_text())
    assert not (run / "evaluation.json").exists()  # never into the run folder (it may be a committed model)
    assert set(result["test_sets"]) == {"RND", "BLK", "SHP"}
    out = capsys.readouterr().out
    assert "| EB (" in out and "Fairer micro F1 (%) per test set" in out and "copy last action" in out
    assert "another item's dialogue" in out and set(result["test_sets"]["RND"]) == {"items", *builder_evaluate.POLICIES}
    assert result["stop_bias"] == 0 and "stop_bias_tuning" not in result
    latest = tmp_path / "latest"  # the kept epoch is the latest: its params (the average) score the same
    main(["evaluate", str(run), "--out", str(latest), "--checkpoint", "latest"])
    at_latest = json.loads((latest / "evaluation.json").read_text())
    assert (result["checkpoint"], result["epoch"], at_latest["checkpoint"], at_latest["epoch"]) == ("best", 2, "latest", 2)
    assert at_latest["test_sets"] == result["test_sets"]
    committed = tmp_path / "committed"  # a committed model folder keeps best/ alone
    shutil.copytree(run, committed, ignore=shutil.ignore_patterns("checkpoints"))
    with pytest.raises(SystemExit, match="no checkpoints in .*committed/checkpoints: a committed model keeps best/ alone"):
        main(["evaluate", str(committed), "--out", str(tmp_path / "none"), "--checkpoint", "latest"])
    assert not (committed / "checkpoints").exists()
    tuned = tmp_path / "tuned"
    main(["evaluate", str(run), "--out", str(tuned), "--tune-stop-bias", "strict", "--synthetic-items", "4"])
    tuning = json.loads((tuned / "evaluation.json").read_text())["stop_bias_tuning"]
    dev_items = sum(len(builder_data.synthetic_items(name, "dev", 8)) for name in builder_evaluate.SIMULATOR_TEST_SETS)
    assert [r["bias"] for r in tuning["sweep"]] == list(builder_evaluate.STOP_BIASES) and tuning["items"] == dev_items
    best = max(r["strict"] for r in tuning["sweep"])
    assert tuning["value"] == min((r["bias"] for r in tuning["sweep"] if r["strict"] == best), key=abs)
    actions = [r["actions"] for r in tuning["sweep"]]
    assert actions == sorted(actions, reverse=True), "a lower bias, never fewer actions"
    assert f"STOP bias chosen by dev strict F1 ({dev_items} dev items)" in capsys.readouterr().out
    ensemble = tmp_path / "ensemble"
    per_run = ["--checkpoint", "latest", "best"]
    main(["evaluate", str(run), str(whole), "--out", str(ensemble), "--synthetic-items", "4", "--views", "2", *per_run])
    scores = json.loads((ensemble / "evaluation.json").read_text())
    assert scores["run"] == "run+one-sitting" and [m["run"] for m in scores["ensemble"]] == [str(run), str(whole)]
    assert [(m["checkpoint"], m["epoch"]) for m in scores["ensemble"]] == [("latest", 2), ("best", _best_epoch(whole))]
    assert "epoch" not in scores and "checkpoint" not in scores
    with pytest.raises(SystemExit):
        main(["evaluate", str(run), str(whole), "--checkpoint", "best", "best", "latest"])
    assert "--checkpoint takes one value for every run or one per run, not 3 for 2 runs" in capsys.readouterr().err
    assert scores["views"] == 2 and result["views"] == 1
    assert set(scores["test_sets"]) == {"RND", "BLK", "SHP"} and "config" not in scores
    with pytest.raises(SystemExit):
        main(["evaluate", str(run), str(run)])
    assert "a run is given twice" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["evaluate", str(run), "--split", "dev", "--tune-stop-bias", "strict"])
    assert "chooses the bias on the dev split" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["evaluate", str(run), "--stop-bias", "nan"])
    assert "--stop-bias must be a finite number, not nan" in capsys.readouterr().err
    tokens = np.arange(5)[:, None] * np.ones((5, 3), int)
    assert builder_evaluate.another_items_text({"tokens": tokens})["tokens"][:, 0].tolist() == [3, 4, 0, 1, 2]  # none its own
    with pytest.raises(SystemExit, match="curriculum key"):
        main(["train", "--out", str(tmp_path / "bad"), "--curriculum", "colour"])
    with pytest.raises(SystemExit, match="dev_corpus_strict_f1 scores the corpus's dev items: give --data"):
        main(["train", "--out", str(tmp_path / "bad"), "--select", "dev_corpus_strict_f1"])
    for command, flag in (
        (["train", "--out", str(tmp_path / "bad")], "--simulated-items"),
        (["evaluate", str(run)], "--synthetic-items"),
        (["evaluate", str(run)], "--views"),
    ):
        with pytest.raises(SystemExit):
            main([*command, flag, "0"])
        assert f"error: {flag} must be positive" in capsys.readouterr().err
    bad = _write(tmp_path / "bad.jsonl", [{"game_id": "g", "sample_id": 0, "context": "maybe"}])
    with pytest.raises(SystemExit, match="bad.jsonl, line 1, field 'context'"):
        main(["evaluate", str(run), "--data", str(tmp_path / "corpus"), "--annotations", str(bad), "--out", str(scored), "--overwrite"])
    with pytest.raises(SystemExit, match="error: .*splits.json"):
        main(["evaluate", str(run), "--data", str(tmp_path / "corpus"), "--out", str(scored), "--overwrite"])
    with pytest.raises(SystemExit, match="evaluation.json already exists"):
        main(["evaluate", str(run), "--out", str(scored)])
    assert json.loads((scored / "evaluation.json").read_text()) == result, "a failed evaluation keeps the saved one"


def test_corpus_copies_sets_the_corpus_augmentation_and_not_the_simulators(items):
    def count(corpus_copies, simulated):
        return len(builder_data.training_items(items, simulated, corpus_copies=corpus_copies))

    assert [count(c, {}) for c in (0, 3, 7)] == [len(items), 4 * len(items), 8 * len(items)]
    assert count(7, {"blocks": 8}) - count(7, {}) == count(3, {"blocks": 8}) - count(3, {})  # the simulators stay at 4x
    copies = builder_data.training_items(items, {}, corpus_copies=5)[len(items) :]
    assert len({i.structure_id.rsplit("_", 1)[1] for i in copies}) == 5
    for bad in (-1, True, 1.5):
        with pytest.raises(ValueError, match="corpus_copies must be an int >= 0"):
            TrainConfig(corpus_copies=bad).validate()


def test_vocabulary_keeps_one_id_per_word():
    vocabulary = Vocabulary(["red", "red", "blue"])
    assert vocabulary.words.count("red") == 1 and vocabulary.ids["blue"] == len(vocabulary) - 1
