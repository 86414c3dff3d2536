"""The headless Chromium of the browser tests and the benchmarks: where it is, how it starts.

Debian's ``chromium`` (``make chromium`` installs it), never a browser Playwright downloads.
"""

from __future__ import annotations

import shutil

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
