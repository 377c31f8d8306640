"""Local servers for the tests: a free port on 127.0.0.1, a command-line server started as a
subprocess and waited for until it answers, and a scripted chat-completions server in a thread."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def chromium() -> str | None:
    """The chromium executable the browser tests drive through Playwright (``.ci/run`` installs
    Debian's), or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    return None


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


class Scripted:
    """A chat-completions server answering from a script: each entry is (status, body, headers,
    delay_s) or a callable(request_json) -> reply text."""

    def __init__(self, script):
        self.script, self.requests = list(script), []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                entry = outer.script.pop(0) if len(outer.script) > 1 else outer.script[0]
                if callable(entry):
                    entry = (
                        200,
                        {"choices": [{"message": {"role": "assistant", "content": entry(body)}}], "usage": {"total_tokens": 7}},
                        {},
                        0,
                    )
                status, reply, headers, delay = entry
                time.sleep(delay)
                data = reply.encode() if isinstance(reply, str) else json.dumps(reply).encode()
                try:
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self):
        self.server.shutdown()
