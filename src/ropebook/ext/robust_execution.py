"""The build's notebook execution, made robust against a kernel that stops answering (issue 32).

What was seen: ``jupyter-book build`` waited 606 s on chapter 0 while its kernel sat idle; the
heartbeat answered, no ``execute_reply`` came, and the build went on only when the cell's
600-s timeout ran out. That is the signature of a request the kernel never read: ipykernel 7
answers shell requests from a separate shell-channel thread and, up to the fix of
ipython/ipykernel#1529 (reported again for Linux as ipykernel#1554), a reply sent raw on the
shell ROUTER could consume the socket's edge-triggered wake-up, so a request arriving in that
window stayed unread with the kernel idle (0 % CPU) and its heartbeat thread still answering.
A loaded machine widens the window (the reply and the next request overlap). ipykernel 7.4.0,
which the build installs, carries that fix; any such hang left (in the kernel, ZMQ or a lost
reply) looks the same from the client, so the build guards against the signature itself:

* **a stall watchdog**: a cell whose ``execute_request`` the kernel has not started (no
  ``busy``/``execute_input`` on IOPub for it) within ``STALL_SECONDS``, or that went idle
  without a reply for as long, is a stall, not a slow cell: the run stops at once with
  ``KernelStalled`` naming the cell;
* **one retry**: a notebook whose run stalled, or whose kernel died or did not start (nbclient's
  ``startup_timeout`` is set to ``STARTUP_SECONDS``), runs once more in a fresh kernel, with a
  log line saying so; a second failure fails the build loudly (``-W``);
* **IPC transport**: the kernel talks over Unix sockets in Jupyter's runtime folder, not TCP
  ports on 127.0.0.1. jupyter_client picks TCP ports by binding port 0 and releasing it, so on
  a machine where several builds and test runs start kernels at once another process can take
  a port before the kernel binds it; sockets named per kernel cannot collide (and ipykernel
  7.4 stops warning that the kernel runs unencrypted over TCP);
* the per-cell ``execute.timeout`` of ``_config.yml`` still bounds a cell that really runs.

Only myst-nb's direct execution (``execute_notebooks: force``, what ``make book`` uses) is
wrapped; nothing changes in what a notebook computes.
"""

from __future__ import annotations

import asyncio
import copy
import traceback
import uuid
from pathlib import Path
from time import monotonic
from typing import Any

from jupyter_client import AsyncKernelManager
from jupyter_core.paths import jupyter_runtime_dir
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from sphinx.application import Sphinx
from sphinx.util import logging
from traitlets import default

LOGGER = logging.getLogger(__name__)

#: A request the kernel has not begun after this long (it publishes ``busy`` within
#: milliseconds when it reads one), or an idle kernel with no reply after this long, is a stall.
STALL_SECONDS = 60
#: How long a kernel may take to start and answer ``kernel_info`` (nbclient's default is 60).
STARTUP_SECONDS = 120
#: Runs of a notebook: the first and one retry.
ATTEMPTS = 2


class IpcKernelManager(AsyncKernelManager):
    """jupyter_client's kernel manager with the kernel on Unix sockets (``transport="ipc"``)."""

    @default("transport")
    def _default_transport(self) -> str:
        return "ipc"

    @default("ip")
    def _default_ip(self) -> str:
        # An absolute prefix: the default is relative ("kernel-ipc"), and the kernel runs in the
        # notebook's folder while the client runs in the build's, so both would miss each other.
        runtime = Path(jupyter_runtime_dir())
        runtime.mkdir(parents=True, exist_ok=True)
        return str(runtime / f"ropelab-kernel-{uuid.uuid4().hex[:12]}")


class KernelStalled(CellTimeoutError):
    """The kernel stopped answering a cell (it never started it, or never replied)."""


class WatchedClient(NotebookClient):
    """nbclient's client with a stall watchdog on each cell's reply."""

    stall_seconds: float = STALL_SECONDS

    def process_message(self, msg: dict, cell: Any, cell_index: int) -> Any:
        parent = msg.get("parent_header", {}).get("msg_id")
        state = msg.get("content", {}).get("execution_state")
        seen = self.__dict__.setdefault("_ropelab_seen", {})
        if msg.get("msg_type") == "execute_input" or state == "busy":
            seen.setdefault(parent, {})["started"] = monotonic()
        if state == "idle":
            seen.setdefault(parent, {})["idle"] = monotonic()
        return super().process_message(msg, cell, cell_index)

    async def _async_poll_for_reply(
        self,
        msg_id: str,
        cell: Any,
        timeout: int | None,
        task_poll_output_msg: Any,
        task_poll_kernel_alive: Any,
    ) -> dict:
        poll = asyncio.ensure_future(
            super()._async_poll_for_reply(
                msg_id, cell, timeout, task_poll_output_msg, task_poll_kernel_alive
            )
        )
        sent = monotonic()
        seen = self.__dict__.setdefault("_ropelab_seen", {})
        while True:
            done, _ = await asyncio.wait({poll}, timeout=1.0)
            if done:
                return poll.result()
            now = monotonic()
            state = seen.get(msg_id, {})
            never_started = "started" not in state and now - sent > self.stall_seconds
            idle_no_reply = "idle" in state and now - state["idle"] > self.stall_seconds
            if never_started or idle_no_reply:
                for task in (poll, task_poll_output_msg, task_poll_kernel_alive):
                    task.cancel()
                what = "never started it" if never_started else "went idle without a reply"
                raise KernelStalled(
                    f"the kernel {what} for {self.stall_seconds:.0f} s (a stalled kernel, "
                    f"not a slow cell):\n{''.join(cell.get('source', ''))[:500]}"
                )


def execute_with_retry(
    nb: Any,
    cwd: str | None,
    timeout: int | None,
    allow_errors: bool,
    meta_override: bool = True,
    record_timing: bool = False,
    **kwargs: Any,
) -> Any:
    """``jupyter_cache``'s ``single_nb_execution`` with the watchdog and one retry in a fresh
    kernel after a stall, a dead kernel or a kernel that did not start."""
    from jupyter_cache.executors.utils import ExecutionResult
    from nbclient.exceptions import CellExecutionError

    if meta_override and "execution" in nb.metadata:
        timeout = nb.metadata.execution.get("timeout", timeout)
        allow_errors = nb.metadata.execution.get("allow_errors", allow_errors)
    pristine = copy.deepcopy(nb)
    start = monotonic()
    error: BaseException | None = None
    exc_string = None
    for attempt in range(1, ATTEMPTS + 1):
        if attempt > 1:
            nb.clear()
            nb.update(copy.deepcopy(pristine))
        error = exc_string = None
        try:
            WatchedClient(
                nb,
                resources={"metadata": {"path": cwd}} if cwd else {},
                timeout=timeout,
                allow_errors=allow_errors,
                record_timing=record_timing,
                startup_timeout=STARTUP_SECONDS,
                **{"kernel_manager_class": IpcKernelManager, **kwargs},
            ).execute()
            break
        except (KernelStalled, DeadKernelError, RuntimeError) as err:
            error, exc_string = err, traceback.format_exc()
            if attempt < ATTEMPTS:
                LOGGER.info(
                    f"robust_execution: {type(err).__name__} ({str(err).splitlines()[0]}); "
                    f"running the notebook again in a fresh kernel (attempt {attempt + 1})"
                )
        except (CellExecutionError, CellTimeoutError) as err:
            error, exc_string = err, traceback.format_exc()
            break
    if error is not None and not isinstance(error, (CellExecutionError, CellTimeoutError)):
        # myst-nb reports only these two as a failed execution; wrap the others so the build
        # fails with the reason instead of crashing without it.
        error = CellTimeoutError(f"{type(error).__name__}: {error}")
    return ExecutionResult(nb, cwd, monotonic() - start, error, exc_string)


def setup(app: Sphinx) -> dict:
    from myst_nb.core.execute import direct

    direct.single_nb_execution = execute_with_retry
    return {"parallel_read_safe": True, "parallel_write_safe": True}
