"""Test-wide settings: the persistent JAX compilation cache every command uses
(``baselines.worlds.cli.compilation_cache``: ``~/.cache/instructworlds/jax``, or ``$INSTRUCTWORLDS_JAX_CACHE``),
so repeated runs skip recompiling; the example world package of another distribution
(``baselines/worlds/example_world``, shipped with the suite) importable as ``corridor_world``; and the order in which
pytest-xdist's workers take the tests."""

import sys
from pathlib import Path

import pytest

from baselines.worlds.cli import compilation_cache
from tests.servers import chromium

compilation_cache()
CORRIDOR_PACKAGE = Path(__file__).parent.parent / "baselines" / "worlds" / "example_world"
sys.path.insert(0, str(CORRIDOR_PACKAGE))

LONGEST_FIRST = (
    "tests/test_scale_out.py",
    "tests/test_docs.py::TestBuilderCommands",
    "tests/test_docs.py::TestBcCommands",
    "tests/test_wheel.py",
    "tests/test_docs.py::TestPpoCommands",
    "tests/test_docs.py::TestOtherPageCommands",
    "tests/test_docs.py::TestModelCommands",
    "tests/test_docs.py::TestReadmeCommands",
    "tests/test_env_contract.py",
    "tests/test_builder.py",
    "tests/test_baselines.py",
    "tests/test_outputs.py",
    "tests/test_flat.py",
    "tests/test_episodes.py",
    "tests/test_arena.py",
)
"""Units of work (a test file, or a class of ``test_docs.py``: ``--dist loadscope``, pyproject.toml)
that take longest on the 2-core CPU in either tier, longest first: started first, so that the two
workers finish together. Every other unit follows in collection order."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        return next((i for i, unit in enumerate(LONGEST_FIRST) if item.nodeid.startswith(unit)), len(LONGEST_FIRST))

    items.sort(key=rank)  # stable: the tests of a unit keep their order


@pytest.fixture(scope="module")
def browser():
    """A headless chromium (Debian's, driven by Playwright with ``executable_path``); the test is
    skipped where there is none."""
    executable = chromium()
    if executable is None:
        pytest.skip("no chromium on this machine (.ci/run installs Debian's chromium with apt-get)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, headless=True)
        yield launched
        launched.close()
