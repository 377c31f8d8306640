"""The documentation runs as written: every ```python block of the README and of the site's pages
is executed (a page's blocks in order, in one namespace), and the README's test command is the one
``.ci/run`` runs."""

from __future__ import annotations

import re
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
    monkeypatch.setattr(registry, "_FAMILIES", list(registry.families()))  # a page may register a world
    namespace: dict = {}
    for i, block in enumerate(_blocks(page)):
        exec(compile(block, f"{page.relative_to(ROOT)} (python block {i + 1})", "exec"), namespace)


def test_every_page_is_in_the_site():
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = [p.relative_to(DOCS).as_posix() for p in PAGES[1:]]
    assert pages and all(page in nav for page in pages), [p for p in pages if p not in nav]


def test_quick_start_commands_match_ci():
    ci = (ROOT / ".ci" / "run").read_text()
    test_command = ci.strip().splitlines()[-1]
    assert f"```bash\n{test_command}\n```" in (ROOT / "README.md").read_text()
