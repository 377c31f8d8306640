"""Local servers for the tests: a free port on 127.0.0.1, a command-line server started as a
subprocess and waited for until it answers."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(arguments: Callable[[int], list[str]], probe: str = "/", timeout: float = 60.0) -> tuple[subprocess.Popen, str]:
    """``python -m <arguments(port)>`` on a free port, once ``GET probe`` answers: (process, base
    URL). Fails with the server's output if it exits first, or after ``timeout`` seconds."""
    import httpx

    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", *arguments(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + timeout
    while True:
        try:
            httpx.get(url + probe, timeout=2)
            return process, url
        except httpx.TransportError:
            if process.poll() is not None:
                raise AssertionError(f"the server exited: {process.stdout.read()[-2000:]}") from None
            assert time.monotonic() < deadline, f"the server did not answer within {timeout:.0f} s"
            time.sleep(0.2)
