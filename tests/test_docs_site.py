"""The documentation site as a reader sees it: ``mkdocs build --strict`` prints no warning, and every
page, loaded in Debian's chromium at a phone's 390 px and a desktop's 1280 px, is no wider than the
window (a wide table or code block scrolls inside itself, a table with its first column fixed),
shows every picture and logs no console error. Screenshots of the pages a newcomer reads first are saved (``$DOCS_SCREENSHOTS``, else the
test's folder): ``docs/figures/site/`` holds the committed ones."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests import servers

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
WIDTHS = ((390, 844), (1280, 1000))
"""(width, height) of a phone and of a desktop window, px."""
SCREENSHOTS = ("results", "worlds/craftext", "benchmarks", "reference/cli")
"""Pages whose screenshots are kept (``<page>`` -> ``site-<name>-<width>.png``)."""

OVERFLOWING = """() => {
  const width = document.documentElement.clientWidth;
  const clipped = (element) => {
    for (let up = element.parentElement; up && up !== document.body; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== "visible") return true;
    }
    return false;
  };
  const scrolls = (e) => getComputedStyle(e).overflowX !== "visible";
  const right = (e) => {
    const box = e.getBoundingClientRect();
    return Math.max(box.right, scrolls(e) ? 0 : box.left + e.scrollWidth);  // text running out of its box too
  };
  const wide = [...document.querySelectorAll(".md-content *")].filter((e) => right(e) > width + 1 && !clipped(e));
  const page = document.documentElement.scrollWidth - width;
  return [...(page > 0 ? [`page ${page}px wider`] : []),
          ...wide.slice(0, 3).map((e) => `${e.tagName} "${(e.textContent || "").trim().slice(0, 50)}"`)];
}"""
"""Elements of the article that reach past the window outside any scrolling box, and the page's
own horizontal overflow."""
UNLABELLED_SCROLLING = """() => [...document.querySelectorAll(".md-typeset table")]
  .filter((t) => {
    let box = t.parentElement;
    while (box && box !== document.body && getComputedStyle(box).overflowX === "visible") box = box.parentElement;
    return box && box !== document.body && box.scrollWidth > box.clientWidth + 1;
  })
  .filter((t) => [...t.rows].some((r) => r.cells.length && getComputedStyle(r.cells[0]).position !== "sticky"))
  .map((t) => `table "${(t.rows[0] ? t.rows[0].textContent : "").trim().slice(0, 50)}"`)"""
"""Tables wider than the text column whose first column does not stay in place while they scroll."""
BROKEN_IMAGES = "() => [...document.images].filter((i) => !i.complete || i.naturalWidth === 0).map((i) => i.getAttribute('src'))"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-5000:]
    noise = [line for line in output.splitlines() if any(word in line for word in ("WARNING", "Warning", "Traceback", "Error"))]
    assert not noise, "\n".join(noise)
    return out


def test_every_page_fits_shows_its_pictures_and_logs_no_error(site, browser, tmp_path):
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *args: None
    server = ThreadingHTTPServer(("127.0.0.1", servers.free_port()), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    shots = Path(os.environ.get("DOCS_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    pages = sorted(p.parent.relative_to(site).as_posix() for p in site.rglob("index.html") if "assets" not in p.parts)
    assert len(pages) >= 20, pages
    problems = []
    try:
        for width, height in WIDTHS:
            page = browser.new_page(viewport={"width": width, "height": height})
            errors: list[str] = []
            page.on("console", lambda message: message.type == "error" and errors.append(message.text))
            page.on("pageerror", lambda error: errors.append(str(error)))
            for path in pages:
                errors.clear()
                page.goto(url + ("" if path == "." else path + "/"), wait_until="load")
                for problem in page.evaluate(OVERFLOWING) + page.evaluate(UNLABELLED_SCROLLING):
                    problems.append(f"{path} at {width} px: {problem}")
                problems += [f"{path} at {width} px: picture {src} not shown" for src in page.evaluate(BROKEN_IMAGES)]
                problems += [f"{path} at {width} px: console error {text[:200]}" for text in errors]
                if path in SCREENSHOTS:
                    page.screenshot(path=str(shots / f"site-{path.replace('/', '-')}-{width}.png"))
            page.close()
    finally:
        server.shutdown()
    assert not problems, "\n".join(problems)
    assert all((shots / f"site-{p.replace('/', '-')}-{w}.png").stat().st_size > 10_000 for p in SCREENSHOTS for w, _ in WIDTHS)
