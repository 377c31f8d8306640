"""The wheel is the suite: built from the repository and installed into a fresh virtual environment
outside it (dependencies from the package registry), it loads every shipped dataset, makes every
registered env and steps each but the pixel views once, and carries the web assets. Marked ``network`` (it installs the
dependencies); ``.ci/run`` runs it with ``pytest -m network tests/test_wheel.py``."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

CHECK = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    import jax

    import baselines, blocksworld, craftext, hexagons
    from baselines import worlds
    from craftext import dataset

    site = Path(sys.argv[1]).resolve()
    for package in (baselines, blocksworld, craftext, hexagons):
        assert site in Path(package.__file__).resolve().parents, f"{package.__name__} imported from {package.__file__}"
    assert craftext.__distribution__ == "instructworlds" and craftext.__version__ != "0+unknown"
    for classic in (True, False):
        for release in ("default", "full"):
            print(f"{'classic' if classic else 'full'} {release}: {len(dataset.load_release(classic, release).entries)} goals")
    print(f"vocabulary: {len(dataset.vocabulary())} words")
    for family in worlds.families():
        for env_id in family.ids:
            env, params = family.make(env_id)
            if "Pixels" in env_id:  # craftax's own textures, not the wheel's files (a fresh install processes them for minutes)
                continue
            obs, state = env.reset(jax.random.key(0), params)
            obs, state, reward, terminated, truncated, info = env.step(jax.random.key(1), state, 0, params)
            print(f"{env_id}: one step, reward {float(reward):.3f}")
    for asset in ("episodes/play.html", "arena/static/rate.html", "arena/static/arena.css"):
        assert (Path(baselines.__file__).parent / asset).is_file(), asset
    print("ok")
    """
)


@pytest.mark.network
@pytest.mark.slow
def test_the_wheel_carries_its_data_and_runs_outside_the_repository(tmp_path):
    def run(*argv, **kwargs):
        done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=1800, **kwargs)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
        return done.stdout

    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp_path / "dist", ROOT)
    (wheel,) = (tmp_path / "dist").glob("instructworlds-*.whl")
    run(sys.executable, "-m", "venv", tmp_path / "venv")
    python = tmp_path / "venv" / "bin" / "python"
    run(python, "-m", "pip", "install", "-q", wheel)
    site = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip()
    out = run(python, "-c", CHECK, site, cwd=tmp_path)  # outside the repository: nothing of it is on the path
    from baselines import worlds
    from craftext import dataset

    assert out.strip().endswith("ok")
    for classic in (True, False):  # the same goals as the source tree
        for release in ("default", "full"):
            assert f"{'classic' if classic else 'full'} {release}: {len(dataset.load_release(classic, release).entries)} goals" in out
    assert sum("one step" in line for line in out.splitlines()) == sum("Pixels" not in i for i in worlds.ids())
