"""One client for OpenAI-compatible ``/chat/completions`` endpoints, over the standard library.

Used by PPO-T+'s chat planner (``baselines.planner.ChatPlanner``) and the language-model agent
(``baselines.llm_agent``). Rules that keep the API key safe: the key (given, or read from an
environment variable, never logged) goes only to the configured host; a host other than the
loopback (127.0.0.1, ::1, localhost) must be reached over https unless ``allow_insecure_http``
(``--allow-insecure-http``) says otherwise; redirects are refused, not followed. A timeout per
request; bounded exponential backoff on 429 / 5xx, network errors and malformed replies,
honouring ``Retry-After``.
"""

from __future__ import annotations

import ipaddress
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field


class ChatError(RuntimeError):
    """The model server gave no usable reply (after the retries)."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Credentials go only to the configured host: redirects are refused, not followed."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        raise urllib.error.HTTPError(
            req.full_url, code, f"redirect to {newurl} refused (credentials stay with the configured host)", headers, fp
        )


_NO_REDIRECTS = urllib.request.build_opener(_NoRedirect)


def loopback(host: str) -> bool:
    """Whether ``host`` is this machine (localhost, 127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass
class ChatClient:
    """A chat-completions client. ``base_url`` ends before ``/chat/completions`` (e.g.
    ``http://127.0.0.1:8000/v1``); the key is ``api_key`` or the value of ``api_key_env``.
    ``max_tokens`` None leaves the server's default. Raises ValueError at construction for a URL
    that is not http(s) with a host, or plain http to a host off the loopback unless
    ``allow_insecure_http``."""

    base_url: str
    model: str
    api_key_env: str | None = "OPENAI_API_KEY"
    api_key: str | None = field(default=None, repr=False)
    timeout_s: float = 60.0
    max_retries: int = 4
    backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    temperature: float = 0.0
    max_tokens: int | None = 512
    allow_insecure_http: bool = False
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)

    def __post_init__(self):
        parts = urllib.parse.urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"URL {self.base_url!r}: expected http(s)://host[:port]/path")
        if parts.scheme != "https" and not loopback(parts.hostname) and not self.allow_insecure_http:
            raise ValueError(
                f"URL {self.base_url!r}: a non-loopback host must use https (the API key would travel in clear; "
                "--allow-insecure-http permits it)"
            )
        self.url = self.base_url.rstrip("/") + "/chat/completions"

    def _headers(self) -> dict[str, str]:
        key = self.api_key or (os.environ.get(self.api_key_env) if self.api_key_env else None)
        return {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {key}"} if key else {})

    def chat(self, messages: list[dict[str, str]]) -> dict:
        """``{"text", "usage", "attempts"}`` of one completion; raises ``ChatError``."""
        request_body = {"model": self.model, "messages": messages, "temperature": self.temperature}
        if self.max_tokens is not None:
            request_body["max_tokens"] = self.max_tokens
        body = json.dumps(request_body).encode()
        last = ""
        for attempt in range(self.max_retries + 1):
            request = urllib.request.Request(self.url, data=body, headers=self._headers(), method="POST")
            wait = min(self.max_backoff_s, self.backoff_s * 2**attempt)
            try:
                with _NO_REDIRECTS.open(request, timeout=self.timeout_s) as response:
                    reply = json.loads(response.read().decode())
                text = reply["choices"][0]["message"]["content"]
                if not isinstance(text, str):
                    raise TypeError("content is not a string")
                return {"text": text, "usage": reply.get("usage", {}), "attempts": attempt + 1}
            except urllib.error.HTTPError as error:
                last = f"HTTP {error.code}"
                if error.code != 429 and error.code < 500:
                    detail = error.msg if 300 <= error.code < 400 else error.read()[:200].decode(errors="replace")
                    raise ChatError(f"{self.url}: {last}: {detail}") from None
                retry_after = error.headers.get("Retry-After")
                if retry_after and retry_after.strip().isdigit():
                    wait = min(self.max_backoff_s, float(retry_after))
            except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
                last = f"network error: {getattr(error, 'reason', error)}"
            except (ValueError, KeyError, IndexError, TypeError) as error:
                last = f"malformed reply: {type(error).__name__}: {error}"
            if attempt < self.max_retries:
                self.sleep(wait)
        raise ChatError(f"{self.url}: no reply after {self.max_retries + 1} attempts ({last})")
