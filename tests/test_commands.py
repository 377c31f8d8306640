"""Every command of the suite: its ``--help`` works, and the flags that several commands share mean
the same thing everywhere (``baselines.worlds.cli.VOCABULARY``); a count and a list never share a name."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from baselines.worlds.cli import OUT_MARK, VOCABULARY, parse, positive_int, subcommands
from baselines.worlds.commands import COMMANDS, command_module

ROOT = Path(__file__).resolve().parent.parent


def _flags() -> dict[str, list[tuple[str, argparse.Action]]]:
    """option string -> (command, action) wherever a parser of a command defines it (help hidden
    ones, the deprecated spellings, left out)."""
    found = defaultdict(list)
    for command in COMMANDS:
        for name, parser in subcommands(command_module(command).parser(), command):
            for action in parser._actions:
                if action.help != argparse.SUPPRESS:
                    for option in action.option_strings:
                        found[option].append((name, action))
    return found


def _kind(action: argparse.Action) -> tuple:
    """What a flag is: a switch, or a value (one or several, a count or not)."""
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
        return ("switch",)
    return ("several" if action.nargs in ("+", "*") else "one", "count" if action.type in (int, positive_int) else "value")


@pytest.mark.parametrize("command", COMMANDS)
def test_help_of_every_command(command):
    """``python -m MODULE --help`` exits 0 and describes the command (each subcommand's help too)."""
    done = subprocess.run([sys.executable, "-m", COMMANDS[command], "--help"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("usage: "), done.stderr
    assert "``" not in done.stdout  # plain text, no reST markup
    for name, parser in subcommands(command_module(command).parser(), command):
        assert parser.format_help().startswith("usage: "), name


def test_shared_flags_mean_the_same_everywhere():
    flags = _flags()
    for option, flag in VOCABULARY.items():
        assert option in flags, f"{option}: no command has it"
        for command, action in flags[option]:
            assert action.dest == option[2:].replace("-", "_"), (command, option)
            if flag.action == "store_true":
                assert isinstance(action, argparse._StoreTrueAction), (command, option)
            else:
                assert not isinstance(action, argparse._StoreTrueAction) and (action.nargs in ("+", "*")) <= flag.several, (command, option)
                if flag.type in (int, Path):
                    assert action.type is flag.type, (command, option, action.type)


def test_counts_and_lists_never_share_a_flag_name():
    several = {option for option, flag in VOCABULARY.items() if flag.several}  # ids: one or several
    clashes = {
        option: sorted({(_kind(a), c) for c, a in uses})
        for option, uses in _flags().items()
        if option not in several and len({_kind(a) for _, a in uses}) > 1
    }
    assert not clashes, clashes


def test_every_command_that_takes_a_world_takes_the_same_world_flags():
    from baselines import worlds

    world_flags = {"--env", "--max-episode-steps", *(s.flag for s in worlds.settings().values())}
    flags = _flags()
    takers = {c for c, _ in flags["--max-episode-steps"]}
    assert takers == {"train", "dagger", "episodes play", "episodes record", "textworld generate", "llm-agent"}
    for option in world_flags:
        assert {c for c, _ in flags[option]} >= takers, option


def test_old_spellings_work_for_one_release_with_the_release_that_removes_them(capsys):
    parser = command_module("benchmark").parser()
    args = parse(parser, ["--worlds", "Hexagons-Paint-v1", "--num-envs", "1", "8"], {"--worlds": "--env", "--num-envs": "--num-envs-list"})
    assert args.env == ["Hexagons-Paint-v1"] and args.num_envs_list == [1, 8]
    assert "warning: --worlds is deprecated and goes in 0.7.0; use --env" in capsys.readouterr().err
    train = command_module("train")
    renamed = {"--eval-mode greedy": "--greedy", "--eval-mode sample": ""}  # a flag and value to flags, or to none
    assert parse(train.parser(), ["--eval-mode", "greedy"], renamed).greedy
    assert not parse(train.parser(), ["--eval-mode=sample"], renamed).greedy
    with pytest.raises(SystemExit):  # the spellings deprecated in 0.2.0 are gone
        parse(train.parser(), ["--eval-mode", "greedy"])


def test_the_console_script_runs_every_command(capsys):
    from baselines.worlds.commands import main

    main([])
    listing = capsys.readouterr().out
    assert all(f"  {name} " in listing for name in COMMANDS)
    main(["hexagons-data", str(ROOT / "tests" / "fixtures" / "hexagons")])
    assert "procedures" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="unknown command 'trian'"):
        main(["trian"])


def _written_forms(default) -> set[str]:
    """How a help text may write ``default``: as str or repr, with thousands separators, in
    scientific notation, a list space-separated, a relative path with ``./``."""
    forms = {str(default), repr(default), f"./{default}"}
    if isinstance(default, (int, float)) and not isinstance(default, bool):
        forms |= {f"{default:,}", f"{default:g}", f"{default:.0e}".replace("e-0", "e-")}
    if isinstance(default, list):
        forms.add(" ".join(map(str, default)))
    return forms


def test_help_texts_state_the_real_defaults():
    """Where a flag's help names its default, the name is argparse's default for it."""
    wrong = []
    for command in COMMANDS:
        for name, parser in subcommands(command_module(command).parser(), command):
            for action in parser._actions:
                if action.help in (None, argparse.SUPPRESS) or action.default in (None, False, argparse.SUPPRESS):
                    continue
                written = [w.strip() for w in re.findall(r"default:? ([^;)]+)", action.help)]
                if written and not any(w.startswith(form) for w in written for form in _written_forms(action.default)):
                    wrong.append((name, action.option_strings, action.default, written))
    assert not wrong, wrong


def test_train_help_states_the_settings_a_run_gets(tmp_path):
    """``python -m baselines`` leaves its flags unset (``--resume`` tells given from saved ones);
    the defaults its help states are those of a run started without flags."""
    train = command_module("train")
    parser = train.parser()
    out = tmp_path / "run"
    config = train._config(train.settings(parse(parser, ["--out", str(out)])))
    helps = {a.option_strings[0]: a.help for a in parser._actions if a.option_strings}
    for flag, value in {"--num-envs": config.num_envs, "--num-steps": config.num_steps, "--layer-size": config.network.layer_size}.items():
        assert f"default {value}" in helps[flag], (flag, helps[flag])
    assert f"quick {config.total_timesteps:,}" in helps["--total-timesteps"]
    assert f"quick {config.lr:.0e}".replace("e-0", "e-") in helps["--lr"]
    assert [p.name for p in out.iterdir()] == [OUT_MARK]  # made and marked, nothing written yet: a later run may use it
    assert train.settings(parse(parser, ["--out", str(out)])).out == out


def test_a_bad_command_line_is_one_line_with_a_suggestion(capsys, monkeypatch):
    """A mistyped command, choice or subcommand: one error line naming the command as typed, a
    "did you mean", and a pointer to --help, without the usage block."""
    from baselines.worlds import cli
    from baselines.worlds.commands import main

    monkeypatch.setattr(cli, "INVOKED_AS", {})
    for argv, typed, meant in (
        (["trian"], "instructworlds", "train"),
        (["train", "--preset", "hexagon"], "instructworlds train", "hexagons"),
        (["episodes", "recrd"], "instructworlds episodes", "record"),
    ):
        with pytest.raises(SystemExit) as exit:
            main(argv)
        err = capsys.readouterr().err + str(exit.value.code)
        assert f"{typed}: error:" in err and f"did you mean {meant!r}" in err and f"(see {typed} --help)" in err, err
        assert "usage:" not in err, err


def test_a_mistyped_split_gets_a_suggestion():
    from baselines import worlds

    with pytest.raises(ValueError, match="did you mean 'train'"):
        worlds.split_episodes({"env": "hexagons"}, "trian")


def test_one_default_per_setting_across_the_library_and_the_commands():
    import inspect

    import craftext
    from baselines import worlds
    from baselines.__main__ import EVAL_DEFAULTS

    assert worlds.settings()["level"].default == inspect.signature(craftext.make).parameters["level"].default == "medium"
    assert command_module("bc").parser().parse_args(["--demos", "x"]).eval_episodes == EVAL_DEFAULTS["eval_episodes"] == 8
