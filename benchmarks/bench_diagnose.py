"""How long ropelab.diagnose_rope takes, how much of it is its own work, and what the probes
of real code (issue 24: one-token calls, the first call again, a batch) cost (chapter 3A).

Target: under a second for dim 64 on this machine, whatever the implementation under test
costs on top. The time spent inside ``fn`` is measured separately (each call is timed), so the
table shows the diagnoser's own share. The probes of real code are one stage,
``_Run._call_checks``: it is timed on its own (calls of fn included), and each implementation
is diagnosed once more with that stage replaced by a no-op (in this process only) to count
its calls and to show which findings only it makes. Medians of 5 runs after one warm-up.

Run from the repository root: ``.venv/bin/python -m benchmarks.bench_diagnose`` (standalone,
not part of ``make bench``; as a module, so that it imports the tests' ``rope_zoo``).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import numpy as np

from ropelab import diagnose_rope
from ropelab.diagnose import api
from tests import rope_zoo as zoo

ROOT = Path(__file__).resolve().parents[1]

TARGET_S = 1.0
RUNS = 5
CASES = [  # (fn, layout, dim, batched)
    (zoo.numpy_rotate_half, "half", 64, False),
    (zoo.torch_rotate_half, "half", 64, False),
    (zoo.torch_seed003, "half", 64, False),
    (zoo.numpy_clamped_cache, "half", 64, False),
    (zoo.torch_fp32_angles, "half", 64, False),
    (zoo.numpy_dynamic_base, "half", 64, False),
    (zoo.numpy_decode_step_from_start, "half", 64, False),
    (zoo.GrowingCache(), "half", 64, False),
    (zoo.torch_factor_on_cos_only, "half", 64, False),
    (zoo.HF_STYLE, "half", 64, True),
    (zoo.torch_first_sequence_positions, "half", 64, True),
    (zoo.numpy_rotate_half, "half", 128, False),
    (zoo.numpy_rotate_half, "half", 256, False),
]


def _without_call_checks(self, x, first):
    return None


def measure(fn, layout: str, dim: int, batched: bool) -> dict:
    """Medians of total, in-fn and new-probe seconds; calls and codes with and without."""
    inside, probes = [0.0], [0.0]

    def timed(x, positions):
        start = time.perf_counter()
        try:
            return fn(x, positions)
        finally:
            inside[0] += time.perf_counter() - start

    original = api._Run._call_checks

    def timed_checks(self, x, first):
        start = time.perf_counter()
        try:
            return original(self, x, first)
        finally:
            probes[0] += time.perf_counter() - start

    totals, fns, news = [], [], []
    try:
        api._Run._call_checks = timed_checks
        for k in range(RUNS + 1):
            inside[0] = probes[0] = 0.0
            if hasattr(fn, "reset"):  # a cache that grows: every run starts it empty
                fn.reset()
            start = time.perf_counter()
            diagnosis = diagnose_rope(timed, layout=layout, dim=dim, batched=batched)
            if k:  # the first run is the warm-up
                totals.append(time.perf_counter() - start)
                fns.append(inside[0])
                news.append(probes[0])
        api._Run._call_checks = _without_call_checks
        if hasattr(fn, "reset"):
            fn.reset()
        without = diagnose_rope(timed, layout=layout, dim=dim, batched=batched)
    finally:
        api._Run._call_checks = original
    return {
        "total": statistics.median(totals),
        "fn": statistics.median(fns),
        "new": statistics.median(news),
        "calls": diagnosis.calls,
        "codes": diagnosis.codes,
        "extra_calls": diagnosis.calls - without.calls,
        "codes_without": without.codes,
    }


def main() -> None:
    np.seterr(all="ignore")
    header = f"{'implementation':<31} {'dim':>4} {'calls':>5} {'total ms':>9} {'in fn':>7}"
    print(header + f" {'own ms':>7} {'new probes ms':>14}  codes (without the new probes)")
    worst = newest = 0.0
    for fn, layout, dim, batched in CASES:
        m = measure(fn, layout, dim, batched)
        own = m["total"] - m["fn"]
        if dim == 64:
            worst, newest = max(worst, own), max(newest, m["new"])
        codes = ",".join(m["codes"]) or "OK"
        before = ",".join(m["codes_without"]) or "OK"
        note = "" if before == codes else f" (without: {before})"
        print(
            f"{fn.__name__:<31} {dim:>4} {m['calls']:>5} {m['total'] * 1e3:>9.1f} "
            f"{m['fn'] * 1e3:>7.1f} {own * 1e3:>7.1f} "
            f"{'+' + str(m['extra_calls']) + ' calls':>8} {m['new'] * 1e3:5.1f}  {codes}{note}"
        )
    met = "met" if worst < TARGET_S else "NOT met"
    print(f"the probes of real code: at most {newest * 1e3:.1f} ms of a diagnosis, dim 64")
    print(f"diagnoser's own time, dim 64: at most {worst * 1e3:.0f} ms (target < 1 s: {met})")


if __name__ == "__main__":
    main()
