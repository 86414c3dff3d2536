"""How long ropelab.diagnose_rope takes, and how much of it is its own work (chapter 3A).

Target: under a second for dim 64 on this machine, whatever the implementation under test
costs on top. The time spent inside ``fn`` is measured separately (each call is timed), so the
table shows the diagnoser's own share. Medians of 5 runs after one warm-up run.

Run from the repository root: ``.venv/bin/python benchmarks/bench_diagnose.py`` (standalone,
not part of ``make bench``).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import rope_zoo as zoo  # noqa: E402

from ropelab import diagnose_rope  # noqa: E402

TARGET_S = 1.0
RUNS = 5
CASES = [
    (zoo.numpy_rotate_half, "half", 64),
    (zoo.torch_rotate_half, "half", 64),
    (zoo.torch_seed003, "half", 64),
    (zoo.numpy_clamped_cache, "half", 64),
    (zoo.torch_fp32_angles, "half", 64),
    (zoo.numpy_dynamic_base, "half", 64),
    (zoo.numpy_rotate_half, "half", 128),
    (zoo.numpy_rotate_half, "half", 256),
]


def measure(fn, layout: str, dim: int) -> tuple[float, float, int, list[str]]:
    """Median total seconds, median seconds inside fn, calls, codes."""
    inside = [0.0]

    def timed(x, positions):
        start = time.perf_counter()
        try:
            return fn(x, positions)
        finally:
            inside[0] += time.perf_counter() - start

    diagnose_rope(timed, layout=layout, dim=dim)  # warm-up
    totals, fns = [], []
    for _ in range(RUNS):
        inside[0] = 0.0
        start = time.perf_counter()
        diagnosis = diagnose_rope(timed, layout=layout, dim=dim)
        totals.append(time.perf_counter() - start)
        fns.append(inside[0])
    return statistics.median(totals), statistics.median(fns), diagnosis.calls, diagnosis.codes


def main() -> None:
    np.seterr(all="ignore")
    header = f"{'implementation':<28} {'dim':>4} {'calls':>5} {'total ms':>9} {'in fn':>8}"
    print(header + f" {'own ms':>8}  {'codes'}")
    worst = 0.0
    for fn, layout, dim in CASES:
        total, inside, calls, codes = measure(fn, layout, dim)
        own = total - inside
        if dim == 64:
            worst = max(worst, own)
        print(
            f"{fn.__name__:<28} {dim:>4} {calls:>5} {total * 1e3:>9.1f} {inside * 1e3:>8.1f}"
            f" {own * 1e3:>8.1f}  {','.join(codes) or 'OK'}"
        )
    met = "met" if worst < TARGET_S else "NOT met"
    print(f"diagnoser's own time, dim 64: at most {worst * 1e3:.0f} ms (target < 1 s: {met})")


if __name__ == "__main__":
    main()
