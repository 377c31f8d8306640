"""Scale-out, verified: PPO on 1 and 4 (forced CPU) devices, and one run trained by two OS
processes of 2 devices each joined with ``jax.distributed`` over loopback, give the same
parameters and metrics."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # several processes, each compiling its own training program

ROOT = Path(__file__).resolve().parents[1]
TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}  # float reassociation of the sharded reductions


def _env(devices: int) -> dict:
    return dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}", JAX_PLATFORMS="cpu")


def test_one_and_four_devices_train_the_same_runs(tmp_path):
    """Every policy, CrafText and Hexagons; episodes end, reset and truncate on every device; env
    arrays sharded over the ``data`` mesh, parameters replicated. (Two devices per process: the
    two-process test below.)"""
    runs, reports = {}, {}
    for devices in (1, 4):
        out = tmp_path / f"devices-{devices}.npz"
        done = subprocess.run(
            [sys.executable, "tests/scale_worker.py", str(out)], env=_env(devices), cwd=ROOT, capture_output=True, text=True, timeout=900
        )
        assert done.returncode == 0, done.stderr[-3000:]
        reports[devices] = json.loads(done.stdout.strip().splitlines()[-1])
        runs[devices] = dict(np.load(out))
    for devices in (4,):
        assert reports[devices]["devices"] == devices
        for name, case in reports[devices]["cases"].items():
            assert case["env_state_specs"] == ["P('data',)"] and case["traj_spec"] == "P(None, 'data')", name
            assert case["params_replicated"], name
            assert len(case["ended_per_device"]) == devices and min(case["ended_per_device"]) > 0, name  # resets on every device
            assert case["episodes"] == reports[1]["cases"][name]["episodes"], name
        for key, value in runs[1].items():
            assert np.allclose(value, runs[devices][key], **TOLERANCE), (devices, key)


def test_coordinator_settings_need_distributed_and_each_other():
    from baselines.worlds.distributed import join, join_from_argv

    with pytest.raises(SystemExit, match="need --distributed"):
        join_from_argv(["--coordinator", "127.0.0.1:1234", "--num-processes", "2", "--process-id", "0"])
    with pytest.raises(SystemExit, match="go together"):
        join("127.0.0.1:1234", 2, None)
    join_from_argv(["--env", "Hexagons-Paint-v1"])  # not distributed: nothing to join


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


RUN = ["--env", "BlocksWorld-Build-v1", "--data-size", "16", "--eval-splits", "train", "--num-envs", "8", "--num-steps", "8"]
RUN += ["--total-timesteps", str(8 * 8 * 3), "--layer-size", "16", "--max-episode-steps", "24"]
RUN += ["--eval-episodes", "4", "--eval-batch", "16"]
RUN += ["--checkpoint-every", "2"]
"""Blocks-world building goals, whose F1 is above 0 even for an agent trained for 3 updates (so the
evaluations compared are not zeros); 64 evaluation episodes in chunks of 16, two for each process."""


def _processes(args: list[str], count: int) -> None:
    """One run trained by ``count`` processes of 2 CPU devices each on 127.0.0.1, all killed on failure."""
    port = _free_port()
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "baselines",
                *args,
                "--distributed",
                "--coordinator",
                f"127.0.0.1:{port}",
                "--num-processes",
                str(count),
                "--process-id",
                str(i),
            ],
            env=_env(2),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for i in range(count)
    ]
    try:
        logs = [p.communicate(timeout=600)[0] for p in procs]
    finally:
        for p in procs:
            p.kill()
    for i, (p, log) in enumerate(zip(procs, logs)):
        assert p.returncode == 0, f"process {i}:\n{log[-3000:]}"
    assert "4 devices (2 processes)" in logs[0]


def _params(checkpoint: Path) -> list[np.ndarray]:
    import jax
    import orbax.checkpoint as ocp

    checkpointer, path = ocp.StandardCheckpointer(), checkpoint.absolute() / "default"
    metadata = checkpointer.metadata(path)
    metadata = getattr(metadata, "item_metadata", metadata)
    here = jax.sharding.SingleDeviceSharding(jax.devices()[0])  # saved over 4 devices, read on this one
    target = jax.tree.map(lambda m: jax.ShapeDtypeStruct(m.shape, m.dtype, sharding=here), metadata)
    return [np.asarray(x) for x in jax.tree.leaves(checkpointer.restore(path, target)["params"])]


def test_two_processes_train_one_run_like_one_process(tmp_path):
    """Two processes x 2 devices = the 4-device mesh of one process: the same checkpoints, written
    once; metrics and evaluation written once, the evaluation's episodes dealt out and gathered; a
    resume restores the checkpoint on both."""
    single = tmp_path / "single"
    done = subprocess.run(
        [sys.executable, "-m", "baselines", *RUN, "--out", str(single)], env=_env(4), cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    multi = tmp_path / "multi"
    _processes([*RUN, "--out", str(multi)], 2)
    assert sorted(p.name for p in (multi / "checkpoints").iterdir()) == ["2", "3"]
    assert len((multi / "metrics.jsonl").read_text().splitlines()) == 3
    for a, b in zip(_params(single / "checkpoints" / "3"), _params(multi / "checkpoints" / "3")):
        assert np.allclose(a, b, **TOLERANCE)
    one, two = (json.loads((run / "evaluation.json").read_text())["splits"]["train"] for run in (single, multi))
    assert all(one[policy]["f1"] > 0 for policy in one)  # not a comparison of zeros
    for policy in one:
        assert one[policy]["episodes"] == two[policy]["episodes"] == 64
        assert (one[policy]["f1"], one[policy]["per_goal"]) == (two[policy]["f1"], two[policy]["per_goal"]), policy

    shutil.rmtree(multi / "checkpoints" / "3")  # killed after checkpoint 2: both processes restore it
    _processes(["--out", str(multi), "--resume"], 2)
    for a, b in zip(_params(single / "checkpoints" / "3"), _params(multi / "checkpoints" / "3")):
        assert np.allclose(a, b, **TOLERANCE)


STOPPABLE = ["--env", "Hexagons-Paint-v1", "--num-envs", "8", "--num-steps", "8", "--total-timesteps", str(8 * 8 * 2000)]
STOPPABLE += ["--layer-size", "16", "--max-episode-steps", "20", "--data-size", "16", "--checkpoint-every", "1", "--quiet"]
"""A run far longer than the test (2,000 updates), checkpointed after every update."""


def _stop_after_updates(procs: list, metrics: Path, signal: int, target: int, updates: int = 3) -> list[str]:
    """Wait until ``metrics`` has ``updates`` rows, send ``signal`` to process ``target`` only, and
    return every process's output (all killed if they do not end)."""
    import time

    try:
        deadline = time.monotonic() + 600
        while not (metrics.is_file() and len(metrics.read_text().splitlines()) >= updates):
            assert time.monotonic() < deadline and all(p.poll() is None for p in procs), [p.communicate()[0][-3000:] for p in procs]
            time.sleep(0.5)
        procs[target].send_signal(signal)
        return [p.communicate(timeout=300)[0] for p in procs]
    finally:
        for p in procs:
            p.kill()


def _last_update(run: Path) -> int:
    return int(json.loads(run.joinpath("metrics.jsonl").read_text().splitlines()[-1])["update"])


def test_sigint_stops_a_run_at_an_update_boundary_with_a_checkpoint(tmp_path):
    import signal

    run = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "baselines", *STOPPABLE, "--out", str(run)],
        env=_env(1),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    (log,) = _stop_after_updates([proc], run / "metrics.jsonl", signal.SIGINT, 0)
    assert proc.returncode == 1 and "SIGINT: stopped at update" in log and "Traceback" not in log, log[-3000:]
    steps = sorted(int(p.name) for p in (run / "checkpoints").iterdir() if p.name.isdigit())
    assert steps[-1] == _last_update(run) < 2000  # the last update logged is the one checkpointed, long before the budget


def test_sigterm_to_one_process_stops_every_process_at_the_same_boundary(tmp_path):
    """A pre-emption notice to one process of a two-process run: both stop after the same update,
    with one checkpoint of it, instead of training on."""
    import signal

    run, port = tmp_path / "run", _free_port()
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "baselines",
                *STOPPABLE,
                "--out",
                str(run),
                "--distributed",
                "--coordinator",
                f"127.0.0.1:{port}",
                "--num-processes",
                "2",
                "--process-id",
                str(i),
            ],
            env=_env(2),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for i in range(2)
    ]
    logs = _stop_after_updates(procs, run / "metrics.jsonl", signal.SIGTERM, 1)
    stops = [re.search(r"SIGTERM: stopped at update (\d+)/", log) for log in logs]
    assert all(p.returncode == 1 for p in procs) and all(stops), [log[-3000:] for log in logs]
    assert stops[0].group(1) == stops[1].group(1) == str(_last_update(run))
    assert str(_last_update(run)) in {p.name for p in (run / "checkpoints").iterdir()}
