"""The output policy (``baselines.worlds.cli``): ``--overwrite`` replaces only what the same
command wrote, the new result is written beside the old one and swapped in, and a kill at any
moment of an overwrite leaves the old result or the new one whole."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from baselines.worlds import cli


def _dead_pid() -> int:
    """The process id of a process that has ended."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    return int(done.stdout)


def _run(tmp_path: Path, kind: str, files: dict[str, str], overwrite: bool = False) -> Path:
    """A command of ``kind`` writing ``files`` into ``tmp_path / "out"``, as the commands do."""
    out = cli.prepare_out(tmp_path / "out", kind=kind, overwrite=overwrite)
    for name, text in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        cli.write_atomic(out / name, text)
    return out


def whole(folder: Path) -> dict[str, str]:
    """The files of a finished folder, checked whole: its mark lists exactly what it holds and
    every JSON file parses; {name: text}."""
    listed = json.loads((folder / cli.OUT_MARK).read_text())["files"]
    held = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and p.name != cli.OUT_MARK)
    assert listed == held, (listed, held)
    for name in held:
        if name.endswith(".json"):
            json.loads((folder / name).read_text())
    return {name: (folder / name).read_bytes().hex()[:64] for name in held}


def test_overwrite_replaces_only_the_files_its_command_wrote(tmp_path):
    first = _run(tmp_path, "episodes record", {"a.json": "{}", "sub/b.json": "[]"})
    assert cli.finish_out(first) == first and whole(first)
    (first / "human-0001.npz").write_bytes(b"added by play")  # another command's file
    with pytest.raises(SystemExit, match=r"--overwrite will not replace .*out: it holds human-0001.npz, which a episodes record"):
        cli.prepare_out(first, kind="episodes record", overwrite=True)
    (first / "human-0001.npz").unlink()
    nested = cli.prepare_out(first / "runs" / "a", kind="train")  # a run nested in it
    cli.write_atomic(nested / "config.json", "{}")
    with pytest.raises(SystemExit, match=r"it holds a train run \(runs/a\)"):
        cli.prepare_out(first, kind="episodes record", overwrite=True)
    assert (nested / "config.json").read_text() == "{}" and (first / "a.json").is_file()


def test_an_overwrite_is_written_beside_the_old_result_and_swapped_in(tmp_path):
    old = _run(tmp_path, "arena ratings", {"ratings.json": '{"old": 1}'})
    cli.finish_out(old)
    new = _run(tmp_path, "arena ratings", {"ratings.json": '{"new": 1}'}, overwrite=True)
    assert new != old and new.parent == old.parent and new.name.startswith(".out.partial-")
    assert json.loads((old / "ratings.json").read_text()) == {"old": 1}  # untouched until the new one is complete
    assert cli.final_path(new) == old
    assert cli.finish_out(new) == old and not new.exists()
    assert json.loads((old / "ratings.json").read_text()) == {"new": 1} and whole(old)


def test_leftovers_of_killed_writers_are_cleaned_up(tmp_path):
    dead = _dead_pid()
    out = _run(tmp_path, "export", {"config.json": '{"old": 1}'})
    cli.finish_out(out)
    (tmp_path / f".out.partial-{dead}").mkdir()  # an overwrite killed before it was complete
    (tmp_path / f".out.partial-{dead}" / "config.json").write_text('{"new": 1}')
    (out / f".config.json.partial-{dead}").write_text("half")  # a file write killed midway
    live = tmp_path / f".other.partial-{os.getpid()}"  # a writer still at work
    live.write_text("busy")
    assert cli.clean_leftovers(tmp_path) == [f".out.partial-{dead}"] and live.exists()
    assert cli.prepare_out(out, kind="export", resume=True) == out and not (out / f".config.json.partial-{dead}").exists()
    assert json.loads((out / "config.json").read_text()) == {"old": 1}

    # an overwrite killed between the two renames of a system without an atomic swap
    finished = tmp_path / f".out.partial-{dead}"
    finished.mkdir()
    cli.write_atomic(finished / "config.json", '{"new": 2}')
    cli.write_atomic(finished / cli.OUT_MARK, json.dumps({"kind": "export", "files": ["config.json"]}))
    os.replace(out, tmp_path / f".out.previous-{dead}")
    cli.clean_leftovers(tmp_path)
    assert json.loads((out / "config.json").read_text()) == {"new": 2} and sorted(p.name for p in tmp_path.iterdir()) == [
        live.name,
        "out",
    ]


def test_a_file_output_replaces_only_a_file_of_its_own_kind(tmp_path):
    own = cli.reads_as(("task", "field"))
    scores = tmp_path / "scores.json"
    scores.write_text('{"task": "diff", "field": "graph_diff", "f1": 0.5}')
    assert cli.prepare_out(scores, kind="textworld score", overwrite=True, file=True, own=own) == scores
    (tmp_path / "config.json").write_text('{"kind": "ppo"}')  # a run's file
    (tmp_path / "arena.sqlite").write_bytes(b"SQLite format 3\x00")
    for other in ("config.json", "arena.sqlite"):
        with pytest.raises(SystemExit, match=rf"will not replace .*{other}: it is not a file a textworld score command wrote"):
            cli.prepare_out(tmp_path / other, kind="textworld score", overwrite=True, file=True, own=own)
    assert (tmp_path / "config.json").read_text() == '{"kind": "ppo"}'


def test_arena_export_never_replaces_the_database_or_a_runs_file(tmp_path):
    from baselines.arena.__main__ import main as arena

    db = tmp_path / "arena.sqlite"
    arena(["add-rater", "alice", "--db", str(db)])
    for target in (db, _run(tmp_path, "train", {"config.json": '{"kind": "ppo"}'}) / "config.json"):
        before = target.read_bytes()
        with pytest.raises(SystemExit, match="it is not a file a arena export command wrote"):
            arena(["export", "--db", str(db), "--out", str(target), "--overwrite"])
        assert target.read_bytes() == before
    arena(["export", "--db", str(db), "--out", str(tmp_path / "judgements.json")])
    arena(["export", "--db", str(db), "--out", str(tmp_path / "judgements.json"), "--overwrite"])  # its own file
    arena(["export", "--db", str(db), "--out", str(tmp_path / "judgements.csv")])
    arena(["export", "--db", str(db), "--out", str(tmp_path / "judgements.csv"), "--overwrite"])


def killed_overwrites(argv: list[str], out: Path, points: int) -> list[str]:
    """Run ``python -m ARGV --overwrite`` (its ``--out`` is ``out``, holding an earlier result)
    ``points`` times, killed with SIGKILL once its new folder holds 0, 1, ... files (or when it
    ends, if it ends first); after each kill ``out`` holds the old result or the new one, whole.
    Then one run that is not killed: its result is whole and no leftover remains. Returns what
    each kill interrupted."""
    seen = []
    for point in range(points):
        command = subprocess.Popen([sys.executable, "-m", *argv, "--overwrite"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        staged = None
        while command.poll() is None:
            staged = staged or next(out.parent.glob(f".{out.name}.partial-{command.pid}"), None)
            if staged is not None and (not staged.exists() or sum(1 for p in staged.rglob("*") if p.is_file()) > point):
                break
            time.sleep(0.005)
        command.send_signal(signal.SIGKILL)
        command.wait()
        seen.append("finished" if command.returncode == 0 else "staged" if staged else "before staging")
        whole(out)
    subprocess.run([sys.executable, "-m", *argv, "--overwrite"], check=True, capture_output=True)
    whole(out)
    assert not [p.name for p in out.parent.iterdir() if ".partial-" in p.name or ".previous-" in p.name]
    return seen


def _basalt_db(tmp_path: Path) -> Path:
    from tests.test_arena import _basalt_record

    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([_basalt_record("FindCave", "A", "B", 1, "p1", f"W{i}", 1_670_000_000_000 + i) for i in range(4)]))
    db = tmp_path / "a.sqlite"
    subprocess.run(
        [sys.executable, "-m", "baselines.arena", "import-basalt", str(answers), "--db", str(db)], check=True, capture_output=True
    )
    return db


def test_a_killed_ratings_overwrite_leaves_a_whole_result(tmp_path):
    db = _basalt_db(tmp_path)
    argv = ["baselines.arena", "ratings", "--db", str(db), "--bootstrap", "10", "--out", str(tmp_path / "ratings")]
    subprocess.run([sys.executable, "-m", *argv], check=True, capture_output=True)
    assert "staged" in killed_overwrites(argv, tmp_path / "ratings", points=4)


@pytest.mark.slow
def test_killed_overwrites_of_runs_exports_and_recordings_leave_whole_results(tmp_path):
    """Training (a tiny Hexagons run), ``baselines.export`` of it and ``episodes record``, each
    killed at several points of an overwrite."""
    tiny = ["--env", "hexagons", "--total-timesteps", "256", "--num-envs", "8", "--num-steps", "8", "--layer-size", "16"]
    train = ["baselines", *tiny, "--max-episode-steps", "8", "--eval-episodes", "1", "--quiet", "--out", str(tmp_path / "run")]
    subprocess.run([sys.executable, "-m", *train], check=True, capture_output=True)
    assert "staged" in killed_overwrites(train, tmp_path / "run", points=3)
    export = ["baselines.export", str(tmp_path / "run"), "--out", str(tmp_path / "exported")]
    subprocess.run([sys.executable, "-m", *export], check=True, capture_output=True)
    assert "staged" in killed_overwrites(export, tmp_path / "exported", points=3)
    record = ["baselines.episodes", "record", "--env", "hexagons", "--episodes", "3", "--quiet", "--out", str(tmp_path / "episodes")]
    subprocess.run([sys.executable, "-m", *record], check=True, capture_output=True)
    assert "staged" in killed_overwrites(record, tmp_path / "episodes", points=3)
