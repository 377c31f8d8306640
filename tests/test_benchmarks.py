"""The benchmark code runs (quick mode); no speed is asserted here."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import hexagons
from benchmarks.__main__ import main
from benchmarks.worlds import bench_worlds


@pytest.mark.slow
def test_quick_benchmark_writes_results(tmp_path):
    rows = main(["--quick", "--out", str(tmp_path)])
    assert {r["world"] for r in rows} == {w for w, spec in bench_worlds().items() if spec.settings.quick}
    assert {r["world"] for r in rows} == {"Hexagons-Paint-v1", "BlocksWorld-BAP-v1", "BlocksWorld-Build-v1"}
    assert all(r["steps_per_s_median"] > 0 and r["compile_s"] > 0 for r in rows)
    saved = json.loads((tmp_path / "env_sps.json").read_text())
    assert saved["device"]["jax"] and len(saved["results"]) == len(rows)
    assert {"suite", "commit", "date", "device"} <= set(saved["device"])  # every figure says what measured it
    for name in ("env_sps.csv", "env_sps.md", "env_sps.png", "training_sps.md"):
        assert (tmp_path / name).stat().st_size > 0
    training = json.loads((tmp_path / "training_sps.json").read_text())["results"]
    assert [r["policy"] for r in training] == ["ppo-t"]
    assert training[0]["train_steps_per_s"] > 0 and 0 < training[0]["env_share"] <= 1
    with pytest.raises(SystemExit, match="env_sps.json already exists"):  # nothing is overwritten unasked
        main(["--quick", "--out", str(tmp_path), "--env", "Hexagons-Paint-v1"])


def test_bap_scoring_time_runs_on_synthetic_items():
    from benchmarks.metrics_time import bap_scoring_time

    result = bap_scoring_time(None, repeats=1)
    assert result["items"] == 1331 and result["median_s"] > 0


def test_synthetic_generation_rate_covers_every_simulator():
    from benchmarks.metrics_time import synthetic_generation_rate

    rows = synthetic_generation_rate(games=5, repeats=1)
    assert [r["simulator"] for r in rows] == ["random", "blocks", "shapes", "explicit"]
    assert all(r["items"] >= 5 and r["items_per_min_median"] > 0 for r in rows)


def test_optimistic_reset_measurement_path():
    import hexagons
    from benchmarks.env_sps import measure_env
    from craftext.env import BareCraftax  # noqa: F401  (importable without running Craftax)

    env, params = hexagons.make("Hexagons-Paint-v1")
    result = measure_env(env, params, num_envs=32, num_steps=4, repeats=1, reset_ratio=16)
    assert result["reset"] == "optimistic/16" and result["steps_per_s_median"] > 0


def test_import_times_are_measured_in_fresh_processes(tmp_path):
    from benchmarks.imports import plot, wall_time

    result = wall_time(["-c", "import hexagons.data"], repeats=1)
    assert 0 < result["min_s"] <= result["median_s"] <= result["max_s"]
    with pytest.raises(RuntimeError, match="failed"):
        wall_time(["-c", "import no_such_module"], repeats=1)
    picture = plot(
        {"target_s": 2.0, "repeats": 1, "results": [{"what": "import hexagons.data", **result}]},
        {"device": "cpu", "host_cpus": 2},
        tmp_path,
    )
    assert picture.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.slow
def test_builder_encoder_benchmark_times_both_encoders(tmp_path):
    from benchmarks.builder_encoders import main as builder_main

    result = builder_main(["--quick", "--out", str(tmp_path), "--quiet"])
    assert [r["encoder"] for r in result["results"]] == ["cnn", "set"]
    for row in result["results"]:
        assert row["params"] > 0 and row["train_2_steps"]["boards_per_s"] > 0 and row["decode"]["items_per_s"] > 0
    assert json.loads((tmp_path / "builder_encoders.json").read_text())["steps"] == [2]
    assert (tmp_path / "builder_encoders.png").read_bytes()[:4] == b"\x89PNG"


def _results(folder, device: str, env_sps: dict[tuple[str, int], float], suite: str) -> None:
    folder.mkdir()
    rows = [{"world": w, "num_envs": n, "steps_per_s_median": v} for (w, n), v in env_sps.items()]
    (folder / "env_sps.json").write_text(json.dumps({"device": {"device": device, "suite": suite, "jax": "0.10.2"}, "results": rows}))


def test_compare_prints_ratios_and_flags_drops(tmp_path, capsys):
    _results(tmp_path / "old", "cpu:cpu", {("BlocksWorld-Build-v1", 1024): 3.0e6, ("Hexagons-Paint-v1", 1024): 6.0e6}, "0.5.0")
    _results(tmp_path / "new", "cpu:cpu", {("BlocksWorld-Build-v1", 1024): 2.4e6, ("Hexagons-Paint-v1", 1024): 6.3e6}, "0.6.0")
    assert main(["compare", str(tmp_path / "old"), str(tmp_path / "new")]) == 1  # a drop: the exit status says so
    out = capsys.readouterr().out
    assert "| env_sps BlocksWorld-Build-v1 1024 | 3,000,000 | 2,400,000 | 0.80 | **drop > 15%** |" in out
    assert "| env_sps Hexagons-Paint-v1 1024 | 6,000,000 | 6,300,000 | 1.05 |  |" in out and "suite 0.6.0" in out
    assert main(["compare", str(tmp_path / "old"), str(tmp_path / "new"), "--tolerance", "0.25"]) == 0
    training = [{"world": "Hexagons-Paint-v1", "policy": "ppo-t", "num_envs": 64, "train_steps_per_s": v} for v in (1e4, 1e4)]
    for folder, row in zip(("old", "new"), training):
        (tmp_path / folder / "training_sps.json").write_text(json.dumps({"device": {"device": "cpu:cpu"}, "results": [row]}))
    main(["compare", str(tmp_path / "old"), str(tmp_path / "new")])
    assert "| training_sps Hexagons-Paint-v1 ppo-t 64 | 10,000 | 10,000 | 1.00 |  |" in capsys.readouterr().out
    _results(tmp_path / "gpu", "gpu:NVIDIA H100", {("Hexagons-Paint-v1", 1024): 6.0e8}, "0.6.0")
    with pytest.raises(SystemExit, match="compare one kind of machine"):
        main(["compare", str(tmp_path / "old"), str(tmp_path / "gpu")])
    with pytest.raises(SystemExit, match="env_sps.json: no such file"):
        main(["compare", str(tmp_path / "old"), str(tmp_path)])


def test_gpu_projection_from_the_compiled_step(tmp_path):
    from baselines.roofline import GPUS, projection_line
    from benchmarks.projection import main as projection

    (row,) = projection(["--env", "Hexagons-Paint-v1", "--num-envs-list", "8", "--out", str(tmp_path), "--quiet"])
    assert row["flops"] > 0 and row["bytes"] > 0 and set(row["gpus"]) == set(GPUS)
    bandwidth = GPUS["V100 16GB"]["bandwidth"]
    assert row["gpus"]["V100 16GB"]["steps_per_s"] <= bandwidth / row["bytes"]  # never above the memory bound
    assert "roofline-bound steps/s, not measurements" in (tmp_path / "projection.md").read_text()
    with pytest.raises(SystemExit, match="projection.json already exists"):
        projection(["--env", "Hexagons-Paint-v1", "--num-envs-list", "8", "--out", str(tmp_path)])
    spec = bench_worlds()["Hexagons-Paint-v1"]
    line = projection_line(*spec.make(), 8, spec.settings.reset_ratio)  # what python -m baselines --paper prints
    assert line.startswith("projection, not a measurement") and f"{row['gpus']['V100 16GB']['steps_per_s']:,.0f}" in line


def test_device_check_writes_a_comparable_result(tmp_path):
    """``python -m benchmarks.device --quick``: env figures, the paper's run at toy size (its plan
    beside 3 measured updates), written as device.json in the benchmarks' format, which compare
    reads; a part that would start past the budget is named, not run."""
    from benchmarks import compare
    from benchmarks.device import main as device

    record = device(["--quick", "--env", "Hexagons-Paint-v1", "--out", str(tmp_path / "a"), "--quiet"])
    saved = json.loads((tmp_path / "a" / "device.json").read_text())
    assert {"suite", "commit", "jax", "device", "date"} <= set(saved["device"]) and saved == json.loads(json.dumps(record))
    (row,) = saved["results"]
    assert (row["world"], row["num_envs"]) == ("Hexagons-Paint-v1", 8) and row["steps_per_s_median"] > 0
    paper = saved["paper"]
    assert paper["command"].startswith("python -m baselines --paper") and paper["steps_per_s"] > 0 and paper["finite"]
    assert paper["plan_device_memory_bytes"] > 0 and set(paper["plan_gpus"]) == {
        "V100 16GB",
        "V100 32GB",
        "A100 40GB",
        "A100 80GB",
        "H100 80GB",
    }
    assert paper["peak_memory_bytes"] is None  # a CPU does not report it
    assert "Hexagons-Paint-v1 8" in compare.compare(tmp_path / "a", tmp_path / "a")[0]
    late = device(["--quick", "--env", "Hexagons-Paint-v1", "--budget", "0", "--out", str(tmp_path / "b"), "--quiet"])
    assert late["results"] == [] and late["paper"] is None and late["skipped"] == ["Hexagons-Paint-v1 at 8 worlds", "the paper's run"]


def test_fits_table_names_the_gpus_an_update_fits(tmp_path):
    from benchmarks.fits import main as fits

    (row,) = fits(["--env", "Hexagons-Paint-v1", "--policies", "ppo-t", "--out", str(tmp_path), "--quiet"])
    assert row["micro_batches"] == 16 and 0 < row["device_memory_bytes"] < 12 * 2**30
    assert (
        "| Hexagons-Paint-v1 | ppo-t |" in (tmp_path / "fits.md").read_text()
        and "| yes | yes | yes | yes |" in (tmp_path / "fits.md").read_text()
    )


def test_profile_splits_the_step_into_observation_resets_and_state(tmp_path, capsys):
    from benchmarks.profile import PARTS
    from benchmarks.profile import main as profile

    argv = ["--env", "Hexagons-Paint-v1", "--num-envs", "8", "--repeats", "1", "--out", str(tmp_path), "--quiet"]
    (row,) = profile(argv)
    assert set(row["steps_per_s"]) == {"step", "no_observation", "state_only", "copy_floor"} and min(row["steps_per_s"].values()) > 0
    assert set(row["shares"]) == set(PARTS) and abs(sum(row["shares"].values()) - 1) < 1e-9 and row["bound"] in PARTS
    assert row["bytes_per_world"]["observation"] == 180 + 128 * 4 + 2 * 4  # board int8, instruction int32 tokens, two indices
    assert "| Hexagons-Paint-v1 | 8 |" in (tmp_path / "profile.md").read_text() and "suite" in (tmp_path / "profile.json").read_text()
    with pytest.raises(SystemExit, match="profile.json already exists"):
        profile(argv)
    with pytest.raises(SystemExit):
        profile(["--repeats", "0", "--out", str(tmp_path / "other")])
    assert "--repeats: must be at least 1, got 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        profile(["--env", "Hexagon-Paint-v1", "--out", str(tmp_path / "other")])
    assert "unknown world 'Hexagon-Paint-v1'; close: ['Hexagons-Paint-v1']" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("git") is None, reason="needs the git command")
def test_history_measures_each_release_tree_with_one_probe(tmp_path, capsys):
    from benchmarks.history import main as history

    repo = tmp_path / "repo"
    shutil.copytree(Path(hexagons.__file__).parent, repo / "hexagons", ignore=shutil.ignore_patterns("__pycache__"))
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "old"], check=True)
    argv = ["--repo", str(repo), "--release", "old=HEAD", "--env", "Hexagons-Paint-v1", "--num-envs", "8", "--repeats", "1", "--quiet"]
    old, new = history([*argv, "--out", str(tmp_path / "out")])
    assert old["release"] == "old" and old["results"]["Hexagons-Paint-v1"]["steps_per_s_median"] > 0
    assert new["commit"] != "HEAD" and new["results"]["Hexagons-Paint-v1"]["steps_per_s_median"] > 0
    assert "| Hexagons-Paint-v1 |" in (tmp_path / "out" / "history.md").read_text()
    assert (tmp_path / "out" / "history.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(SystemExit, match="cannot read commit nosuch"):
        history(["--repo", str(repo), "--release", "x=nosuch", "--quiet", "--out", str(tmp_path / "other")])
    with pytest.raises(SystemExit):
        history(["--release", "0.1.0", "--quiet", "--out", str(tmp_path / "other")])
    assert "use NAME=COMMIT" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        history(["--env", "Nope-v1", "--quiet", "--out", str(tmp_path / "other")])
    assert "unknown env id 'Nope-v1'" in capsys.readouterr().err
