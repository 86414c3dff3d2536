"""What every part of the benchmark shares: the result rows, the timer, the machine's description.

Timings are medians over rounds in which every candidate of a group runs once, in turn
(round-robin), after warm-up calls; a ratio is always between two medians of the same group,
measured in the same run, so that slow phases of a shared machine affect both sides.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Row:
    """One line of the results table.

    ``value`` is in ``unit`` (``"ms"``, ``"s"``, or ``"x"`` for multiples of the input's size);
    ``ratios`` maps a name (``"clone"``, ``"transformers"``...) to value / that reference's value;
    ``met`` is ``None`` for rows without a target.
    """

    part: str
    name: str
    value: float | None
    unit: str = "ms"
    ratios: dict[str, float] = field(default_factory=dict)
    target: str = ""
    met: bool | None = None
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def measure(
    candidates: dict[str, Callable[[], Any]], rounds: int, warmup: int = 2
) -> dict[str, float]:
    """Median wall time in seconds of each candidate, timed round-robin ``rounds`` times."""
    for run in candidates.values():
        for _ in range(warmup):
            run()
    times: dict[str, list[float]] = {name: [] for name in candidates}
    for _ in range(rounds):
        for name, run in candidates.items():
            start = time.perf_counter()
            result = run()
            times[name].append(time.perf_counter() - start)
            del result
    return {name: statistics.median(values) for name, values in times.items()}


def median_time(run: Callable[[], Any], min_rounds: int = 7, min_seconds: float = 0.2) -> float:
    """Median wall time in seconds of ``run``: at least ``min_rounds`` calls and ``min_seconds``."""
    run()
    times: list[float] = []
    began = time.perf_counter()
    while len(times) < min_rounds or time.perf_counter() - began < min_seconds:
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
        if len(times) >= 1000:
            break
    return statistics.median(times)


def cpu_pressure() -> str:
    """The load average and the share of time some task waited for a CPU (Linux PSI, 10 s)."""
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    try:
        some = Path("/proc/pressure/cpu").read_text().splitlines()[0]
        waiting = some.split()[1].split("=")[1]
    except (OSError, IndexError):
        waiting = "n/a"
    return f"load {load}; CPU pressure (some, avg10) {waiting}%"


def machine() -> dict[str, Any]:
    """CPU model, cores, caches, memory and the versions that matter to the numbers."""
    import numpy
    import torch
    import transformers

    info: dict[str, Any] = {"platform": platform.platform(), "python": platform.python_version()}
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    fields: dict[str, str] = {}
    for line in cpuinfo.splitlines():
        if ":" in line:
            key, value = (part.strip() for part in line.split(":", 1))
            fields.setdefault(key, value)
    info["cpu"] = fields.get("model name", "unknown")
    info["cpu_family_model_stepping"] = "/".join(
        fields.get(k, "?") for k in ("cpu family", "model", "stepping")
    )
    flags = fields.get("flags", "").split()
    info["simd"] = [f for f in ("avx2", "fma", "avx512f") if f in flags]
    info["hypervisor"] = "hypervisor" in flags
    info["cores"] = os.cpu_count()
    caches = {}
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            level = (index / "level").read_text().strip()
            kind = (index / "type").read_text().strip()
            size = (index / "size").read_text().strip()
        except OSError:
            continue
        if kind != "Instruction":
            caches[f"L{level}"] = size
    info["caches_per_core"] = caches
    meminfo = Path("/proc/meminfo").read_text() if Path("/proc/meminfo").exists() else ""
    for line in meminfo.splitlines():
        if line.startswith("MemTotal"):
            info["memory_gib"] = round(int(line.split()[1]) / 2**20, 1)
    info["torch"] = torch.__version__
    info["torch_threads"] = torch.get_num_threads()
    info["numpy"] = numpy.__version__
    info["transformers"] = transformers.__version__
    return info


def fmt_value(row: Row) -> str:
    if row.value is None:
        return "n/a"
    if row.unit == "ms":
        return f"{row.value:.2f} ms" if row.value < 10 else f"{row.value:.1f} ms"
    if row.unit == "s":
        return f"{row.value:.1f} s"
    if row.unit == "x":
        return f"{row.value:.2f}× x"
    return f"{row.value:.3g} {row.unit}"


def fmt_ratios(row: Row) -> str:
    return ", ".join(f"{value:.2f}× {name}" for name, value in row.ratios.items())


def fmt_met(row: Row) -> str:
    return {True: "yes", False: "NO", None: "-"}[row.met]


def table(rows: list[Row]) -> str:
    """The rows as a plain-text table, one section per part."""
    headers = ("measurement", "median", "ratio", "target", "met")
    cells = [(r.name, fmt_value(r), fmt_ratios(r), r.target, fmt_met(r)) for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers)]

    def line(values: tuple[str, ...]) -> str:
        return "  ".join(
            v.ljust(w) if i != 1 else v.rjust(w)
            for i, (v, w) in enumerate(zip(values, widths, strict=True))
        )

    out, part = [line(headers), "  ".join("-" * w for w in widths)], None
    for row, values in zip(rows, cells, strict=True):
        if row.part != part:
            part = row.part
            out.append(f"[{part}]")
        out.append(line(values))
        if row.note:
            out.append(" " * 4 + row.note)
    return "\n".join(out)


def markdown_table(rows: list[Row]) -> str:
    """The rows as a Markdown table (for benchmarks/README.md)."""
    out = ["| part | measurement | median | ratio | target | met |", "|---|---|---|---|---|---|"]
    for r in rows:
        name = r.name.replace("|", "\\|")
        out.append(
            f"| {r.part} | {name} | {fmt_value(r)} | {fmt_ratios(r)} | {r.target} | {fmt_met(r)} |"
        )
    return "\n".join(out)
