"""The README's self-contained examples run as written."""

import re
from pathlib import Path

README = (Path(__file__).parent.parent / "README.md").read_text()


def _block(marker: str) -> str:
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    return next(b for b in blocks if marker in b)


def test_check_example_runs():
    namespace: dict = {}
    exec(compile(_block("craftext.start(goal, state)"), "README.md", "exec"), namespace)
    assert "success" in namespace and namespace["progress"].time == 1


def test_quick_start_commands_match_ci():
    ci = (Path(__file__).parent.parent / ".ci" / "run").read_text()
    test_command = ci.strip().splitlines()[-1]
    assert f"```bash\n{test_command}\n```" in README
