"""``make bench``: speed and memory of ropelab's RoPE kernels, widgets, book build and tests.

Prints a table (measurement, median, ratios, target, met) and writes ``benchmarks/results.json``.
Parts, in the order they run (``--parts`` picks some):

* ``torch``, ``numpy``, ``long``: applying RoPE with cached cos/sin, against transformers and
  against a copy of ``x``; the long sequence also checks that the cos/sin cache and the float64
  angles scale linearly (bench_kernels.py);
* ``compile``: ``torch.compile`` of the plain formula, cold compile and steady state;
* ``memory``: peak memory of one call, in a fresh process (bench_memory.py);
* ``widgets``: the Python widgets' data functions (bench_widgets.py);
* ``book``: ``make book`` from a clean ``_build`` (bench_build.py);
* ``browser``: the explorables on the pages just built, in headless Chromium;
* ``test``: ``make test``;
* ``chunks`` (only when named): the chunk sizes of ``ropelab.core`` against each other.

Run from the repository root: ``.venv/bin/python benchmarks/run.py [--parts torch,numpy]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from bench_common import ROOT, Row, cpu_pressure, machine, markdown_table, table

PARTS = ("torch", "numpy", "long", "compile", "memory", "widgets", "book", "browser", "test")
EXTRA_PARTS = ("chunks",)  # run only when named
BENCH_TARGET_S = 300.0


def run_part(name: str, rounds: int) -> list[Row]:
    import bench_build as build
    import bench_kernels as kernels
    import bench_widgets as widgets

    if name == "torch":
        return kernels.torch_rows(rounds)
    if name == "numpy":
        return kernels.numpy_rows(rounds)
    if name == "long":
        return kernels.long_rows(rounds)
    if name == "compile":
        return kernels.compile_rows(rounds)
    if name == "memory":
        return kernels.memory_rows()
    if name == "widgets":
        return widgets.python_rows()
    if name == "book":
        return [build.book_row()]
    if name == "browser":
        return widgets.browser_rows(ROOT / "_build" / "html")
    if name == "test":
        return [build.test_row()]
    if name == "chunks":
        return kernels.chunk_rows(rounds)
    raise ValueError(f"unknown part {name!r}; the parts are {', '.join(PARTS)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--parts",
        default=",".join(PARTS),
        help=f"comma-separated, from {', '.join(PARTS + EXTRA_PARTS)} (default: all but chunks)",
    )
    parser.add_argument("--rounds", type=int, default=11, help="timed rounds per kernel group")
    parser.add_argument("--json", default=str(ROOT / "benchmarks" / "results.json"))
    parser.add_argument("--markdown", action="store_true", help="also print a Markdown table")
    args = parser.parse_args(argv)
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = sorted(set(parts) - set(PARTS + EXTRA_PARTS))
    if unknown:
        parser.error(f"unknown parts {unknown}; choose from {', '.join(PARTS + EXTRA_PARTS)}")

    info = machine()
    print("machine:", json.dumps(info), flush=True)
    began = time.perf_counter()
    rows: list[Row] = []
    log = []
    for part in [p for p in PARTS + EXTRA_PARTS if p in parts]:
        before = cpu_pressure()
        start = time.perf_counter()
        print(f"-- {part} ({before})", flush=True)
        part_rows = run_part(part, args.rounds)
        seconds = time.perf_counter() - start
        after = cpu_pressure()
        log.append({"part": part, "seconds": round(seconds, 1), "before": before, "after": after})
        print(f"   {part}: {seconds:.1f} s ({after})", flush=True)
        rows += part_rows
    total = time.perf_counter() - began
    full = set(PARTS) <= set(parts)
    rows.append(
        Row(
            "total",
            "make bench wall time" + ("" if full else f" (parts: {', '.join(parts)})"),
            total,
            "s",
            target=f"<{BENCH_TARGET_S:g} s",
            met=total < BENCH_TARGET_S,
            note="; ".join(f"{item['part']} {item['seconds']:.0f} s" for item in log),
        )
    )
    test_seconds = sum(item["seconds"] for item in log if item["part"] == "test")
    if test_seconds:
        rows.append(
            Row(
                "total",
                "make bench wall time without the make-test part",
                total - test_seconds,
                "s",
                note="make test rebuilds the book and runs the whole suite: "
                f"{test_seconds:.0f} s of the total",
            )
        )
    rows.sort(key=lambda r: r.part[0] if r.part[0].isdigit() else "9" if r.part == "total" else "8")
    print()
    print(table(rows))
    if args.markdown:
        print()
        print(markdown_table(rows))
    unmet = [f"[{r.part}] {r.name}" for r in rows if r.met is False]
    print()
    print(f"{len(unmet)} target(s) not met" + (": " + "; ".join(unmet) if unmet else ""))
    results = {
        "command": "make bench  (.venv/bin/python benchmarks/run.py "
        + " ".join(argv or sys.argv[1:])
        + ")",
        "machine": info,
        "parts": log,
        "rows": [r.as_dict() for r in rows],
    }
    Path(args.json).write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
