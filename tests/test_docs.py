"""The documentation runs as written: every ```python block of the README and of the site's pages
is executed (a page's blocks in order, in one namespace), every command line of their ```bash
blocks runs in order (with the fixtures for the public data and small budgets), and the README's
test command is the one ``.ci/run`` runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from baselines.worlds import registry

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(p for p in DOCS.rglob("*.md") if len(p.relative_to(DOCS).parts) <= 2 and p.parent.name != "figures")]
"""The README and the site's pages (run folders' Markdown under docs/models/<run>/ and docs/figures/ are not pages)."""
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _blocks(page: Path) -> list[str]:
    return BLOCK.findall(page.read_text())


@pytest.mark.parametrize("page", [p for p in PAGES if _blocks(p)], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_code_blocks_run(page, monkeypatch):
    monkeypatch.chdir(ROOT)  # pages name files relative to the repository root
    before = registry.families()
    namespace: dict = {}
    for i, block in enumerate(_blocks(page)):
        exec(compile(block, f"{page.relative_to(ROOT)} (python block {i + 1})", "exec"), namespace)
    assert registry.families() == before, "a page's example leaves a world registered (worlds.registered scopes it)"


def test_every_page_is_in_the_site():
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = [p.relative_to(DOCS).as_posix() for p in PAGES[1:]]
    assert pages and all(page in nav for page in pages), [p for p in pages if p not in nav]


README_TEST = re.compile(
    r'^```bash\n(python3 -m venv \.venv && \.venv/bin/pip install -e "\.\[(\w+)\]" && (\.venv/bin/python -m pytest))\n```', re.M
)
"""The README's test command: a venv, the project with some extras, the fast tier."""


def test_quick_start_commands_match_ci():
    """The README's test command is what ``.ci/run`` runs: its set-up is part of CI's one install
    (the same venv, a superset of its extras), its pytest command is CI's fast phase, and the slow
    tier follows."""
    ci = (ROOT / ".ci" / "run").read_text()
    command = README_TEST.search((ROOT / "README.md").read_text())
    assert command, 'the README\'s test command is a venv, pip install -e ".[EXTRAS]" and .venv/bin/python -m pytest'
    install = re.search(r'^phase install .*python3 -m venv \.venv && \.venv/bin/pip install -q -e "\.\[([\w,]+)\]"', ci, re.M)
    assert install and command.group(2) in install.group(1).split(","), "CI installs once, with the README's extras"
    fast, slow = re.search(r"^phase fast (.*)$", ci, re.M), re.search(r"^phase slow (.*)$", ci, re.M)
    assert fast and fast.group(1).startswith(command.group(3))
    assert " -m " not in fast.group(1)[len(command.group(3)) :]  # no marker: the fast tier
    assert slow and slow.start() > fast.start() and "-m slow" in slow.group(1)


SKIPPED = ("python3 -m venv", "pip install", " play ", "arena serve", "--distributed", "srun ", "predictions.jsonl", "test.json", " PATH")
"""Documented lines not run here: set-up (the quick-start commands), servers that wait for people,
multi-process runs (``test_scale_out.py``), and files the reader brings (predictions, JerichoWorld,
the official CrafText wheel)."""
SITE_ORDER = ["README.md", *re.findall(r":\s+(\S+\.md)$", (ROOT / "mkdocs.yml").read_text(), re.M)]


def _command_lines(page: str) -> list[str]:
    """The command lines of a page's ```bash blocks (``page`` as ``SITE_ORDER`` names it),
    continuation lines joined, in order."""
    path = ROOT / page if page == "README.md" else DOCS / page
    text = "\n".join(re.findall(r"^```bash\n(.*?)^```", path.read_text(), re.S | re.M)).replace("\\\n", " ")
    return [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


@pytest.fixture
def workdir(tmp_path_factory) -> Path:
    """A fresh folder for the commands of one page (a page's commands stand alone: a page that
    needs a run makes it), with the repository's README, docs/ and tests/ beside them."""
    folder = tmp_path_factory.mktemp("documented")
    for name in ("README.md", "docs", "tests"):
        (folder / name).symlink_to(ROOT / name)
    return folder


def pytest_generate_tests(metafunc):
    if metafunc.cls is not None and issubclass(metafunc.cls, PageCommands):
        metafunc.parametrize("page", metafunc.cls.pages())


class PageCommands:
    """Every command line of a page's bash blocks, in order, in one shell and a fresh folder: the
    public data replaced by the fixtures and small budgets appended (``tests/documented.py``). Each
    subclass is a set of pages one pytest-xdist worker runs (``--dist loadscope``: a class is a unit)."""

    PAGES: tuple[str, ...] = ()

    @classmethod
    def pages(cls) -> list[str]:
        return [p for p in SITE_ORDER if p in cls.PAGES and _command_lines(p)]

    @pytest.mark.slow
    def test_commands_run_in_order(self, page, workdir):
        lines = [line for line in _command_lines(page) if not any(s in line for s in SKIPPED)]
        script = "\n".join(["set -euo pipefail", f'python() {{ "{sys.executable}" -m tests.documented "$@"; }}', *lines])
        done = subprocess.run(
            ["bash", "-c", script],
            cwd=workdir,
            capture_output=True,
            text=True,
            timeout=1800,
            env={**os.environ, "PYTHONPATH": str(ROOT), "CI": "true"},
        )
        assert done.returncode == 0, f"{page}:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"


class TestReadmeCommands(PageCommands):
    PAGES = ("README.md", "tools/episodes.md")


class TestPpoCommands(PageCommands):
    PAGES = ("agents/ppo.md",)


class TestBcCommands(PageCommands):
    PAGES = ("agents/bc.md",)


class TestBuilderCommands(PageCommands):
    PAGES = ("models/builder.md",)


class TestModelCommands(PageCommands):
    PAGES = ("models/painter.md", "models/craftext-agents.md")


class TestOtherPageCommands(PageCommands):
    PAGES = tuple(p for p in SITE_ORDER if all(p not in pages.PAGES for pages in PageCommands.__subclasses__()))
