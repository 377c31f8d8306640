"""Every command of the suite, and the ``instructworlds`` console script that runs them.

``instructworlds COMMAND [ARGS]`` is the same as ``python -m MODULE [ARGS]`` (``COMMANDS``); each
module has ``parser()`` (its argparse parser, also the source of the docs' CLI reference) and
``main(argv)``. ``instructworlds`` alone lists them.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path

COMMANDS: dict[str, str] = {
    "train": "baselines",
    "bc": "baselines.bc",
    "dagger": "baselines.bc.dagger",
    "evaluate": "baselines.evaluate",
    "check-world": "baselines.worlds.check",
    "export": "baselines.export",
    "episodes": "baselines.episodes",
    "arena": "baselines.arena",
    "textworld": "baselines.textworld",
    "llm-agent": "baselines.llm_agent",
    "builder": "baselines.builder",
    "painter": "baselines.painter",
    "plots": "baselines.plots",
    "results": "baselines.results",
    "benchmark": "benchmarks",
    "benchmark-scaling": "benchmarks.scaling",
    "benchmark-textworld": "benchmarks.textworld",
    "benchmark-imports": "benchmarks.imports",
    "benchmark-builder": "benchmarks.builder_encoders",
    "benchmark-projection": "benchmarks.projection",
    "benchmark-profile": "benchmarks.profile",
    "benchmark-history": "benchmarks.history",
    "benchmark-device": "benchmarks.device",
    "benchmark-fits": "benchmarks.fits",
    "craftext-dataset": "craftext.dataset",
    "craftext-validate": "craftext.validate",
    "hexagons-data": "hexagons.data",
    "hexagons-baseline": "hexagons.baseline",
    "hexagons-abstractions": "hexagons.abstractions",
    "blocksworld-data": "blocksworld.data",
    "blocksworld-synthetic": "blocksworld.synthetic",
}
"""Command name -> the module ``python -m`` runs."""


def _source(name: str) -> Path:
    """The file ``python -m`` runs for command ``name`` (a package's ``__main__.py``)."""
    spec = importlib.util.find_spec(COMMANDS[name])
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"command {name}: module {COMMANDS[name]} is not installed")
    origin = Path(spec.origin)
    return origin.with_name("__main__.py") if origin.name == "__init__.py" else origin


def summary(name: str) -> str:
    """The first sentence of a command's docstring, read from its source (nothing is imported)."""
    text = ast.get_docstring(ast.parse(_source(name).read_text())) or ""
    first = " ".join(text.split("\n\n")[0].split())
    if first.startswith("``python -m"):
        first = first.split(": ", 1)[-1]
    return first.split(". ")[0].rstrip(".")


def command_module(name: str):
    """The module whose ``parser()`` and ``main(argv)`` make command ``name``."""
    return importlib.import_module(".".join(_source(name).relative_to(_ROOT).with_suffix("").parts))


_ROOT = Path(__file__).resolve().parents[2]
"""The folder that holds the suite's packages (``baselines/worlds/commands.py`` is two below it)."""


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] not in ("-h", "--help") and argv[0] not in COMMANDS:
        from baselines.worlds.cli import suggestion

        sys.exit(f"instructworlds: error: unknown command {argv[0]!r}{suggestion(argv[0], COMMANDS)}\n(see instructworlds --help)")
    if not argv or argv[0] in ("-h", "--help"):
        lines = [f"  {name:<22} {summary(name)} (python -m {module})" for name, module in COMMANDS.items()]
        print("usage: instructworlds COMMAND [ARGS]  (instructworlds COMMAND --help for its flags)\n\ncommands:\n" + "\n".join(lines))
        return
    from baselines.worlds.cli import INVOKED_AS

    INVOKED_AS[f"python -m {COMMANDS[argv[0]]}"] = f"instructworlds {argv[0]}"
    command_module(argv[0]).main(argv[1:])


if __name__ == "__main__":
    main()
