"""PPO-T / PPO-T+ / FiLM: networks, GAE, training under one jit, seeds, checkpoints, CLI (sharding: test_scale_out.py)."""

import dataclasses
import json
import re
import shutil
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from baselines import evaluate, worlds
from baselines.configs import RENAMED_SETTINGS, NetworkConfig
from baselines.networks import POLICIES, count_parameters, make_network
from baselines.ppo import PPO, PPOConfig, Transition, _gae, config_from_dict, tables
from baselines.worlds import make_task
from hexagons.synthetic import generate

ROOT = Path(__file__).resolve().parent.parent
TINY = {"network": NetworkConfig(env_id="Hexagons-Paint-v1", layer_size=32), "num_envs": 8, "num_steps": 8, "total_timesteps": 8 * 8 * 2}
TINY |= {"num_minibatches": 2, "update_epochs": 2}


@pytest.fixture(scope="module")
def hex_task():
    return make_task("Hexagons-Paint-v1", generate(16, seed=0), max_instructions=8, max_tokens=24, max_steps_in_episode=20)


def _inputs(t, b, world_shape, actions, embed=16, mask=None):
    world = jnp.ones((t, b, *world_shape))
    text = jnp.linspace(-1, 1, t * b * embed).reshape(t, b, embed)
    mask = jnp.ones((t, b, actions), bool) if mask is None else mask
    return world, text, text, jnp.zeros((t, b), bool), mask


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("pixels", [False, True])
def test_networks_shapes_and_masking(policy, pixels):
    net = make_network(policy, 5, pixels, layer_size=32)
    world_shape = (63, 63, 3) if pixels else (40,)
    mask = jnp.ones((2, 3, 5), bool).at[..., 1].set(False)
    x = _inputs(2, 3, world_shape, 5, mask=mask)
    params = net.init(jax.random.key(0), net.initial_hidden(3), *x)
    hidden, pi, value = net.apply(params, net.initial_hidden(3), *x)
    assert hidden.shape == (3, 32) and value.shape == (2, 3) and pi.logits.shape == (2, 3, 5)
    assert np.allclose(np.asarray(pi.probs[..., 1]), 0.0)  # infeasible actions are never chosen
    assert count_parameters(params) > 0


def test_factored_heads_give_additive_logits_over_the_action_grid():
    """Hexagons' (row, column, colour) grid: a factor's logit differences do not depend on the
    other factors; STOP (past the grid) has its own logit; the head has sum(factors) + 1 outputs."""
    factors = (10, 18, 8)
    net = make_network("ppo-t", 1441, False, layer_size=32, action_factors=factors)
    x = _inputs(1, 2, (40,), 1441)
    params = net.init(jax.random.key(0), net.initial_hidden(2), *x)
    logits = np.asarray(net.apply(params, net.initial_hidden(2), *x)[1].logits[0], np.float64)
    grid = logits[:, :1440].reshape(2, *factors)
    for axis in range(3):
        moved = np.moveaxis(grid, axis + 1, -1)
        differences = moved - moved[..., :1]
        assert np.allclose(differences, differences[:, :1, :1], atol=1e-5)
        assert np.ptp(differences) > 1e-4  # not trivially constant
    assert {leaf.shape[-1] for leaf in jax.tree.leaves(params)} >= {10 + 18 + 8 + 1}
    with pytest.raises(ValueError, match="action_factors"):
        make_network("ppo-t", 100, False, action_factors=(11, 10))


def test_paper_scale_network_sizes():
    """PPO-T at layer 512 on Classic pixels with 768-d text is the official model's size class (2.92M)."""
    net = make_network("ppo-t", 17, True, 512)
    x = _inputs(1, 1, (63, 63, 3), 17, embed=768)
    params = jax.eval_shape(net.init, jax.random.key(0), net.initial_hidden(1), *x)
    assert 2.5e6 < count_parameters(params) < 3.5e6


def test_gru_restarts_where_reset():
    net = make_network("ppo-t", 4, False, layer_size=16)
    world, text, plan, reset, mask = _inputs(3, 2, (10,), 4)
    params = net.init(jax.random.key(0), net.initial_hidden(2), world, text, plan, reset, mask)
    busy = jnp.full((2, 16), 0.7)
    _, _, v_reset = net.apply(params, busy, world, text, plan, reset.at[0].set(True), mask)
    _, _, v_fresh = net.apply(params, net.initial_hidden(2), world, text, plan, reset, mask)
    _, _, v_busy = net.apply(params, busy, world, text, plan, reset, mask)
    assert np.allclose(v_reset, v_fresh) and not np.allclose(v_busy, v_fresh)


def test_film_starts_as_identity_and_depends_on_text():
    net = make_network("film", 4, False, layer_size=16)
    world, text, plan, reset, mask = _inputs(1, 2, (10,), 4)
    params = net.init(jax.random.key(0), net.initial_hidden(2), world, text, plan, reset, mask)
    film = params["params"]["WorldEncoder_0"]["FiLM_0"]
    assert all(np.all(np.asarray(film[n]["kernel"]) == 0) for n in ("gamma", "beta"))
    from baselines.networks import WorldEncoder

    flat = world.reshape(2, -1)
    e1, e2 = jnp.ones((2, 64)), -jnp.ones((2, 64))
    enc = WorldEncoder(pixels=False)
    p = enc.init(jax.random.key(1), flat, e1)
    assert np.allclose(enc.apply(p, flat, e1), enc.apply(p, flat, e2))  # zero gamma / beta: identity modulation
    p = jax.tree.map(lambda x: x + 0.1, p)  # after some learning the text modulates the world features
    assert not np.allclose(enc.apply(p, flat, e1), enc.apply(p, flat, e2))


def test_gae_by_hand():
    reward = jnp.asarray([[1.0], [0.0], [2.0]])
    value = jnp.asarray([[0.5], [0.2], [0.1]])
    ended = jnp.asarray([[False], [True], [False]])
    z = jnp.zeros((3, 1))
    traj = Transition(None, z, z, z, value, reward, ended, z, z, z, z, z)
    adv, ret = _gae(traj, jnp.asarray([0.3]), gamma=0.9, lam=0.5)
    d2 = 2.0 + 0.9 * 0.3 - 0.1
    d1 = 0.0 - 0.2  # episode ended: no bootstrap
    d0 = 1.0 + 0.9 * 0.2 - 0.5
    expect = [d0 + 0.45 * d1, d1, d2]
    assert np.allclose(np.asarray(adv[:, 0]), expect, atol=1e-6)
    assert np.allclose(np.asarray(ret), np.asarray(adv) + np.asarray(value))


def test_config_validation_names_the_field():
    with pytest.raises(ValueError, match="num_minibatches"):
        PPOConfig(num_envs=10, num_minibatches=4).validate()
    with pytest.raises(ValueError, match="gae_lambda"):
        PPOConfig(gae_lambda=1.5).validate()
    with pytest.raises(ValueError, match="bogus"):
        config_from_dict({"bogus": 1})
    with pytest.raises(ValueError, match="NetworkConfig.layer_size must be >= 1"):
        PPOConfig(network=NetworkConfig(layer_size=0)).validate()


def test_the_network_is_one_config_and_0_5_0_spellings_work_for_one_release():
    network = NetworkConfig(env_id="Hexagons-Paint-v1", layer_size=32)
    assert PPOConfig(network=network).network == network and "layer_size" not in dataclasses.asdict(PPOConfig(network=network))
    with pytest.warns(DeprecationWarning, match=r"PPOConfig\(env_id=..., layer_size=...\) is deprecated and goes in 0.7.0"):
        flat = PPOConfig(env_id="Hexagons-Paint-v1", layer_size=32, num_envs=8)
    assert flat == PPOConfig(network=network, num_envs=8) and dataclasses.replace(flat, num_envs=4).network == network
    saved = {**dataclasses.asdict(PPOConfig()), "env_id": "Hexagons-Paint-v1", "layer_size": 32}  # a 0.5.0 "ppo" section
    del saved["network"]
    assert config_from_dict(saved).network == dataclasses.replace(NetworkConfig(), env_id="Hexagons-Paint-v1", layer_size=32)
    assert network != dataclasses.replace(network, placed_channel=True)
    assert network.differences(dataclasses.replace(network, layer_size=64)) == {"layer_size": (32, 64)}


@pytest.fixture(scope="module")
def trained(hex_task):
    config = PPOConfig(**{**TINY, "network": NetworkConfig(env_id="Hexagons-Paint-v1", policy="film", layer_size=32)})
    ppo = PPO(config, hex_task, *tables(config.network, hex_task, cache_dir=None))
    train = jax.jit(ppo.train)
    # Block before the next dispatch: two training programs in flight at once can hang XLA:CPU here.
    return ppo, train, jax.block_until_ready(train(jax.random.key(0)))


def test_train_runs_under_one_jit_and_learns_something(trained):
    ppo, _, out = trained
    m = out["metrics"]
    assert m["update"].tolist() == [1, 2] and int(out["runner"].update) == 2
    assert all(np.isfinite(np.asarray(v)).all() for v in m.values())
    init = ppo.init(jax.random.key(0)).params
    changed = jax.tree.map(lambda a, b: bool(jnp.any(a != b)), init, out["runner"].params)
    assert any(jax.tree.leaves(changed))


def test_train_is_deterministic_and_vmaps_over_seeds(trained):
    ppo, train, out = trained
    again = jax.block_until_ready(train(jax.random.key(0)))
    assert all(jax.tree.leaves(jax.tree.map(lambda a, b: bool(jnp.all(a == b)), out["runner"].params, again["runner"].params)))
    keys = jax.random.split(jax.random.key(1), 4)
    seeds = jax.block_until_ready(jax.jit(jax.vmap(ppo.train))(keys))  # no batched QR: networks._orthogonal
    value_loss = np.asarray(seeds["metrics"]["value_loss"])
    assert value_loss.shape == (4, 2) and len({tuple(v) for v in value_loss.tolist()}) == 4
    alone = jax.block_until_ready(train(keys[2]))  # a seed of the batch trains as it does alone
    assert np.allclose(np.asarray(alone["metrics"]["value_loss"]), value_loss[2], rtol=1e-4, atol=1e-6)


@pytest.mark.slow
def test_imitation_of_the_expert_lowers_its_cross_entropy():
    """The auxiliary loss is the cross entropy of the world's expert action in the visited states:
    at the start it is about log(number of feasible actions); training on it brings it down (two
    single-tile procedures: a few tiles to learn), also alone (DAgger), where the expert plays the
    first update's every step and its share decays."""
    task = make_task(
        "Hexagons-Paint-v1",
        generate(2, seed=0, kinds=("tile",)),
        max_instructions=8,
        max_tokens=24,
        max_steps_in_episode=20,
        max_paints_per_instruction=1,
    )
    config = PPOConfig(**{**TINY, "total_timesteps": 8 * 8 * 24, "update_epochs": 4}, imitation_coef=1.0, lr=3e-3, anneal_lr=False)
    ppo = PPO(config, task, *tables(config.network, task, cache_dir=None))
    losses = np.asarray(jax.block_until_ready(jax.jit(ppo.train)(jax.random.key(0)))["metrics"]["imitation_loss"])
    assert losses[0] == pytest.approx(np.log(task.num_actions), rel=0.1)
    assert losses[-3:].mean() < 0.3 * losses[0]
    with pytest.raises(ValueError, match="imitation_coef=1.0 needs an expert"):
        PPO(config, dataclasses.replace(task, expert=None), *tables(config.network, task, cache_dir=None))
    dagger = dataclasses.replace(config, imitation_only=True, expert_play=1.0)  # the expert plays every step of update 0
    expert_led = PPO(dagger, task, *tables(config.network, task, cache_dir=None))
    metrics = jax.block_until_ready(jax.jit(expert_led.train)(jax.random.key(0)))["metrics"]
    success, losses = np.asarray(metrics["success_rate"]), np.asarray(metrics["imitation_loss"])
    assert success[0] == 1.0 and success[dagger.num_updates // 2 :].max() < 0.5  # beta decays to 0 at half of the updates
    assert losses[-3:].mean() < 0.5 * losses[0]
    refused = (({"imitation_only": True, "imitation_coef": 0.0}, "imitation_coef > 0"), ({"expert_play": 0.5}, "needs imitation_only"))
    for wrong, message in refused:
        with pytest.raises(ValueError, match=message):
            dataclasses.replace(config, **wrong).validate()


def test_every_unit_plays_worlds_of_its_own_and_the_policies_share_them():
    """At one episode per unit, no two units (goals; instructions under the paper protocol) of a
    split start in the same CrafText map, the three policies start in the same maps, and another
    split draws other maps."""
    from craftext import dataset

    task = make_task("CrafText-Classic-Symbolic-v1", dataset.load("easy", "train").pairs()[:8], max_steps_in_episode=8)
    units, _ = evaluate.evaluation_units(task, "instruction")
    texts, policies, keys = evaluate.episode_plan(units, evaluate.split_key(jax.random.key(0), "train"), episodes=1)
    start_maps = jax.jit(jax.vmap(lambda k, t: task.start(k, t, task.params)[1].world.map))
    maps = np.asarray(start_maps(keys, jnp.asarray(texts))).reshape(len(evaluate.CONTROLS), len(units), -1)
    assert len(units) > len(task.goals) and (policies.reshape(3, -1) == np.arange(3)[:, None]).all()
    assert (maps == maps[:1]).all()  # the policies play the same worlds
    assert len({m.tobytes() for m in maps[0]}) == len(units)  # every unit a world of its own
    _, _, other = evaluate.episode_plan(units, evaluate.split_key(jax.random.key(0), "test"), episodes=1)
    other_maps = np.asarray(start_maps(other, jnp.asarray(texts))).reshape(len(evaluate.CONTROLS), len(units), -1)
    assert not {m.tobytes() for m in other_maps[0]} & {m.tobytes() for m in maps[0]}
    two = jax.random.key_data(evaluate.world_keys(jax.random.key(0), len(units), 2)).reshape(len(units), 2, -1)
    assert (two[:, 0] == jax.random.key_data(evaluate.world_keys(jax.random.key(0), len(units), 1))).all()  # more episodes keep the first


def test_the_scripted_expert_plays_the_same_worlds_as_the_ceiling(trained, hex_task):
    """``--expert`` adds the world's expert to the three policies: it plays every episode's world
    to the end (exact match 1 on every goal, where random play scores 0), and the agent's summary
    does not change by its presence."""
    ppo, _, out = trained
    instructions, _ = tables(ppo.config.network, hex_task, cache_dir=None)
    evaluator = evaluate.Evaluator(hex_task, ppo.network, batch=64)
    run = lambda policies: evaluator.evaluate(  # noqa: E731
        out["runner"].params, hex_task, instructions, None, jax.random.key(0), episodes=2, max_steps=40, policies=policies
    )
    with_expert, controls = run((*evaluate.CONTROLS, "expert")), run(evaluate.CONTROLS)
    assert with_expert["expert"]["success"] == 1.0 and with_expert["random"]["success"] < 0.5
    assert with_expert["agent"]["success"] == controls["agent"]["success"]
    assert "| scripted expert |" in evaluate.table({"train": with_expert})


def test_three_policy_evaluation_blind_agent_has_no_gap_and_splits_share_a_compile(trained, hex_task):
    """An agent shown one embedding for every instruction acts the same whatever it is shown:
    agent == shuffled exactly (same worlds, same keys). Random ignores the tables. The second
    call, with other tables, reuses the compiled evaluator."""
    ppo, _, out = trained
    instructions, _ = tables(ppo.config.network, hex_task, cache_dir=None)
    blind = np.repeat(instructions[:1], len(instructions), 0)
    evaluator = evaluate.Evaluator(hex_task, ppo.network, batch=64)
    params = out["runner"].params
    run = lambda table: evaluator.evaluate(params, hex_task, table, None, jax.random.key(0), episodes=2, max_steps=20)  # noqa: E731
    deaf, seeing = run(blind), run(instructions)
    assert deaf["agent"].pop("gap_ci") == [0.0, 0.0]  # paired draws of identical episodes
    assert deaf["agent"] == deaf["shuffled"] and evaluate.gap(deaf) == 0.0
    assert deaf["random"] == seeing["random"]
    assert set(deaf["agent"]) >= {"success", "episodes", "goals", "action_f1", "per_goal"} and "exact_match" not in deaf["agent"]
    assert deaf["agent"]["episodes"] == 2 * len(hex_task.goals) and deaf["agent"]["goals"] == 16
    assert evaluator._run._cache_size() == 1


def test_plain_task_trains_the_same_ppo_on_a_world_without_instructions():
    """``plain_task`` (the training benchmark's reference worlds): gymnax's CartPole, one empty
    instruction, two PPO updates with finite losses and no success."""
    import gymnax

    from baselines.worlds.task import plain_task

    env, params = gymnax.make("CartPole-v1")
    task = plain_task("CartPole-v1", env, params)
    network = NetworkConfig(env_id="CartPole-v1", layer_size=16)
    config = PPOConfig(network=network, num_envs=4, num_steps=8, total_timesteps=64, num_minibatches=2, update_epochs=1)
    ppo = PPO(config, task, *tables(config.network, task, cache_dir=None))
    _, metrics = jax.jit(ppo.updates, static_argnums=1)(ppo.init(jax.random.key(0)), 2)
    assert metrics["env_steps"][-1] == 64 and np.isfinite(metrics["value_loss"]).all() and metrics["episodes"].sum() > 0
    assert not metrics["success_rate"].any()


def test_splits_share_one_chunk_size_and_padding_changes_no_number(trained, hex_task):
    """``chunk_size`` picks one batch for every split (the fewest padded episodes, e.g. 72 for the
    main job's 408 / 72 / 96 episodes), and a padded last chunk gives the numbers of one exact fit."""
    assert evaluate.chunk_size([408, 72, 96], 256) == 72
    assert evaluate.chunk_size([10], 256) == 10 and evaluate.chunk_size([600], 256) == 256
    assert evaluate.chunk_size([96, 96], 64) == 64
    ppo, _, out = trained
    instructions, _ = tables(ppo.config.network, hex_task, cache_dir=None)
    run = lambda batch: evaluate.Evaluator(hex_task, ppo.network, batch).evaluate(  # noqa: E731
        out["runner"].params, hex_task, instructions, None, jax.random.key(0), episodes=2, max_steps=20
    )
    assert run(3 * 2 * len(hex_task.goals)) == run(7)  # one chunk of every episode; 14 chunks, the last one padded


@pytest.mark.slow
def test_cli_checkpoints_resumes_exactly_and_guards_its_folder(tmp_path, capsys, monkeypatch):
    """3 updates, a checkpoint every 2: checkpoints 2 and 3 (the last chunk is capped, by the same
    compiled program). A kill after
    the first checkpoint (the later one deleted), a corrupt latest checkpoint, contradicting flags,
    a reused folder: each resumes to the same parameters or fails naming the cause."""
    monkeypatch.delenv("CI", raising=False)  # CI=true turns progress bars off; this test reads the bar
    out = tmp_path / "run"
    args = [
        "--env",
        "Hexagons-Paint-v1",
        "--num-envs",
        "8",
        "--num-steps",
        "8",
        "--total-timesteps",
        str(8 * 8 * 3),
        "--layer-size",
        "32",
        "--checkpoint-every",
        "2",
        "--max-episode-steps",
        "30",
        "--eval-episodes",
        "1",
        "--data-size",
        "16",
        "--out",
        str(out),
    ]
    from baselines.__main__ import main

    main(args)
    checkpoints = out / "checkpoints"
    assert sorted(p.name for p in checkpoints.iterdir() if p.name.isdigit()) == ["2", "3"]
    final = _saved_params(checkpoints / "3")
    splits = json.loads((out / "evaluation.json").read_text())["splits"]
    evaluation = splits["train"]
    assert set(splits) == {"train", "test"} and set(evaluation) == {"agent", "shuffled", "random"} and evaluation["random"]["episodes"] > 0
    assert splits["test"]["agent"]["goals"] == 4 and "action_f1" in splits["test"]["agent"]  # --data-size 16: a quarter for test
    for picture in ("learning_curve.png", "evaluation.png"):  # drawn beside the JSON
        assert (out / picture).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    def updates() -> list[int]:
        return [json.loads(line)["update"] for line in (out / "metrics.jsonl").read_text().splitlines()]

    assert updates() == [1, 2, 3]
    record = json.loads((out / "config.json").read_text())
    assert set(record) == {"kind", "world", "network", "ppo", "run", "evaluation", "command_line"}
    old_names = {new: old for old, new in RENAMED_SETTINGS.items()}  # --total-steps and --imitation of 0.5.0
    command = {old_names.get(k, k): v for k, v in (record["world"] | record["run"]).items()}
    released = {"kind": "ppo", "ppo": record["ppo"] | record["network"], "command": command}
    (out / "config.json").write_text(json.dumps(released | {k: record[k] for k in ("evaluation", "command_line")}))  # as 0.5.0 saved it
    shutil.rmtree(checkpoints / "3")  # killed after checkpoint 2, with update 3 already logged
    _as_released(checkpoints / "2")  # and checkpointed by 0.5.0, whose runner named its reset flags done
    main(["--out", str(out), "--resume"])
    assert all(np.array_equal(a, b) for a, b in zip(final, _saved_params(checkpoints / "3")))
    assert json.loads((out / "evaluation.json").read_text())["splits"] == splits  # evaluated again with the saved --eval-episodes 1
    shown = capsys.readouterr()
    assert updates() == [1, 2, 3] and "PPO: 100%" in shown.out + shown.err and " 3/3 " in shown.out + shown.err  # the progress bar
    assert shown.err.count("compiling 2 PPO updates") == 2 and "compiling 1 PPO" not in shown.err  # one program, short chunk too

    for file in (checkpoints / "3").rglob("*"):  # damage the latest checkpoint
        if file.is_file():
            file.write_bytes(b"not a checkpoint")
    main(["--out", str(out), "--resume", "--eval-episodes", "1"])
    assert "cannot be read" in capsys.readouterr().err and (out / "unreadable-checkpoints" / "3").exists()
    assert all(np.array_equal(a, b) for a, b in zip(final, _saved_params(checkpoints / "3")))

    with pytest.raises(SystemExit, match=r"--num-envs 16 \(the run has 8\)"):
        main(["--out", str(out), "--resume", "--num-envs", "16"])
    with pytest.raises(SystemExit, match=r"--total-timesteps 999 \(the run has 192\)"):  # 0.5.0's flag and saved name
        main(["--out", str(out), "--resume", "--total-steps", "999"])
    assert "--total-steps is deprecated and goes in 0.7.0; use --total-timesteps" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="already exists; continue it with --resume or replace it with --overwrite"):
        main(args)
    from baselines.configs import saved_run

    assert saved_run(out) | {"kind": "ppo"} == record  # the 0.5.0 folder read in this release's schema
    assert record["ppo"]["num_envs"] == 8 and record["run"]["checkpoint_every"] == 2 and record["network"]["layer_size"] == 32


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--resume"], "no run to continue"),
        (["--checkpoint-every", "0"], "--checkpoint-every must be >= 1"),
        (["--resume", "--overwrite"], "contradict"),
    ],
)
def test_cli_bad_flags_fail_before_training(tmp_path, argv, message):
    from baselines.__main__ import main

    with pytest.raises(SystemExit, match=message):
        main(argv + ["--out", str(tmp_path / "empty")])


def test_cli_resume_without_checkpoint_and_nan_lr(tmp_path, capsys):
    from baselines.__main__ import main

    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "config.json").write_text(
        json.dumps({"ppo": {"env_id": "Hexagons-Paint-v1"}, "command": {"env": "Hexagons-Paint-v1"}})
    )
    with pytest.raises(SystemExit, match="no checkpoint"):
        main(["--out", str(tmp_path / "run"), "--resume"])
    with pytest.raises(SystemExit):
        main(["--lr", "nan"])
    assert "--lr: must be a finite number > 0" in capsys.readouterr().err
    with pytest.raises(ValueError, match="PPOConfig.lr"):
        PPOConfig(lr=float("inf")).validate()


def test_cli_presets_are_defaults_that_flags_override(tmp_path):
    from baselines.__main__ import parser, settings
    from baselines.worlds.craftext import GROUNDING_GOALS

    quick = settings(parser().parse_args(["--out", str(tmp_path / "a")]))
    assert (quick.preset, quick.goals, quick.release, quick.total_timesteps, quick.max_episode_steps) == (
        "quick",
        GROUNDING_GOALS,
        "full",
        240_000,
        150,
    )
    mine = settings(parser().parse_args(["--preset", "grounding", "--total-timesteps", "1000", "--out", str(tmp_path / "b")]))
    assert (mine.total_timesteps, mine.goals, mine.eval_episodes) == (1000, GROUNDING_GOALS, 16)
    assert settings(parser().parse_args(["--preset", "level", "--out", str(tmp_path / "c")])).goals == ""


def test_cli_presets_of_0_5_0_names_work_for_one_release_and_unknown_settings_are_refused(tmp_path, monkeypatch):
    from baselines.__main__ import parser, settings

    presets = worlds.presets()
    old = presets["hexagons"] | {"total_steps": 1234, "imitation": 0.5}  # a world's preset as 0.5.0 named them
    monkeypatch.setattr(worlds, "presets", lambda: presets | {"hexagons": old})
    with pytest.warns(DeprecationWarning, match="preset hexagons's setting 'total_steps' is deprecated and goes in 0.7.0"):
        run = settings(parser().parse_args(["--preset", "hexagons", "--out", str(tmp_path / "a")]))
    assert (run.total_timesteps, run.imitation_coef) == (1234, 0.5)
    monkeypatch.setattr(worlds, "presets", lambda: presets | {"hexagons": presets["hexagons"] | {"total_step": 1}})
    with pytest.raises(SystemExit, match="preset hexagons sets total_step, not settings of python -m baselines"):
        settings(parser().parse_args(["--preset", "hexagons", "--out", str(tmp_path / "b")]))


def test_cli_refuses_a_misspelt_eval_split_before_anything_is_built(tmp_path):
    from baselines.__main__ import parser, settings

    with pytest.raises(SystemExit, match="--eval-splits 'test_paraphrase' is not a split of .*\\(did you mean 'test_paraphrased'\\?\\)"):
        settings(parser().parse_args(["--eval-splits", "train,test_paraphrase", "--out", str(tmp_path / "a")]))
    assert not (tmp_path / "a").exists()


def test_goal_filter_keeps_whole_keys_and_drops_minus_terms():
    from baselines.worlds import split_episodes
    from baselines.worlds.craftext import GROUNDING_GOALS, goal_terms

    plain_wood = "ACHIEVEMENTS(forbidden=None,ordered=False,required=collect_wood)"
    assert goal_terms(f"required=collect_wood), -{plain_wood},x") == ["required=collect_wood)", f"-{plain_wood}", "x"]
    spec = {"env": "CrafText-Classic-Symbolic-v1", "level": "easy", "release": "full", "goals": GROUNDING_GOALS}
    keys = {split: [g.key() for g, _ in split_episodes(spec, split)[0]] for split in ("train", "test_paraphrased")}
    assert len(keys["train"]) == 17 and plain_wood not in keys["train"] and len(keys["test_paraphrased"]) == 3
    assert sum("required=collect_wood)" in k for k in keys["train"]) == 4 and not any("eat_cow)" in k for k in keys["test_paraphrased"])


def test_cli_grid_world_presets_and_paper(tmp_path):
    from baselines.__main__ import parser, settings

    hexagons = settings(parser().parse_args(["--preset", "hexagons", "--out", str(tmp_path / "h")]))
    assert (hexagons.env, hexagons.data, hexagons.eval_splits, hexagons.max_episode_steps) == (
        "Hexagons-Paint-v1",
        "tiles",
        ["train", "test"],
        8,
    )
    paper = settings(parser().parse_args(["--paper", "--out", str(tmp_path / "p")]))
    assert (paper.env, paper.level, paper.max_episode_steps, paper.encoder, paper.eval_episodes, paper.checkpoint_every) == (
        "CrafText-Classic-Pixels-v1",
        "medium",
        10_000,
        "hashed-768",
        50,
        None,
    )
    assert paper.eval_splits == ["train", "test_paraphrased", "test_new_objects"]
    with pytest.raises(SystemExit, match=r"--data is not a setting of CrafText-Classic-Symbolic-v1 \(its world settings: [^)]*--level"):
        settings(parser().parse_args(["--data", "tiles", "--out", str(tmp_path / "c")]))
    with pytest.raises(SystemExit, match="--level is not a setting of Hexagons-Paint-v1"):
        settings(parser().parse_args(["--preset", "hexagons", "--level", "hard", "--out", str(tmp_path / "c")]))
    assert settings(parser().parse_args(["--env", "hexagons", "--out", str(tmp_path / "x")])).env == "Hexagons-Paint-v1"  # an alias
    no_expert = r"--imitation-coef needs a world with an expert \(--imitation-coef 0 .*\); the scripted expert .craftext.expert."
    with pytest.raises(SystemExit, match=no_expert):
        settings(parser().parse_args(["--imitation-coef", "1", "--preset", "level", "--level", "easy", "--out", str(tmp_path / "d")]))
    achievements = settings(parser().parse_args(["--level", "easy", "--goals", "ACHIEVEMENTS", "--out", str(tmp_path / "a")]))
    assert achievements.imitation_coef == 0.0  # the default preset's imitation is for its own goals
    plain = settings(parser().parse_args(["--imitation-coef", "0", "--out", str(tmp_path / "q")]))
    assert plain.imitation_coef == 0.0  # plain PPO on quick's goals
    with pytest.raises(SystemExit):
        parser().parse_args(["--imitation-coef", "-1"])
    assert hexagons.imitation_coef == 1.0
    assert settings(parser().parse_args(["--out", str(tmp_path / "e")])).imitation_coef == 1.0  # quick imitates
    assert settings(parser().parse_args(["--preset", "grounding", "--out", str(tmp_path / "g")])).imitation_coef == 0.0
    from baselines.__main__ import _config

    dagger = settings(parser().parse_args(["--imitation-only", "--expert-play", "0.3", "--out", str(tmp_path / "k")]))
    config = _config(dagger)
    assert (config.imitation_coef, config.imitation_only, config.expert_play) == (1.0, True, 0.3)  # quick's imitation, alone
    with pytest.raises(SystemExit):
        parser().parse_args(["--expert-play", "-0.5"])
    from baselines.worlds import cli

    kept = cli.prepare_out(tmp_path / "kept", kind="train")  # a training run's folder, which --overwrite may replace
    (kept / "config.json").write_text("{}")
    for wrong, message in ((["--imitation-coef", "0"], "imitation_coef > 0"), (["--expert-play", "2"], r"probability in \[0, 1\]")):
        with pytest.raises(SystemExit, match=message):  # refused before --overwrite deletes anything
            settings(parser().parse_args(["--imitation-only", *wrong, "--out", str(kept), "--overwrite"]))
        assert (kept / "config.json").is_file()


def test_world_splits_of_the_grid_worlds():
    from baselines.worlds import check_spec, split_episodes

    def world_split(env_id, data, split, size):
        return split_episodes({"env": env_id, "data": data, "data_size": size if split == "train" else 4 * size}, split)

    train, settings = world_split("Hexagons-Paint-v1", "tiles", "train", 6)
    test, _ = world_split("Hexagons-Paint-v1", "tiles", "test", 6)
    assert settings == {"max_paints_per_instruction": 1} and len(train) == 6 and len(test) == 6
    assert all(((p.boards[1:] != p.boards[:-1]).sum(1) <= 1).all() for p in train)
    assert not {t for p in train for t in p.texts} & {t for p in test for t in p.texts}  # test instructions are held out
    items, _ = world_split("BlocksWorld-BAP-v1", "explicit", "test", 5)
    assert len(items) == 5 and {i.split for i in items} == {"test"} and all(len(i.end) == 1 and not i.start for i in items)
    targets, _ = world_split("BlocksWorld-Build-v1", "blocks", "dev", 2)
    assert all(not t.start and len(t.end) > 3 for t in targets)
    with pytest.raises(ValueError, match="use one of synthetic, tiles"):
        world_split("Hexagons-Paint-v1", "tile", "train", 4)
    with pytest.raises(ValueError, match="--data is not a setting of CrafText-Classic-Symbolic-v1"):
        check_spec({"env": "CrafText-Classic-Symbolic-v1", "data": "tiles"}, ["data"])
    with pytest.raises(ValueError, match="split 'valid'"):
        world_split("Hexagons-Paint-v1", "tiles", "valid", 4)


def test_cli_default_folder_moves_on_instead_of_mixing_runs(tmp_path, monkeypatch):
    from baselines.__main__ import DEFAULT_OUT, parser, settings
    from baselines.worlds import cli

    monkeypatch.chdir(tmp_path)
    first = settings(parser().parse_args([])).out  # made and marked as a training run's folder
    (first / "config.json").write_text("{}")
    assert first == Path(DEFAULT_OUT) and settings(parser().parse_args([])).out == Path(DEFAULT_OUT + "-2")
    staged = settings(parser().parse_args(["--overwrite"])).out  # the new run goes beside the old one until it is complete
    assert cli.final_path(staged) == Path(DEFAULT_OUT) and (first / "config.json").exists() and not (staged / "config.json").exists()
    assert cli.finish_out(staged) == Path(DEFAULT_OUT) and not (first / "config.json").exists()


def test_overwrite_replaces_only_what_a_command_of_its_kind_made(tmp_path, monkeypatch):
    """``--overwrite`` never deletes a folder of runs, a run of another kind, a file, a symlink or
    the working directory; it names what it refused, and a folder that is not a run is not offered
    ``--resume``."""
    from baselines.__main__ import parser, settings
    from baselines.worlds import cli

    monkeypatch.chdir(tmp_path)
    train = lambda *flags: settings(parser().parse_args(list(flags)))  # noqa: E731
    runs = tmp_path / "runs"
    kept = train("--out", str(runs / "a")).out  # a training run's folder inside runs/
    (kept / "checkpoints").mkdir()
    bc_run = cli.prepare_out(tmp_path / "bc", kind="bc")
    (bc_run / "config.json").write_text("{}")
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "link").symlink_to(kept)
    refusals = {
        "runs": "--overwrite will not replace runs: it is not a folder a train command made (it holds a); choose another --out",
        str(bc_run): "holds a bc run, not a train one",
        "notes.txt": "it is a file, not a folder",
        "link": "it is a symbolic link",
        ".": "holds the working directory",
    }
    for out, message in refusals.items():
        with pytest.raises(SystemExit, match=re.escape(message)):
            train("--out", out, "--overwrite")
    with pytest.raises(SystemExit) as refused:
        train("--out", "runs")
    assert "--resume" not in str(refused.value) and "will not write into runs" in str(refused.value)
    assert (kept / "checkpoints").is_dir() and (tmp_path / "notes.txt").read_text() == "mine" and cli.out_kind(bc_run) == "bc"
    staged = train("--out", str(kept), "--overwrite").out  # its own kind: replaced once the new run is complete
    assert cli.final_path(staged) == kept and cli.finish_out(staged) == kept and not (kept / "checkpoints").exists()
    assert cli.out_kind(kept) == "train"


def test_write_atomic_leaves_the_previous_file_whole_when_killed(tmp_path):
    """A writer killed mid-write (SIGKILL) leaves the previous file as it was."""
    import signal
    import subprocess
    import sys
    import time

    target = tmp_path / "evaluation.json"
    target.write_text('{"success": 0.5}')
    stalled = "import os, time; os.fsync = lambda fd: time.sleep(60)"  # the new bytes written, not yet in place
    writer = subprocess.Popen(
        [sys.executable, "-c", f"{stalled}; from baselines.worlds import cli; cli.write_atomic({str(target)!r}, 'new')"]
    )
    while not list(tmp_path.glob(".evaluation.json.partial-*")) and writer.poll() is None:
        time.sleep(0.05)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    assert target.read_text() == '{"success": 0.5}'


def _as_released(step: Path) -> None:
    """Rewrite a PPO checkpoint step in the form of 0.5.0: the runner's ``reset`` saved as ``done``."""
    import orbax.checkpoint as ocp

    with ocp.StandardCheckpointer() as checkpointer:
        runner = checkpointer.restore(step.absolute() / "default")
        assert "reset" in runner and "done" not in runner
        runner["done"] = runner.pop("reset")
        shutil.rmtree(step / "default")
        checkpointer.save(step.absolute() / "default", runner)


def _saved_params(path: Path) -> list[np.ndarray]:
    import orbax.checkpoint as ocp

    restored = ocp.StandardCheckpointer().restore(path.absolute() / "default")
    return [np.asarray(x) for x in jax.tree.leaves(restored["params"])]


def test_summaries_and_table():
    class FakeTask:
        goals = (
            {"key": "a", "category": "Building", "level": "medium"},
            {"key": "b", "category": "Achievement", "level": "easy"},
            {"key": "c", "category": "Achievement", "level": "easy"},
        )
        metrics = ("success",)

    success = np.asarray([[1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]], float)
    s = evaluate.summarize(FakeTask, {"success": np.stack([success, np.ones_like(success)])})
    assert s["groups"]["Building"] == {"success": 0.5, "ci": [0.0, 1.0], "goals": 1}  # its 4 episodes resampled
    assert s["groups"]["Achievement"]["success"] == 0.125 and s["groups"]["Achievement"]["goals"] == 2 and s["unit"] == "goal"
    assert np.isclose(s["success"], (0.5 + 0.25) / 3) and s["per_goal"]["b"] == 0.25 and s["episodes"] == 12
    blind = dict(s, success=s["success"] - 0.1)
    md = evaluate.table(
        {"train": {"agent": s, "shuffled": blind}}, group_order=worlds.family_of("CrafText-Classic-Symbolic-v1").evaluation.group_order
    )
    low, high = s["success_ci"]
    assert 0 <= low < s["success"] < high <= 1
    a_low, a_high = s["groups"]["Achievement"]["ci"]
    assert f"| train | agent | 0.250 [{low:.3f}, {high:.3f}] | 0.50 [0.00, 1.00] (1) | 0.12 [{a_low:.2f}, {a_high:.2f}] (2) |" in md
    assert md.splitlines()[0].endswith("| goals x episodes |") and md.splitlines()[2].endswith("| 3 x 4 |")
    assert "| train | **agent - another instruction** | **+0.100** |" in md
    s["gap_ci"] = [0.05, 0.15]
    md = evaluate.table({"train": {"agent": s, "shuffled": blind}})
    assert "| train | **agent - another instruction** | **+0.100** [+0.050, +0.150] |" in md
    assert evaluate.texts_in(("put a", "put b", "put b", "", "put c", "put d"), {"put b", "put x"}) == 0.25  # distinct, non-empty
    md = evaluate.table({"test": {"agent": dict(s, texts_in_train=0.25), "shuffled": blind}})
    assert "| test (25% of texts in train) | agent | 0.250" in md and "| test (25% of texts in train) | shown another instruction |" in md


def test_bootstrap_intervals_cover_the_true_rate_and_narrow_with_episodes():
    """Goals of true success 0.3 and 0.6: the two-level bootstrap's 95% interval covers the true
    split rate in about 95% of evaluations; goals of equal success: 16x the episodes make it about
    4x narrower; certain outcomes give a zero-width interval; the draws are reproducible."""
    rng = np.random.default_rng(0)

    def interval(truth, episodes):
        value = (rng.random((len(truth), episodes)) < np.asarray(truth)[:, None]).astype(float)
        return evaluate.percentile_interval(evaluate.resampled_rates(value, np.ones_like(value), resamples=400))

    mixed = [0.3, 0.6] * 5
    covered = np.mean([low <= np.mean(mixed) <= high for low, high in (interval(mixed, 8) for _ in range(150))])
    assert 0.88 <= covered <= 1.0, covered
    widths = [np.mean([high - low for low, high in (interval([0.4] * 10, n) for _ in range(20))]) for n in (8, 128)]
    assert widths[1] < widths[0] / 2.5, widths
    ones = np.ones((4, 3))
    assert evaluate.percentile_interval(evaluate.resampled_rates(ones, ones)) == [1.0, 1.0]
    value = rng.random((5, 6))
    assert (evaluate.resampled_rates(value, np.ones_like(value)) == evaluate.resampled_rates(value, np.ones_like(value))).all()


def test_shuffled_texts_show_another_goal_of_the_same_rank():
    text_goal = np.asarray([0, 0, 0, 1, 1, 2, 3, 3, 3])
    shown = evaluate.shuffled_texts(text_goal, seed=3)
    assert (text_goal[shown] != text_goal).all()
    assert len(set(text_goal[shown][text_goal == 0])) == 1  # a goal's texts all show one other goal
    first = np.asarray([0, 3, 5, 6])
    assert (shown[first] == first[text_goal[shown[first]]]).all()  # rank 0 shows rank 0
    assert (evaluate.shuffled_texts(np.zeros(3, int)) == np.arange(3)).all()


@pytest.mark.slow
def test_craftext_cli_trains_and_prints_the_table(tmp_path, capsys):
    """The README's main job at toy size: CrafText training, then agent vs random on a test split."""
    from baselines.__main__ import main

    main(
        [
            "--total-timesteps",
            str(16 * 8),
            "--num-envs",
            "16",
            "--num-steps",
            "8",
            "--layer-size",
            "32",
            "--max-episode-steps",
            "20",
            "--eval-episodes",
            "2",
            "--eval-splits",
            "test_new_objects",
            "--policy",
            "ppo-t+",
            "--preset",
            "level",
            "--level",
            "easy",
            "--out",
            str(tmp_path),
        ]
    )
    out = capsys.readouterr().out
    held_out = "| test_new_objects (0% of texts in train) |"  # no test instruction is a training one
    assert f"{held_out} agent (ppo-t+, retrieval plans, sample) |" in out and f"{held_out} uniform random |" in out
    results = json.loads((tmp_path / "evaluation.json").read_text())["splits"]["test_new_objects"]
    assert 0.0 <= results["random"]["success"] <= 1.0 and results["random"]["goals"] == 10

    from baselines.evaluate import main as evaluate

    evaluate([str(tmp_path), "--out", str(tmp_path / "suite")])  # from the checkpoint, the run's own settings
    assert json.loads((tmp_path / "suite" / "evaluation.json").read_text())["splits"]["test_new_objects"] == results
    paper_args = ["--protocol", "paper", "--episodes", "1", "--max-steps", "20", "--batch", "60"]  # the shapes compiled above
    evaluate([str(tmp_path), *paper_args, "--out", str(tmp_path / "paper")])
    paper = json.loads((tmp_path / "paper" / "evaluation.json").read_text())
    agent = paper["splits"]["test_new_objects"]["agent"]
    assert paper["meta"]["protocol"] == "paper" and agent["unit"] == "instruction" and agent["goals"] > 10  # every phrasing a unit
    assert all(" | " in key for key in agent["per_goal"]) and "instructions x episodes" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="already exists"):
        evaluate([str(tmp_path), "--out", str(tmp_path / "suite")])
    with pytest.raises(SystemExit, match="--splits 'test_new_object' is not a split of .*did you mean 'test_new_objects'"):
        evaluate([str(tmp_path), "--splits", "test_new_object", "--out", str(tmp_path / "misspelt")])

    from baselines.export import main as export
    from baselines.worlds.checkpoints import saved_params

    trained, _ = saved_params(tmp_path)
    for dtype in ("float32", "float16"):  # the run's final parameters as a small folder
        export([str(tmp_path), "--dtype", dtype, "--out", str(tmp_path / dtype)])
        exported, source = saved_params(tmp_path / dtype)
        record = json.loads((tmp_path / dtype / "config.json").read_text())["export"]
        assert source == "params" and record["params"].startswith("checkpoints/") and record["dtype"] == dtype
        pairs = zip(jax.tree.leaves(exported), jax.tree.leaves(trained))
        assert all(e.dtype == dtype and np.array_equal(e, t.astype(dtype)) for e, t in pairs)
    paper16 = tmp_path / "paper16"
    evaluate([str(tmp_path / "float16"), *paper_args, "--splits", "test_new_objects", "--out", str(paper16)])  # read as float32
    assert json.loads((paper16 / "evaluation.json").read_text())["splits"]["test_new_objects"]["agent"]["goals"] == agent["goals"]
    with pytest.raises(SystemExit, match="already exists"):
        export([str(tmp_path), "--out", str(tmp_path / "float16")])
    v2 = tmp_path / "v2"  # the same agent on data version v2's splits
    evaluate([str(tmp_path), *paper_args, "--splits", "test_new_objects", "--world", "data_version=v2", "--out", str(v2)])
    assert json.loads((v2 / "evaluation.json").read_text())["meta"]["data_version"] == "v2"
    for world, message in (("level=impossible", "level is one of easy, medium, hard"), ("data=tiles", "--data is not a setting")):
        with pytest.raises(SystemExit, match=message):
            evaluate([str(tmp_path), "--world", world, "--out", str(tmp_path / "refused")])


def test_split_lists_are_saved_as_lists_and_read_from_older_strings():
    from baselines.__main__ import split_names

    assert split_names("train,test_paraphrased") == ["train", "test_paraphrased"]  # a flag, a preset, a run saved before
    assert split_names(["train"]) == ["train"] and split_names("") == []
