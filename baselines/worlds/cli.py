"""What every command of the suite shares: the flag vocabulary, the output-folder policy, progress
bars and the deprecation of old flag spellings.

Vocabulary (``VOCABULARY``): ``--env`` a world id or alias, ``--split`` a split name, ``--data``
and ``--goals-file`` data sources, ``--seed`` an int, ``--episodes`` a count of episodes, ``--out``
the output path, ``--resume`` / ``--overwrite`` what to do with an existing one, ``--greedy`` the
agent's most likely action instead of a sampled one, ``--quiet`` no progress bars. A count and a
list never share a flag name.

Output policy (``prepare_out``): a command writes into a fresh ``--out``, which it marks as its
own (``OUT_MARK``) and, when done (``finish_out``), lists the files it wrote. An existing, non-empty
one is refused unless ``--resume`` (where the command can continue a run) or ``--overwrite``, which
replaces only what a command of the same kind made: a folder holding nothing its mark does not list
(never a nested run, files another command added, a file, a symlink or the working directory). The
new result is written beside the old one and swapped in by one rename, so a kill leaves one of them
whole. Nothing is silently continued or overwritten. Where ``--out`` has a default (``runs/...``),
a run whose default folder is taken goes to the next free ``<folder>-N`` instead. Final files are
written whole (``write_atomic``: a temporary file, then a rename); what a killed writer left is
removed by the next command writing there (``clean_leftovers``).

Errors (``plain``, applied by ``parse``): a bad command line is one ``PROG: error:`` line with a
"did you mean" for a mistyped choice and a pointer to ``--help``; help text carries no reST markup;
``PROG`` is the command as the user typed it (``instructworlds train`` or ``python -m baselines``).

Progress (``progress``): a tqdm bar with rate and ETA on stderr; off with ``--quiet`` or when the
environment variable ``CI`` is ``true`` or ``1``. A long compilation is announced first
(``compiling``), with how long it took the last time. JAX's persistent compilation cache is on for
every command (``compilation_cache``: ``~/.cache/instructworlds/jax``, moved by
``$INSTRUCTWORLDS_JAX_CACHE``, off with ``--no-compile-cache`` or ``INSTRUCTWORLDS_JAX_CACHE=off``).
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import itertools
import json
import os
import re
import shlex
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypedDict

from baselines.worlds.deprecation import message as deprecation_message

if TYPE_CHECKING:
    from typing_extensions import Unpack


@dataclass(frozen=True)
class Flag:
    """The meaning of a shared flag: how argparse stores it (``store`` or ``store_true``), the
    type of its value, whether it takes several values, and what it means."""

    action: str
    type: Any
    meaning: str
    several: bool = False


CACHE_ENV = "INSTRUCTWORLDS_JAX_CACHE"
DEFAULT_CACHE = Path.home() / ".cache" / "instructworlds" / "jax"

VOCABULARY: dict[str, Flag] = {
    "--env": Flag("store", "world id", "a registered world id or alias (several where a command measures several)", several=True),
    "--split": Flag("store", str, "a split of the world's data"),
    "--data": Flag("store", str, "a data source: a built-in name, a folder or a file"),
    "--goals-file": Flag("store", str, "a goal file of your own"),
    "--seed": Flag("store", int, "the random seed (of the first episode where episodes count up)"),
    "--episodes": Flag("store", int, "a number of episodes"),
    "--out": Flag("store", Path, "where the command writes"),
    "--resume": Flag("store_true", None, "continue the run in --out"),
    "--overwrite": Flag("store_true", None, "replace what --out holds"),
    "--greedy": Flag("store_true", None, "the agent's most likely action instead of a sampled one"),
    "--quiet": Flag("store_true", None, "no progress bars"),
    "--no-compile-cache": Flag("store_true", None, "no persistent compilation cache"),
}
"""The shared flags; ``tests/test_commands.py`` checks every command against it."""


def positive_int(text: str) -> int:
    """An argparse type: an int of at least 1 (the flag is named in argparse's error)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_out(
    parser: argparse.ArgumentParser, help: str, *, default: str | None = None, required: bool = False, resume: bool = False
) -> None:
    """``--out`` (a path), ``--overwrite`` and, for commands that can continue a run, ``--resume``."""
    suffix = f" (default {default}, or the next free {default}-N)" if default else ""
    parser.add_argument("--out", type=Path, default=None, required=required, help=help + suffix)
    if resume:
        parser.add_argument("--resume", action="store_true", help="continue the run in --out from its latest checkpoint, with its settings")
    parser.add_argument("--overwrite", action="store_true", help="replace what --out holds")


OUT_MARK = ".instructworlds-out.json"
"""The file ``prepare_out`` leaves in every folder it makes: ``{"kind": ...}``, the command that
made it, and from ``finish_out`` on ``"files"``, every file the folder then holds (relative paths).
``--overwrite`` replaces only a folder whose mark names the same kind and lists all it holds."""

_STAGED: dict[Path, Path] = {}
"""An overwrite's new folder (``.NAME.partial-PID``, beside the old one) -> the folder it replaces."""

_LEFTOVER = re.compile(r"^\.(?P<name>.+)\.(?P<what>partial|previous)-(?P<pid>\d+)$")


def _mark(path: Path) -> dict:
    """Folder ``path``'s ``OUT_MARK`` ({} if unmarked or unreadable)."""
    try:
        mark = json.loads((Path(path) / OUT_MARK).read_text())
    except (OSError, ValueError):
        return {}
    return mark if isinstance(mark, dict) else {}


def out_kind(path: Path) -> str | None:
    """The kind of command that made folder ``path`` (its ``OUT_MARK``), None if unmarked or unreadable."""
    kind = _mark(path).get("kind")
    return str(kind) if kind is not None else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def open_atomic(path: Path, mode: str = "w") -> Iterator[IO]:
    """A file to write ``path`` through (``mode`` "w" or "wb"): written beside it
    (``.NAME.partial-PID``) and renamed into place when the block ends without an error. A reader,
    or a later run after a kill mid-write, sees the previous file whole or the new one."""
    path = Path(path)
    partial = path.with_name(f".{path.name}.partial-{os.getpid()}")
    try:
        with open(partial, mode, encoding=None if "b" in mode else "utf-8") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, path)


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all (``open_atomic``)."""
    with open_atomic(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def reads_as(keys: Iterable[str], lines: bool = False) -> Callable[[Path], bool]:
    """An ``own`` test for a file output (``OutRequest``): the file is a JSON object holding
    ``keys`` (with ``lines``: JSON lines whose first row holds them, or empty)."""
    wanted = set(keys)

    def own(path: Path) -> bool:
        try:
            with Path(path).open(encoding="utf-8") as f:
                text = f.readline() if lines else f.read()
            value = json.loads(text) if text.strip() or not lines else dict.fromkeys(wanted)
        except (OSError, ValueError):
            return False
        return isinstance(value, dict) and wanted <= value.keys()

    return own


def clean_leftovers(folder: Path) -> list[str]:
    """Remove what killed writers left in ``folder``: ``.NAME.partial-PID`` files and folders whose
    process has ended, and the old result an overwrite killed between its two renames had moved
    aside (``.NAME.previous-PID``, put back if the new one never took its place). An overwrite's new
    folder that was complete (``finish_out``) takes its place instead. Returns the names removed."""
    folder = Path(folder)
    found = [(p, m) for p in folder.iterdir() if (m := _LEFTOVER.match(p.name)) and not _alive(int(m["pid"]))] if folder.is_dir() else []
    removed = []
    for path, m in sorted(found, key=lambda item: item[1]["what"] == "previous"):  # new results first
        target = path.with_name(m["name"])
        if m["what"] == "partial" and path.is_dir() and "files" in _mark(path) and not target.exists():
            os.replace(path, target)
        elif m["what"] == "previous" and not target.exists():
            os.replace(path, target)
        else:
            with contextlib.suppress(FileNotFoundError):  # the processes of a multi-process run clean up at once
                shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
            removed.append(path.name)
    return removed


def _files(folder: Path) -> list[str]:
    """Every file under ``folder`` (relative paths), leaving out its mark, files being written and
    folders other commands marked as their own."""
    found = []
    for parent, dirs, names in os.walk(folder):
        base = Path(parent)
        dirs[:] = [d for d in dirs if not (base / d / OUT_MARK).exists() and not _LEFTOVER.match(d)]
        found += [(base / n).relative_to(folder).as_posix() for n in names if n != OUT_MARK and not _LEFTOVER.match(n)]
    return sorted(found)


def _not_made(path: Path, kind: str) -> str | None:
    """The first thing in folder ``path`` that a ``kind`` command did not write, or None: a run
    nested in it, or a file its mark does not list (``_files``; a mark without a list, from a
    command killed before it finished, vouches for everything but nested runs)."""
    for parent, dirs, _ in os.walk(path):
        for d in sorted(dirs):
            if (nested := out_kind(Path(parent) / d)) is not None:
                return f"a {nested} run ({(Path(parent) / d).relative_to(path).as_posix()})"
    listed = _mark(path).get("files")
    unlisted = [] if listed is None else [name for name in _files(path) if name not in set(listed)]
    return f"{unlisted[0]}, which a {kind} command did not write" if unlisted else None


def _exchange(a: Path, b: Path) -> bool:
    """Swap paths ``a`` and ``b`` in one atomic rename (Linux ``renameat2`` with
    ``RENAME_EXCHANGE``); False where the system or file system cannot."""
    import ctypes
    import errno

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(a))


def final_path(path: Path) -> Path:
    """The folder ``path`` becomes once finished: itself, or for an overwrite's new folder the one it replaces."""
    return _STAGED.get(Path(path), Path(path))


def finish_out(path: Path) -> Path:
    """Mark folder ``path`` (from ``prepare_out``) as finished: its mark lists every file it holds.
    An overwrite's new result, written beside the old one, then takes the old one's place in one
    rename (where the system cannot swap two folders at once: two renames, which
    ``clean_leftovers`` completes after a kill between them). Returns the final folder."""
    path = Path(path)
    write_atomic(path / OUT_MARK, json.dumps({**_mark(path), "files": _files(path)}) + "\n")
    target = _STAGED.pop(path, None)
    if target is None:
        return path
    if _exchange(path, target):
        shutil.rmtree(path)
    else:
        previous = target.with_name(f".{target.name}.previous-{os.getpid()}")
        os.replace(target, previous)
        os.replace(path, target)
        shutil.rmtree(previous)
    return target


class OutRequest(TypedDict, total=False):
    """How a command asks for its output path (``check_out``, ``prepare_out``): ``default`` when
    ``--out`` is not given; ``overwrite`` / ``resume`` as requested; ``can_resume``: the command can
    continue a run; ``file``: the output is one file, not a folder, and ``own`` tells a file the
    command wrote before (its format, recognisably) from any other; ``owner``: the process id an
    overwrite's new folder is named after (default this process; the processes of a multi-process
    run share process 0's). Every key is optional."""

    default: str | Path | None
    overwrite: bool
    resume: bool
    can_resume: bool
    file: bool
    own: Callable[[Path], bool]
    owner: int


def prepare_out(out: Path | None, *, kind: str, **request: Unpack[OutRequest]) -> Path:
    """The folder to write to under the output policy (module docstring), made ready: ``out`` (else
    ``default``) if it is absent or an empty folder; kept with ``resume``; for the default, the next
    free ``<default>-N``. With ``overwrite`` where ``check_out`` allows it, a new folder beside the
    old one (``.NAME.partial-PID``), which ``finish_out`` swaps in: a kill before then leaves the
    old result as it was. A folder is created and marked as made by ``kind`` (``OUT_MARK``); for a
    ``file`` only its folder is created. What killed writers left beside it is cleaned up first.
    Raises SystemExit naming the path otherwise."""
    chosen = _chosen(out, request.get("default"))
    clean_leftovers(chosen.parent)
    path = check_out(out, kind=kind, **request)
    if request.get("resume"):
        clean_leftovers(path)
    elif path.exists() and not _empty_folder(path):
        if request.get("overwrite"):
            if path.is_dir():
                staged = path.with_name(f".{path.name}.partial-{request.get('owner') or os.getpid()}")
                staged.mkdir(exist_ok=True)
                _STAGED[staged] = path
                path = staged
        else:
            path = next(p for i in itertools.count(2) if not (p := path.with_name(f"{path.name}-{i}")).exists())
            print(f"{chosen} holds an earlier run; this one goes to {path}", flush=True)
    if request.get("file"):
        path.parent.mkdir(parents=True, exist_ok=True)
        return path
    path.mkdir(parents=True, exist_ok=True)
    if out_kind(path) is None:
        write_atomic(path / OUT_MARK, json.dumps({"kind": kind}) + "\n")
    return path


def _empty_folder(path: Path) -> bool:
    """A real folder holding nothing but ``OUT_MARK`` (made by a command that then stopped), or the
    mark being written (the processes of a multi-process run prepare one folder at once)."""
    marks = (OUT_MARK, f".{OUT_MARK}.partial-")
    return path.is_dir() and not path.is_symlink() and all(p.name.startswith(marks) for p in path.iterdir())


def _contents(path: Path) -> str:
    names = sorted(p.name for p in path.iterdir())
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _chosen(out: Path | None, default: str | Path | None) -> Path:
    """``out``, else ``default`` (a command gives one of them)."""
    chosen = out if out is not None else default
    if chosen is None:
        raise ValueError("an output path: --out, or the command's default")
    return Path(chosen)


def check_out(out: Path | None, *, kind: str, **request: Unpack[OutRequest]) -> Path:
    """The refusals of ``prepare_out`` alone, changing nothing: call it before building anything, so
    that a taken ``--out`` is refused at once. ``--overwrite`` replaces only what a command of the
    same ``kind`` made: a folder marked so, holding nothing its mark does not list (no nested run,
    no file another command added), or for a ``file`` output a file ``own`` recognises; never a
    symlink, the working directory, its parents or the home folder. Returns the path ``out`` (else ``default``)."""
    overwrite, resume, file = request.get("overwrite", False), request.get("resume", False), request.get("file", False)
    if resume and overwrite:
        raise SystemExit("error: --resume and --overwrite contradict each other")
    path = _chosen(out, request.get("default"))
    if resume:
        if not path.exists():
            raise SystemExit(f"error: --resume: {path} does not exist, there is no run to continue")
        made_by = out_kind(path)
        if made_by not in (None, kind):
            raise SystemExit(f"error: --resume: {path} holds a {made_by} run, not a {kind} run")
        return path
    if not path.exists() and not path.is_symlink() or _empty_folder(path):
        return path
    if out is None and not overwrite:
        return path  # the default folder is taken: prepare_out moves on to the next free one
    here = Path.cwd().resolve()
    reason: str | None
    if path.is_symlink():
        reason = "is a symbolic link"
    elif path.resolve() in (here, *here.parents, Path.home().resolve()):
        reason = "holds the working directory or the home folder"
    elif file:
        own = request.get("own")
        if not path.is_file():
            reason = "is not a file"
        elif own is None or not own(path):
            reason = f"is not a file a {kind} command wrote"
        else:
            reason = None
    elif not path.is_dir():
        reason = "is a file, not a folder"
    elif (made_by := out_kind(path)) != kind:
        reason = (
            f"holds a {made_by} run, not a {kind} one" if made_by else f"is not a folder a {kind} command made (it holds {_contents(path)})"
        )
    elif overwrite and (foreign := _not_made(path, kind)):
        reason = f"holds {foreign}"
    else:
        reason = None
    if reason is None:
        if overwrite:
            return path
        how = (
            "continue it with --resume or replace it with --overwrite"
            if request.get("can_resume")
            else "replace it with --overwrite or choose another --out"
        )
        raise SystemExit(f"error: {path} already exists; {how}")
    verb = "--overwrite will not replace" if overwrite else "will not write into"
    raise SystemExit(f"error: {verb} {path}: it {reason}; choose another --out")


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """``--quiet`` and ``--no-compile-cache``: the flags of every command that does long work."""
    parser.add_argument("--quiet", action="store_true", help="no progress bars (also when the environment variable CI is true)")
    parser.add_argument(
        "--no-compile-cache",
        action="store_true",
        help=f"do not use JAX's persistent compilation cache (default folder ~/{DEFAULT_CACHE.relative_to(Path.home())}; "
        f"{CACHE_ENV}=DIR moves it, =off turns it off)",
    )


def cache_dir() -> Path | None:
    """The persistent compilation cache's folder: ``$INSTRUCTWORLDS_JAX_CACHE`` if set (None when it
    is ``off``), else ``~/.cache/instructworlds/jax``."""
    value = os.environ.get(CACHE_ENV, "").strip()
    if value.lower() == "off":
        return None
    return Path(value).expanduser() if value else DEFAULT_CACHE


def compilation_cache(enabled: bool = True) -> Path | None:
    """Turn on JAX's persistent compilation cache (``cache_dir``), so that a command run again
    skips the compilations of the previous run; returns the folder (None: off)."""
    folder = cache_dir() if enabled else None
    if folder is not None:
        import jax

        jax.config.update("jax_compilation_cache_dir", str(folder))
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    return folder


@contextlib.contextmanager
def compiling(what: str, silent: bool = False):
    """A line on stderr before a long compilation: what compiles, and how long it took the last time
    on this machine (``~/.cache/instructworlds/compile_times.json``, keyed by ``what``); the time is
    recorded when the block ends."""
    record = DEFAULT_CACHE.parent / "compile_times.json"
    try:
        times = json.loads(record.read_text())
    except (OSError, ValueError):
        times = {}
    if not quiet(silent):
        last = times.get(what)
        when = f"{last:.0f} s the last time" if last is not None else "the first time, this can take minutes on a CPU"
        print(f"compiling {what} ({when}; XLA may log 'Very slow compile?' meanwhile: expected, not an error)", file=sys.stderr, flush=True)
    start = time.perf_counter()
    yield
    times[what] = round(time.perf_counter() - start, 1)
    with contextlib.suppress(OSError):
        record.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(record, json.dumps(times, indent=1, sort_keys=True))


def quiet(requested: bool = False) -> bool:
    """Whether progress bars stay off: ``requested`` (``--quiet``) or ``CI`` set to true / 1."""
    return requested or os.environ.get("CI", "").strip().lower() in ("true", "1")


def progress(
    iterable: Iterable | None = None, *, total: int | None = None, desc: str = "", unit: str = "it", initial: int = 0, silent: bool = False
):
    """A tqdm bar (rate and ETA, on stderr), disabled when ``quiet(silent)``."""
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc=desc, unit=unit, initial=initial, disable=quiet(silent), dynamic_ncols=True, file=sys.stderr)


def parse(
    parser: argparse.ArgumentParser, argv: Sequence[str] | None = None, renamed: Mapping[str, str] | None = None
) -> argparse.Namespace:
    """``parser.parse_args(argv)``, where an old spelling in ``renamed`` (a command's ``RENAMED``) is
    accepted for one release with a deprecation message on stderr (``deprecation.message``); then
    the compilation cache is turned on (``compilation_cache``) unless ``--no-compile-cache``.
    ``args.command_line`` is the command as run, in the current spellings (``python -m baselines
    --seed 1``), for the results it makes. ``renamed`` maps an old flag to its new one
    (``"--worlds": "--env"``), or an old flag and value to new flags, possibly none
    (``"--eval-mode greedy": "--greedy"``, ``"--eval-mode sample": ""``)."""
    renamed = renamed or {}
    old = list(sys.argv[1:] if argv is None else argv)
    new: list[str] = []
    i = 0
    while i < len(old):
        flag, eq, value = old[i].partition("=")
        pair = f"{flag} {value if eq else (old[i + 1] if i + 1 < len(old) else '')}"
        if pair in renamed:
            print(f"warning: {deprecation_message(pair, renamed[pair] or 'the default')}", file=sys.stderr)
            new += renamed[pair].split()
            i += 1 if eq else 2
            continue
        if flag in renamed:
            print(f"warning: {deprecation_message(flag, renamed[flag])}", file=sys.stderr)
            flag = renamed[flag]
        new.append(flag + eq + value)
        i += 1
    plain(parser, INVOKED_AS.get(parser.prog))
    args = parser.parse_args(new)
    args.command_line = f"{parser.prog} {shlex.join(new)}".strip()
    compilation_cache(not getattr(args, "no_compile_cache", False))
    return args


def add_address(parser: argparse.ArgumentParser) -> None:
    """``--host`` and ``--port``: where a command's server listens (the player, the arena)."""
    parser.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port to serve on (default 8000)")


LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
"""Host headers the suite's servers (the player, the arena) always answer."""


def served_hosts(host: str, allowed: Sequence[str] = ()) -> tuple[str, ...]:
    """The Host headers a server bound to ``host`` answers: the loopback names, ``host`` itself
    (unless it is a wildcard address) and ``allowed`` (the names people reach it by); any other
    Host header gets 400, so a page on another site cannot reach it through DNS rebinding."""
    own = () if host in (*LOOPBACK_HOSTS, "0.0.0.0", "::") else (host,)
    return tuple(dict.fromkeys((*LOOPBACK_HOSTS, *own, *allowed)))


def host_name(header: str) -> str:
    """The name of a Host header without its port: ``127.0.0.1:8000`` -> ``127.0.0.1``,
    ``[::1]:8000`` -> ``::1``."""
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else ""
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class TrustedHosts:
    """ASGI middleware of the suite's servers: 400 for a request whose Host header names none of
    ``hosts`` (``served_hosts``; IPv6 literals in brackets understood)."""

    def __init__(self, app, hosts: Sequence[str]):
        self.app, self.hosts = app, {h.lower() for h in hosts}

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            header = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
            if host_name(header).lower() not in self.hosts:
                await send({"type": "http.response.start", "status": 400, "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
                await send({"type": "http.response.body", "body": b"Invalid host header"})
                return
        await self.app(scope, receive, send)


def without_surrogates(text: str) -> str:
    """``text`` with every lone surrogate (which JSON's ``\\ud800`` escapes allow and no response
    can carry as UTF-8) replaced by U+FFFD."""
    return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)


def plain_validation_errors(app) -> None:
    """Make a FastAPI ``app`` answer a request that fails validation with 422 and where and what
    failed, never the input itself (which may hold text no response can carry: a lone surrogate)."""
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse

    @app.exception_handler(RequestValidationError)
    async def invalid(request, error: RequestValidationError):
        problems = [
            {"loc": [without_surrogates(str(part)) for part in e.get("loc", ())], "msg": without_surrogates(str(e.get("msg", "invalid")))}
            for e in error.errors()
        ]
        return JSONResponse({"detail": problems}, status_code=422)


INVOKED_AS: dict[str, str] = {}
"""``python -m MODULE`` -> the name the user typed instead (``instructworlds train``), filled by the
``instructworlds`` console script so that usage and errors name the command as invoked."""


def suggestion(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'X'?)`` for the choice closest to ``word``, or ``""`` when none is close."""
    close = difflib.get_close_matches(word, [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


_INVALID_CHOICE = re.compile(r"invalid choice: '?(?P<word>[^'(]*?)'? \(choose from (?P<choices>.*)\)$")


def plain(parser: argparse.ArgumentParser, prog: str | None = None) -> None:
    """Make ``parser`` and its subcommands' parsers speak plainly: help without reST markup (a
    docstring's double backticks), and a bad command line reported as one line, a ``did you mean``
    for a mistyped choice and a pointer to ``--help`` instead of the usage block; ``prog`` renames
    the command (and the subcommands under it) as the user invoked it."""
    if prog is not None and prog != parser.prog:
        old = parser.prog
        for sub in _parsers(parser):
            sub.prog = prog + sub.prog[len(old) :] if sub.prog.startswith(old) else sub.prog
    for sub in _parsers(parser):
        sub.description = sub.description and sub.description.replace("``", "")
        for action in sub._actions:
            action.help = action.help and action.help.replace("``", "")

        def error(message: str, sub: argparse.ArgumentParser = sub) -> None:
            found = _INVALID_CHOICE.search(message)
            if found:
                choices = [c.strip().strip("'") for c in found["choices"].split(",")]
                message = f"{message}{suggestion(found['word'], choices)}"
            sub.exit(2, f"{sub.prog}: error: {message}\n(see {sub.prog} --help)\n")

        sub.error = error  # type: ignore[method-assign,assignment]  # argparse's documented way to change its messages


def subcommands(parser: argparse.ArgumentParser, name: str = "") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """(name, parser) of ``parser`` and of every subcommand's parser under it, depth first; a
    subcommand's name is its parent's followed by its own (``episodes record``)."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, subparser in action.choices.items():
                yield from subcommands(subparser, f"{name} {sub}".strip())


def _parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """``parser`` and every subcommand's parser under it (an alias's parser once)."""
    return list(dict.fromkeys(p for _, p in subcommands(parser)))


class Bar:
    """A progress bar fed from host callbacks of a jitted loop (``jax.debug.callback``): the bar
    opens at the first ``advance`` (a resumed run starts where it left off) and closes with
    ``close``."""

    def __init__(self, total: int, unit: str, desc: str, silent: bool = False):
        self.total, self.unit, self.desc, self.silent = total, unit, desc, silent
        self._bar: Any = None  # a tqdm bar once the first update comes

    def advance(self, done: int, status: str = "") -> None:
        """Move the bar to ``done`` of ``total`` and show ``status`` beside it."""
        if self._bar is None:
            self._bar = progress(total=self.total, initial=done - 1, unit=self.unit, desc=self.desc, silent=self.silent)
        self._bar.update(done - self._bar.n)
        if status:
            self._bar.set_postfix_str(status, refresh=False)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def refuse_existing(paths: Iterable[Path], overwrite: bool, own: Callable[[Path], bool] | None = None) -> None:
    """The output policy for commands that write named files into a shared folder (the
    benchmarks): SystemExit naming the first of ``paths`` that exists, unless ``overwrite``; with
    ``own``, also the first ``.json`` one ``own`` does not recognise as the command's."""
    existing = [p for p in paths if Path(p).exists()]
    foreign = [p for p in existing if own is not None and Path(p).suffix == ".json" and not own(Path(p))]
    if foreign:
        raise SystemExit(f"error: --overwrite will not replace {foreign[0]}: it is not a file this command wrote; choose another --out")
    if existing and not overwrite:
        more = f" (and {len(existing) - 1} more)" if len(existing) > 1 else ""
        raise SystemExit(f"error: {existing[0]} already exists{more}; replace it with --overwrite or choose another --out")


def comparison_out(runs: Sequence[Path], out: Path, overwrite: bool, kind: str) -> None:
    """The checks of a ``compare`` command before it draws: SystemExit naming the runs without a
    ``metrics.jsonl`` (``kind`` names the run folders it takes) or an existing ``out`` (unless
    ``overwrite``); then ``out``'s folder is made."""
    missing = [str(Path(run) / "metrics.jsonl") for run in runs if not (Path(run) / "metrics.jsonl").is_file()]
    if missing:
        raise SystemExit(f"error: {', '.join(missing)} does not exist; compare takes {kind} run folders")
    refuse_existing([out], overwrite)
    Path(out).parent.mkdir(parents=True, exist_ok=True)


def run(
    parser: argparse.ArgumentParser,
    command,
    argv: Sequence[str] | None = None,
    renamed: Mapping[str, str] | None = None,
    errors: tuple[type[Exception], ...] = (ValueError, OSError),
) -> None:
    """A command's ``main``: parse ``argv`` (``parse``, old spellings accepted), then
    ``command(args)``; one of ``errors`` (bad input: the data, file and setting errors of the suite
    are ValueErrors naming what was wrong) ends the command with one ``error:`` line, not a
    traceback."""
    args = parse(parser, argv, renamed)
    try:
        command(args)
    except errors as error:
        sys.exit(f"error: {error}")


def evaluation_folder(out: Path | None, run: Path, files: Sequence[str], overwrite: bool) -> Path:
    """Where the evaluation of a run folder writes ``files``: ``out``, else
    ``runs/evaluations/<run folder's name>`` (a run folder may be a committed model, which an
    evaluation must not change); SystemExit if one of the files exists there, unless ``overwrite``."""
    folder = Path(out) if out is not None else Path("runs") / "evaluations" / Path(run).resolve().name
    refuse_existing([folder / name for name in files], overwrite)
    return folder
