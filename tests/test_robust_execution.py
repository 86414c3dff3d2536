"""The build's execution against a kernel that stops answering (``src/ropebook/ext/robust_execution.py``).

A lost reply is simulated by making nbclient's wait for the ``execute_reply`` hang: the kernel
runs the cell and goes idle, no reply arrives, exactly the stall seen in ``make test``. The
watchdog must end the wait within its stall time (not the cell timeout), and the notebook must
then run once more in a fresh kernel and pass.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from ropebook.ext import robust_execution

ROOT = Path(__file__).resolve().parents[1]


def _notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("print(6 * 7)")]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


def _hang_first(monkeypatch, times: int) -> list[int]:
    """nbclient's reply wait hangs for the first ``times`` cells run, then works."""
    original = NotebookClient._async_poll_for_reply
    calls: list[int] = []

    async def poll(self, *args, **kwargs):
        calls.append(1)
        if len(calls) <= times:
            await asyncio.sleep(3600)
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(NotebookClient, "_async_poll_for_reply", poll)
    monkeypatch.setattr(robust_execution.WatchedClient, "stall_seconds", 3)
    return calls


def test_a_notebook_runs_unchanged_with_its_kernel_on_unix_sockets(monkeypatch, tmp_path):
    transports = []
    original = robust_execution.IpcKernelManager.write_connection_file

    def record(self, **kwargs):
        transports.append(self.transport)
        return original(self, **kwargs)

    monkeypatch.setattr(robust_execution.IpcKernelManager, "write_connection_file", record)
    nb = _notebook()
    result = robust_execution.execute_with_retry(nb, str(tmp_path), 60, False)
    assert result.err is None
    assert nb.cells[0].outputs[0]["text"] == "42\n"
    assert transports == ["ipc"]
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no socket left beside the notebook


def test_a_lost_reply_fails_in_the_stall_time_not_the_cell_timeout(monkeypatch, tmp_path):
    _hang_first(monkeypatch, times=99)
    start = time.monotonic()
    with pytest.raises(robust_execution.KernelStalled, match="went idle without a reply"):
        robust_execution.WatchedClient(
            _notebook(), resources={"metadata": {"path": str(tmp_path)}}, timeout=600
        ).execute()
    assert time.monotonic() - start < 60


def test_a_stalled_notebook_runs_again_in_a_fresh_kernel(monkeypatch, tmp_path):
    calls = _hang_first(monkeypatch, times=1)
    nb = _notebook()
    result = robust_execution.execute_with_retry(nb, str(tmp_path), 600, False)
    assert result.err is None and len(calls) == 2
    assert [o["text"] for o in nb.cells[0].outputs] == ["42\n"]


def test_two_stalls_fail_the_build_with_the_reason(monkeypatch, tmp_path):
    _hang_first(monkeypatch, times=2)
    result = robust_execution.execute_with_retry(_notebook(), str(tmp_path), 600, False)
    assert "KernelStalled" in result.exc_string and "print(6 * 7)" in str(result.err)
