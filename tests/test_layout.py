"""The layout rules of the suite, checked on the source: the world packages stand alone, only the
registry (``baselines/worlds``) names a world, the suite layer imports no agent, model or tool,
and imports form no cycle."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from baselines import worlds

ROOT = Path(__file__).resolve().parent.parent
WORLD_PACKAGES = ("craftext", "hexagons", "blocksworld")
SUITE_LAYER = ROOT / "baselines" / "worlds"
SUITE_MODULES = ("baselines.worlds",)
"""The suite layer every tool, agent and model stands on, one sub-package: the registry, tasks, the
episode session, file format and replay, agents by run kind, command conventions and the command
table, vector envs, several processes, run folders and checkpoints."""
AGENT_MODULES = (
    "baselines.__main__",
    "baselines.ppo",
    "baselines.networks",
    "baselines.planner",
    "baselines.text_encoders",
    "baselines.evaluate",
    "baselines.export",
    "baselines.bc",
    "baselines.llm_agent",
    "baselines.builder",
    "baselines.painter",
)
"""Agents and models: what learns or acts, and what trains and evaluates it."""
TOOL_MODULES = ("baselines.episodes", "baselines.arena", "baselines.textworld")
"""Tools that work with any agent: episodes, videos and the player, the arena, text datasets."""


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def _imports(path: Path) -> set[str]:
    """Every module a file imports, deferred imports included (relative ones resolved)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return found


def _strings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string literal of a file except docstrings (f-string parts included)."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def _files(modules: tuple[str, ...]) -> list[Path]:
    files = []
    for module in modules:
        path = ROOT / module.replace(".", "/")
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path.with_suffix(".py")]
    return files


def _within(module: str, packages: tuple[str, ...]) -> bool:
    """``module`` is one of ``packages`` or inside one."""
    return any(module == p or module.startswith(p + ".") for p in packages)


def _upward(path: Path) -> list[str]:
    """The modules of ``baselines`` outside the suite layer that ``path`` imports (the package
    itself and its version aside)."""
    outside = (m for m in _imports(path) if _within(m, ("baselines",)) and not _within(m, SUITE_MODULES))
    return sorted(m for m in outside if m not in ("baselines", "baselines.__version__"))


def test_the_suite_layer_imports_no_agent_model_or_tool(tmp_path):
    """The suite layer's modules import nothing of ``baselines`` outside the suite layer (no upward
    arrow: agents, models and tools stand on it, never the other way)."""
    files = _files(SUITE_MODULES)
    assert len(files) > 10 and all(f.is_file() for f in files)
    upward = [f"{path.relative_to(ROOT)} imports {module}" for path in files for module in _upward(path)]
    assert not upward, upward
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from baselines.ppo import run_config\n    from baselines.worlds import cli\n")
    assert _upward(probe) == ["baselines.ppo", "baselines.ppo.run_config"]  # the check finds a deferred import


def test_agents_and_models_import_no_tool():
    """Agents and models record, replay and read episodes through the suite layer, never through a
    tool (``baselines.episodes``, ``arena``, ``textworld``): a tool may use any agent."""
    files = _files(AGENT_MODULES)
    assert len(files) > len(AGENT_MODULES) and all(f.is_file() for f in files)
    found = [
        f"{path.relative_to(ROOT)} imports {module}" for path in files for module in sorted(_imports(path)) if _within(module, TOOL_MODULES)
    ]
    assert not found, found


@pytest.mark.parametrize("package", WORLD_PACKAGES)
def test_world_packages_stand_alone(package):
    """A world package imports neither the suite's tools (baselines, benchmarks) nor another world."""
    others = {"baselines", "benchmarks", *WORLD_PACKAGES} - {package}
    offending = {
        f"{path.relative_to(ROOT)}: {name}" for path in _modules(package) for name in _imports(path) if name.split(".")[0] in others
    }
    assert not offending, sorted(offending)


def test_only_the_suite_layer_names_a_world():
    """Outside the world packages and ``baselines/worlds``, no code names a registered world id or
    family (``CrafText``, ``Hexagons``, ``BlocksWorld``): the tools ask the registry."""
    names = sorted({*worlds.ids(), *(f.name for f in worlds.families())}, key=len, reverse=True)
    pattern = re.compile(r"(?<![A-Za-z])(" + "|".join(map(re.escape, names)) + r")(?![a-z])")
    offending = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for package in ("baselines", "benchmarks")
        for path in _modules(package)
        if SUITE_LAYER not in path.parents
        for line, text in _strings(path)
        if pattern.search(text)
    ]
    assert not offending, offending


def test_the_check_finds_a_world_name(tmp_path):
    code = tmp_path / "tool.py"
    code.write_text('"""A docstring may say Hexagons."""\nif env.startswith("CrafText"):\n    pass\nlabel = f"{x} BlocksWorld-BAP-v1"\n')
    assert [text for _, text in _strings(code)] == ["CrafText", " BlocksWorld-BAP-v1"]


@pytest.mark.parametrize("package", [*WORLD_PACKAGES, "baselines", "benchmarks"])
def test_no_import_cycles(package):
    """Imports inside each package, deferred ones included, form no cycle (blocksworld had env ->
    synthetic -> data -> replay -> env through a default-items import in the env)."""
    graph = {}
    for path in _modules(package):
        name = _module_name(path)
        graph[name] = {m for m in _imports(path) if m.startswith(package + ".") and m != name}

    def cycle_from(start, node, seen):
        for nxt in graph.get(node, ()):
            if nxt == start:
                return [start, node]
            if nxt not in seen:
                seen.add(nxt)
                found = cycle_from(start, nxt, seen)
                if found:
                    return found
        return None

    cycles = {m: cycle_from(m, m, set()) for m in graph if m != package}
    assert not any(cycles.values()), {m: c for m, c in cycles.items() if c}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_import_cycles_between_folders():
    """Folders of ``baselines`` (its own files, ``worlds``, ``bc``, ``builder``, ...) import each
    other without a cycle: the suite layer is the floor, the PPO agent and the shared pieces of
    ``baselines/`` stand on it, and every sub-package stands on those."""
    files = {_module_name(path): path for path in _modules("baselines")}
    folder = {name: ".".join(path.relative_to(ROOT).parent.parts) for name, path in files.items()}
    graph: dict[str, set[str]] = {f: set() for f in folder.values()}
    for name, path in files.items():
        for module in _imports(path):
            target = module if module in files else module.rpartition(".")[0]
            if target in files and folder[target] != folder[name]:
                graph[folder[name]].add(folder[target])

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        return goal in seen

    assert graph["baselines.worlds"] == set() and "baselines.worlds" in graph["baselines"]
    cycles = sorted(f"{a} <-> {b}" for a in graph for b in graph[a] if reaches(b, a))
    assert not cycles, cycles


@pytest.mark.parametrize(
    "module",
    ["craftext", "hexagons", "blocksworld", "hexagons.data", "blocksworld.data", "baselines.worlds", "baselines.worlds.commands"],
)
def test_importing_a_package_loads_no_env(module):
    """World packages and the registry import lazily: no JAX, gymnax or Craftax until an env is
    made (their import times are measured by ``python -m benchmarks.imports``)."""
    import subprocess
    import sys

    code = f"import sys, {module}; print(sorted(m for m in ('jax', 'gymnax', 'craftax', 'flax') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr


@pytest.mark.parametrize("package", WORLD_PACKAGES)
def test_every_submodule_is_reached_through_the_lazy_package(package):
    """``from package import submodule`` gives the submodule in a fresh process, whatever name it has
    (``from __future__ import annotations`` once hid ``blocksworld.annotations``)."""
    import subprocess
    import sys

    names = sorted(p.stem for p in (ROOT / package).glob("*.py") if p.stem != "__init__")
    code = f"import types, {package}; print([n for n in {names} if not isinstance(getattr({package}, n), types.ModuleType)])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr


MOVED = {
    "baselines.cli": "baselines.worlds.cli",
    "baselines.commands": "baselines.worlds.commands",
    "baselines.wrappers": "baselines.worlds.wrappers",
    "baselines.distributed": "baselines.worlds.distributed",
    "baselines.checkpoints": "baselines.worlds.checkpoints",
    "baselines.episodes.episode": "baselines.worlds.episode",
    "baselines.episodes.replay": "baselines.worlds.replay",
}


@pytest.mark.parametrize("old,new", MOVED.items())
def test_a_moved_module_is_the_new_module_under_its_old_name_for_one_release(old, new):
    """The stub at the old path makes the old name the new module itself, warning once with the
    release that removes it (``baselines.worlds.deprecation``); nothing else of the suite imports it."""
    import subprocess
    import sys

    code = f"""
import importlib, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    moved = importlib.import_module("{old}")
    again = importlib.import_module("{old}")
    exec("from {old} import *")
new = importlib.import_module("{new}")
print(moved is new is again, [str(w.message) for w in caught if w.category is DeprecationWarning])
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    same, messages = done.stdout.strip().split(" ", 1)
    assert same == "True" and messages == str([f"{old} moved to {new}: {old} is deprecated and goes in 0.7.0; use {new}"])
    stubs = [p for p in _modules("baselines") if p.read_text().count("moved_module(__name__") == 1]
    assert len(stubs) == len(MOVED)
    code_files = [*_modules("baselines"), *_modules("benchmarks")]
    users = [f"{path.relative_to(ROOT)}: {m}" for path in code_files for m in _imports(path) if m in MOVED]
    assert not users, users
