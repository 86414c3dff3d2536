"""Build the student edition of the site: the book without the solutions (issue 18).

The same ``_config.yml`` with one switch changed (``ropelab_edition: student``: every
sphinx-exercise ``{solution}`` block is removed, ``book/_ext/lecturer_kit.py``), built from the
notebooks' committed outputs (execution off, as ``tools/build_site.py`` does), into the kit::

    .venv/bin/python tools/build_student.py          # -> _build/kit/student/

The instructor site (``make book``) copies the kit, this edition included, into
``_build/html/student/``. The student pages link to the student PDF
(``kit/rope-derived-and-run-student.pdf``), so build the PDFs first (``make pdf``), as
``make kit`` does.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "book" / "_ext"))

from build_site import build_with_config, quick_config  # noqa: E402
from lecturer_kit import STUDENT_DIR  # noqa: E402

DEFAULT_OUT = ROOT / "_build" / "kit" / STUDENT_DIR
WORK = ROOT / "_build" / "student-build"


def student_config(root: Path = ROOT, kit: Path | None = None) -> dict:
    config = quick_config(root)
    settings = config["sphinx"].setdefault("config", {})
    settings["ropelab_edition"] = "student"
    if kit is not None:
        settings["ropelab_kit_dir"] = str(kit.resolve())
    config["title"] = f"{config.get('title', 'RoPE, derived and run')} (student edition)"
    return config


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--kit", type=Path, default=None, help="the kit to copy in (default: _build/kit)"
    )
    parser.add_argument("--work", type=Path, default=WORK, help="the build's own folder")
    parser.add_argument("--allow-warnings", action="store_true", help="no -W")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    returncode = build_with_config(
        student_config(kit=args.kit), args.work, warnings_fail=not args.allow_warnings
    )
    if returncode != 0:
        return returncode
    out = args.out.resolve()
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(args.work.resolve() / "_build" / "html", out)
    print(f"student edition: {out} ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
