"""``python -m grader PS --student-id ID --submission FILE [--csv FILE]``."""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from .core import PROBLEM_SETS, grade


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grader",
        description="Grade one submission of a problem set.",
    )
    parser.add_argument("ps", choices=sorted(PROBLEM_SETS))
    parser.add_argument("--student-id", required=True)
    parser.add_argument("--submission", required=True, type=Path)
    parser.add_argument(
        "--csv",
        type=Path,
        help="append a row (id, problem set, score, total, each test)",
    )
    args = parser.parse_args(argv)
    try:
        result = grade(args.ps, args.student_id, args.submission)
    except ValueError as error:
        parser.error(str(error))
    print(result.report())
    if args.csv is not None:
        new = not args.csv.exists() or args.csv.stat().st_size == 0
        with args.csv.open("a", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            if new:
                writer.writerow(
                    ["student_id", "ps", "score", "total", "submission"]
                    + [f"test {o.check.number}" for o in result.outcomes]
                )
            writer.writerow(
                [result.student_id, result.ps, result.score, result.total]
                + [str(args.submission)]
                + [o.score for o in result.outcomes]
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
