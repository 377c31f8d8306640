"""mkdocs hooks of the documentation site.

- The command-line reference is generated from the commands' own argparse parsers
  (``baselines.commands``), so it cannot go stale: the marker ``<!-- cli-reference -->`` becomes
  every command's ``--help``, and each subcommand's.
- The committed benchmark results (``benchmarks/results/``, outside ``docs/``) are published under
  ``results/`` so the pages can show their figures.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- cli-reference -->"


def _helps(parser: argparse.ArgumentParser, name: str):
    """(title, help text) of a parser and of every subcommand's parser, recursively."""
    yield name, parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, subparser in action.choices.items():
                yield from _helps(subparser, f"{name} {sub}")


def cli_reference() -> str:
    """Markdown: per command, how to run it and the help of it and its subcommands."""
    from baselines.commands import COMMANDS, command_module, summary

    parts = []
    for name, module in COMMANDS.items():
        parts.append(f"## `{name}`\n\n{summary(name)}. Run as `instructworlds {name}` or `python -m {module}`.\n")
        for title, text in _helps(command_module(name).parser(), f"python -m {module}"):
            if title != f"python -m {module}":
                parts.append(f"### `{title}`\n")
            parts.append(f"```text\n{text.rstrip()}\n```\n")
    return "\n".join(parts)


def on_files(files, config):
    for path in sorted((ROOT / "benchmarks" / "results").rglob("*")):
        if path.is_file() and path.suffix != ".md":  # pictures and data, not pages
            files.append(
                File.generated(config, f"results/{path.relative_to(ROOT / 'benchmarks' / 'results').as_posix()}", abs_src_path=str(path))
            )
    return files


def on_page_markdown(markdown, page, config, files):
    return markdown.replace(MARKER, cli_reference()) if MARKER in markdown else markdown
