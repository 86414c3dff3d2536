"""``python -m ropelab.lab``: run the chapter-7 experiment (see :mod:`ropelab.lab.experiment`).

Examples::

    python -m ropelab.lab                 # the full plan, every stage -> the committed results
    python -m ropelab.lab --stage pretrain     # one stage (repeatable); see --list-stages
    python -m ropelab.lab --quick         # smoke test (seconds) -> lab/checkpoints/quick-results/
    python -m ropelab.lab --estimate      # time a few steps and print each stage's estimate
    python -m ropelab.lab --base 3e5      # fine-tune one more base (chapter 7's exercise)
    python -m ropelab.lab --plan large --device cuda   # a larger model, on a GPU

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
    PLANS,
    estimate_seconds,
    extra_plan,
    format_summary,
    run_plan,
    stage_names,
    stage_runs,
)
from .results import RESULTS_DIR


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the plan; returns the exit status."""
    args_list = sys.argv[1:] if argv is None else list(argv)
    parser = argparse.ArgumentParser(
        prog="python -m ropelab.lab",
        description="Pre-train and fine-tune tiny RoPE language models and measure their "
        "supported context length against the scaling laws of RoPE extrapolation (chapter 7).",
    )
    parser.add_argument(
        "--plan", choices=sorted(PLANS), default="full",
        help="full: chapter 7's plan (CPU, in stages); quick: smoke test; large: for a GPU",
    )  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="the same as --plan quick")
    parser.add_argument(
        "--base", type=float, action="append", default=None, metavar="BETA",
        help="fine-tune these bases (repeatable) instead of the plan's runs; results go to "
        "<ckpt-dir>/extra-results unless --out is given",
    )  # fmt: skip
    parser.add_argument(
        "--tune-len", type=int, default=None, help="with --base: the fine-tuning length"
    )
    parser.add_argument(
        "--keep-planes", type=int, default=None, help="with --base: rotation planes kept in q, k"
    )
    parser.add_argument(
        "--out", default=None,
        help="results folder (default: the committed results of the full plan; "
        "<ckpt-dir>/<plan>-results otherwise)",
    )  # fmt: skip
    parser.add_argument(
        "--ckpt-dir", default="lab/checkpoints", help="checkpoints (git-ignored; resumable)"
    )
    parser.add_argument("--device", default=None, help="cpu (default), cuda, cuda:1, mps, ...")
    parser.add_argument(
        "--threads", type=int, default=None, help="torch threads (default: torch's)"
    )
    parser.add_argument(
        "--stage", action="append", default=None, metavar="NAME",
        help="run only this stage (repeatable; default: all, in order); the results are written "
        "once every stage is done",
    )  # fmt: skip
    parser.add_argument(
        "--list-stages", action="store_true", help="print the plan's stages and their runs, exit"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    parser.add_argument("--quiet", action="store_true", help="no log lines either")
    parser.add_argument(
        "--estimate", action="store_true", help="time a few steps, print the plan's estimate, exit"
    )
    args = parser.parse_args(args_list)
    if args.threads is not None:
        if args.threads < 1:
            parser.error("--threads must be >= 1")
        torch.set_num_threads(args.threads)
    if args.base is None and (args.tune_len is not None or args.keep_planes is not None):
        parser.error("--tune-len and --keep-planes go with --base")
    plan_name = "quick" if args.quick else args.plan
    plan = PLANS[plan_name]()
    if args.base is not None:
        try:
            plan = extra_plan(plan, args.base, tune_len=args.tune_len, keep_planes=args.keep_planes)
        except ValueError as error:
            parser.error(str(error))
    if args.stage is not None:
        unknown = [name for name in args.stage if name not in stage_names(plan)]
        if unknown:
            parser.error(f"--stage must be one of {stage_names(plan)}, got {unknown}")
    if args.list_stages:
        for name in stage_names(plan):
            runs = [run.id for run in stage_runs(plan, name)] or list(plan.testtime_models)
            print(f"{name}: {', '.join(runs)}")
        return 0
    if args.estimate:
        print(json.dumps(estimate_seconds(plan, device=args.device), indent=1))
        return 0
    if args.out is not None:
        out = args.out
    elif args.base is not None:
        out = f"{args.ckpt_dir}/extra-results"
    elif plan_name == "full":
        out = str(RESULTS_DIR)
    else:
        out = f"{args.ckpt_dir}/{plan_name}-results"
    command = shlex.join(["python", "-m", "ropelab.lab", *args_list])
    results = run_plan(
        plan, out, args.ckpt_dir, command=command, progress=not args.no_progress,
        device=args.device, stages=args.stage, verbose=not args.quiet,
    )  # fmt: skip
    if results is None:
        print("stages done; the results are written once every stage is done")
        return 0
    print(format_summary(results))
    print(f"wrote {out}/results.json, summary.csv, loss_curves.csv, testtime.csv, models/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
