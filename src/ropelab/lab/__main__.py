"""``python -m ropelab.lab``: run the chapter-7 experiment (see :mod:`ropelab.lab.experiment`).

Examples::

    python -m ropelab.lab                 # the full plan -> lab/results/ (about 30-45 min, 2 cores)
    python -m ropelab.lab --quick         # smoke test (seconds) -> lab/checkpoints/quick-results/
    python -m ropelab.lab --estimate      # time a few steps and print the full plan's estimate

Interrupt with Ctrl-C at any time: rerunning the same command resumes from the checkpoints in
``--ckpt-dir``.
"""

from __future__ import annotations

import os

# Before torch loads OpenMP: threads that wait passively instead of spinning. On a 2-core
# machine that another process is also using, spinning OpenMP threads made a training step of
# the full plan about 10 times slower (2.8 s instead of 0.3 s, measured); passive waiting keeps
# two threads as fast as one there and costs little when the machine is idle.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse
import json
import shlex
import sys

import torch

from .experiment import (
    estimate_seconds,
    format_summary,
    full_plan,
    quick_plan,
    run_plan,
)


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the plan; returns the exit status."""
    args_list = sys.argv[1:] if argv is None else list(argv)
    parser = argparse.ArgumentParser(
        prog="python -m ropelab.lab",
        description="Pre-train and fine-tune tiny RoPE language models and measure their "
        "supported context length against the scaling laws of RoPE extrapolation (chapter 7).",
    )
    parser.add_argument("--quick", action="store_true", help="the smoke-test plan (seconds)")
    parser.add_argument(
        "--out",
        default=None,
        help="results folder (default: lab/results, or lab/checkpoints/quick-results with --quick)",
    )
    parser.add_argument(
        "--ckpt-dir", default="lab/checkpoints", help="checkpoints (git-ignored; resumable)"
    )
    parser.add_argument(
        "--threads", type=int, default=None, help="torch threads (default: torch's)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bars or log lines")
    parser.add_argument(
        "--estimate", action="store_true", help="time a few steps, print the plan's estimate, exit"
    )
    args = parser.parse_args(args_list)
    if args.threads is not None:
        if args.threads < 1:
            parser.error("--threads must be >= 1")
        torch.set_num_threads(args.threads)
    plan = quick_plan() if args.quick else full_plan()
    if args.estimate:
        print(json.dumps(estimate_seconds(plan), indent=1))
        return 0
    out = args.out or ("lab/checkpoints/quick-results" if args.quick else "lab/results")
    command = shlex.join(["python", "-m", "ropelab.lab", *args_list])
    results = run_plan(plan, out, args.ckpt_dir, command=command, progress=not args.no_progress)
    print(format_summary(results))
    print(f"wrote {out}/results.json, summary.csv, loss_curves.csv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
