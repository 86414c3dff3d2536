"""The headless Chromium of the browser tests and the benchmarks: where it is, how it starts.

Debian's ``chromium`` (``make chromium`` installs it), never a browser Playwright downloads.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from typing import Any

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

#: No sandbox or GPU (containers), no network traffic of its own (offline machines), and
#: file:// pages may load the files beside them (the built site is opened from disk).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--allow-file-access-from-files",
]

#: What an offline page may load: its own files and what it makes in memory.
LOCAL_URL_PREFIXES = ("file://", "data:", "blob:", "about:")


def keep_offline(page: Any, on_blocked: Callable[[str], None] | None = None) -> None:
    """Let ``page`` load only local URLs (:data:`LOCAL_URL_PREFIXES`) and abort every other
    request, passing its URL to ``on_blocked`` when given (the browser tests record them)."""

    def route(route: Any, request: Any) -> None:
        if request.url.startswith(LOCAL_URL_PREFIXES):
            route.continue_()
            return
        if on_blocked is not None:
            on_blocked(request.url)
        route.abort()

    page.route("**/*", route)
