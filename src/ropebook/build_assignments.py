"""Build the problem sets' bundles into the lecturer's kit (issue 31).

::

    .venv/bin/python tools/build_assignments.py --kit _build/kit

writes

* ``<kit>/assignments/<problem set>.zip``, one per problem set, what a
  student downloads: the notebook, the stub module, the public tests, their
  conftest, ``sheet.py`` (the student's own parameters) and a README; nothing
  of the reference solutions, the grader or its hidden tests
  (``tests/test_assignments.py`` checks the contents);
* ``<kit>/answer-key/assignments/``: the grader (hidden tests), the reference
  solutions, the planted wrong solutions, ``sheet.py``, the instructors'
  README and the grader's requirements.

The archives are reproducible: fixed member order and timestamps.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import zipfile
from pathlib import Path

from ropebook import ROOT

SOURCE = ROOT / "assignments"
#: problem set -> its folder (and the zip's name)
PROBLEM_SETS = {
    "ps1": "ps1_derive_and_check",
    "ps2": "ps2_implement_rope",
    "ps3": "ps3_frequencies_and_extension",
}
#: What the answer key holds, relative to assignments/.
ANSWER_KEY = (
    "README.md",
    "requirements-grader.txt",
    "sheet.py",
    "grader",
    "reference",
    "tests/planted",
)
STAMP = (2026, 1, 1, 0, 0, 0)


def student_files(ps: str) -> list[tuple[str, Path]]:
    """(name in the zip, source) of one problem set's student bundle."""
    folder = PROBLEM_SETS[ps]
    here = SOURCE / folder
    names = [
        "README.md",
        "conftest.py",
        f"{folder}.ipynb",
        f"{ps}_student.py",
        f"test_public_{ps}.py",
    ]
    files = [(f"{folder}/{n}", here / n) for n in names]
    files.append((f"{folder}/sheet.py", SOURCE / "sheet.py"))
    return sorted(files)


def write_zip(path: Path, files: list[tuple[str, Path]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, source in files:
            if not source.is_file():
                raise FileNotFoundError(f"missing {source}")
            info = zipfile.ZipInfo(name, STAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, source.read_bytes())


def build(kit: Path) -> list[Path]:
    """Write the student zips and the answer key into ``kit``."""
    written = []
    for ps, folder in PROBLEM_SETS.items():
        target = kit / "assignments" / f"{folder}.zip"
        write_zip(target, student_files(ps))
        written.append(target)
    key = kit / "answer-key" / "assignments"
    shutil.rmtree(key, ignore_errors=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for relative in ANSWER_KEY:
        source = SOURCE / relative
        if source.is_dir():
            shutil.copytree(source, key / relative, ignore=ignore)
        else:
            (key / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, key / relative)
    written.append(key)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kit", type=Path, default=ROOT / "_build" / "kit")
    args = parser.parse_args(argv)
    written = build(args.kit.resolve())
    for path in written[:-1]:
        print(f"student bundle: {path}")
    print(f"answer key: {written[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
