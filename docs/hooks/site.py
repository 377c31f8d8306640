"""mkdocs hooks of the documentation site.

- The command-line reference is generated from the commands' own argparse parsers
  (``baselines.worlds.commands``), so it cannot go stale: the marker ``<!-- cli-reference -->`` becomes
  a section per command and subcommand with a table of its flags, defaults and help.
- The committed benchmark results (``benchmarks/results/``, outside ``docs/``) are published under
  ``results/`` so the pages can show their figures.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- cli-reference -->"


def _markdown(text: str) -> str:
    """Help or description text as Markdown: reST literals as code, one paragraph per blank line."""
    return text.replace("``", "`").replace("%%", "%")


def _cell(text: str) -> str:
    return " ".join(_markdown(text).split()).replace("|", "\\|")


def _flags(parser: argparse.ArgumentParser) -> str:
    """A Markdown table of the parser's arguments: flag (or positional), default, help."""
    formatter = parser._get_formatter()
    rows = ["| argument | default | meaning |", "|---|---|---|"]
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)) or action.help == argparse.SUPPRESS:
            continue
        name = ", ".join(action.option_strings) or action.dest
        if action.option_strings and action.nargs != 0 and not action.choices:  # choices are listed under meaning
            name += f" {formatter._format_args(action, formatter._get_default_metavar_for_optional(action))}"
        if action.nargs == 0:
            default = "off"
        elif action.required:
            default = "required"
        elif action.default in (None, argparse.SUPPRESS, "", [], {}):
            default = ""
        else:
            default = f"`{action.default}`"
        meaning = formatter._expand_help(action) if action.help else ""
        if action.choices and not isinstance(action.choices, dict):
            meaning += f" (one of {', '.join(f'`{c}`' for c in action.choices)})"
        rows.append(f"| `{_cell(name)}` | {default} | {_cell(meaning)} |")
    return "\n".join(rows)


def cli_reference() -> str:
    """Markdown: per command, how to run it, what it does, and a table of its flags; a section per
    subcommand."""
    from baselines.worlds.cli import subcommands
    from baselines.worlds.commands import COMMANDS, command_module, summary

    parts = []
    for name, module in COMMANDS.items():
        parser = command_module(name).parser()
        parts.append(f"## `{name}`\n\n{_markdown(summary(name))}. Run as `instructworlds {name}` or `python -m {module}`.\n")
        helps = {
            choice.dest: choice.help
            for _, each in subcommands(parser)
            for action in each._actions
            if isinstance(action, argparse._SubParsersAction)
            for choice in action._choices_actions
        }
        for title, sub in subcommands(parser, f"instructworlds {name}"):
            if sub is not parser:
                about = (sub.description or helps.get(title.split()[-1]) or "").strip().rstrip(".")
                parts.append(f"### `{title}`\n\n{_markdown(about[:1].upper() + about[1:])}.\n")
            parts.append(_flags(sub) + "\n")
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
