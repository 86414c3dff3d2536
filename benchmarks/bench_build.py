"""Part 3: wall time of ``make book`` from a clean ``_build`` and of ``make test``."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from bench_common import ROOT, Row

BOOK_TARGET_S = 180.0
TEST_TARGET_S = 600.0


def _run_make(target: str) -> tuple[float, int, str]:
    """Run ``make target`` in the repository; (seconds, exit status, path of the full log)."""
    log = Path(tempfile.mkstemp(prefix=f"ropelab-bench-make-{target}-", suffix=".log")[1])
    start = time.perf_counter()
    with log.open("w") as handle:
        status = subprocess.run(
            ["make", target], cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT, check=False
        ).returncode
    return time.perf_counter() - start, status, str(log)


def _tail(log: str, lines: int = 3) -> str:
    text = Path(log).read_text(errors="replace").strip().splitlines()
    return " | ".join(text[-lines:])


def book_row() -> Row:
    """``make book`` after removing ``_build``: every chapter notebook is executed."""
    shutil.rmtree(ROOT / "_build", ignore_errors=True)
    seconds, status, log = _run_make("book")
    note = f"exit status {status}; log {log}"
    if status:
        note += f"; last lines: {_tail(log)}"
    return Row(
        "3 build and tests",
        "make book from a clean _build (all notebooks executed)",
        seconds,
        "s",
        target=f"<{BOOK_TARGET_S:g} s",
        met=status == 0 and seconds < BOOK_TARGET_S,
        note=note,
    )


def test_row() -> Row:
    """``make test``: ruff, the book again, then every test (package, nbval, Chromium)."""
    seconds, status, log = _run_make("test")
    text = Path(log).read_text(errors="replace")
    summary = re.findall(r"^=+ (.*(?:passed|failed|error).*) =+$", text, flags=re.MULTILINE)
    note = f"exit status {status}; pytest: {summary[-1] if summary else 'no summary'}; log {log}"
    if status and not summary:
        note += f"; last lines: {_tail(log)}"
    return Row(
        "3 build and tests",
        "make test (ruff, make book again, pytest incl. nbval and Chromium)",
        seconds,
        "s",
        target=f"<{TEST_TARGET_S:g} s",
        met=status == 0 and seconds < TEST_TARGET_S,
        note=note,
    )
