"""Build the student edition (issues 18 and 31): the book without the solutions, in English and
in Chinese, self-contained in one folder; and the kit's answer key and student notebooks.

A lecturer posts the folder ``student/`` alone, so everything a student page links to or offers
for download leads to student material inside it (``tests/test_student_leaks.py`` crawls it):

* The edition is built from a source tree of **student notebooks**
  (``tools/student_notebooks.py``: gated solutions with their code cells and outputs, and
  ``{solution}`` blocks, removed), so the notebook a page offers for download (Jupyter Book's
  ``_sources/…ipynb``) is the student notebook. ``ropelab_edition: student`` stays on as well
  (``src/ropebook/ext/lecturer_kit.py`` drops any solution node that would still reach a page).
* The **Chinese student edition** is the Chinese tree of ``tools/build_zh.py`` made student the
  same way, built into ``student/zh/``; the language switch of the student pages goes between
  ``student/`` and ``student/zh/`` (``src/ropebook/ext/language_switch.py``), never to the full
  ``zh/``. Its pages' kit menu is in Chinese (issue 34): the student PDF, the Chinese decks
  (``student/slides/zh/``) and the figures, all inside ``student/``.
* The student pages' kit menu serves the student PDF, the slides and the figures from inside
  ``student/`` (``student/kit/…-student.pdf``, ``student/slides/``), copied in by
  ``lecturer_kit.py`` from the kit.
* **No repository**: the repository holds the answers, so the student edition has no
  repository button and no launch (Colab, Binder) button: :func:`no_repository` clears those
  settings, whatever ``_config.yml`` or the deployment sets.

Into the kit (``_build/kit/``) beside the edition, built from the committed notebooks:

* ``student-notebooks/``: the student notebooks (``notebooks/``, ``book/cheatsheet.ipynb``,
  the Chinese ones under ``zh/``), a tree a deployer may publish as a students' repository;
* ``answer-key/``: for instructors, linked from no student page: each chapter's exercises with
  their solutions and executed outputs as notebooks (``notebooks/<chapter>-answer-key.ipynb``,
  Chinese under ``zh/notebooks/``) and the instructor PDF, which prints every solution
  expanded (``rope-derived-and-run-answer-key.pdf``; ``…-zh-answer-key.pdf``). The autograded
  assignments put their grader under ``answer-key/assignments/``, which this tool leaves alone.

Nothing executes: every page is built from the notebooks' committed outputs::

    .venv/bin/python tools/build_student.py          # -> _build/kit/student/ (+ student/zh/)

The instructor site (``make book``) copies the kit, this edition included, into
``_build/html/student/``. Build the PDFs first (``make pdf``), as ``make kit`` does.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

from ropebook import ROOT
from ropebook.build_site import build_with_config, quick_config
from ropebook.kit import STUDENT_DIR, ZH_DIR, pdf_name
from ropebook.student_notebooks import (
    ANSWER_KEY_DIR,
    STUDENT_NOTEBOOKS_DIR,
    write_answer_key,
    write_student_notebooks,
    write_student_tree,
)

DEFAULT_KIT = ROOT / "_build" / "kit"
DEFAULT_OUT = DEFAULT_KIT / STUDENT_DIR
WORK = ROOT / "_build" / "student-build"
#: The answer key's PDFs: the instructor PDFs (every solution printed expanded), by edition.
ANSWER_KEY_PDFS = {
    "instructor": "rope-derived-and-run-answer-key.pdf",
    ZH_DIR: "rope-derived-and-run-zh-answer-key.pdf",
}


def no_repository(config: dict) -> dict:
    """``config`` without a repository, launch, edit or issues button: the student edition
    never links to the repository, which holds the solutions."""
    config["repository"] = {"url": "", "path_to_book": "", "branch": "main"}
    config["launch_buttons"] = {
        "notebook_interface": "classic",
        "binderhub_url": "",
        "jupyterhub_url": "",
        "colab_url": "",
        "deepnote_url": "",
        "thebe": False,
    }
    html = config.setdefault("html", {})
    for button in ("use_repository_button", "use_issues_button", "use_edit_page_button"):
        html[button] = False
    return config


def student_config(root: Path = ROOT, kit: Path | None = None, zh_site: Path | None = None) -> dict:
    """The English student edition's ``_config.yml``: execution off, no solutions, no
    repository; the kit's files from ``kit``, the language switch to the pages of ``zh_site``."""
    config = no_repository(quick_config(root))
    settings = config["sphinx"].setdefault("config", {})
    settings["ropelab_edition"] = "student"
    if kit is not None:
        settings["ropelab_kit_dir"] = str(kit.resolve())
    settings["ropelab_zh_site"] = str(zh_site.resolve()) if zh_site is not None else ""
    config["title"] = f"{config.get('title', 'RoPE, derived and run')} (student edition)"
    return config


def zh_student_config(root: Path = ROOT, kit: Path | None = None) -> dict:
    """The Chinese student edition's ``_config.yml``: the Chinese edition's, student, no
    repository; its kit menu in Chinese links the student PDF, the Chinese decks and the
    figures that the English student edition copies into ``student/`` (issue 34)."""
    from ropebook.build_zh import zh_config

    config = no_repository(zh_config(root, kit))
    config["sphinx"]["config"]["ropelab_edition"] = "student"
    config["title"] = f"{config['title']}（学生版）"
    return config


#: The package and its pins, copied beside the student notebooks so that the folder runs on
#: Binder as a repository of its own.
PACKAGE_FILES = ("pyproject.toml", "requirements.txt", "binder", "src")


def write_kit_files(kit: Path, zh_tree: Path | None) -> None:
    """The student notebooks and the answer key into the kit (the answer key's
    ``assignments/`` is left as it is)."""
    notebooks = kit / STUDENT_NOTEBOOKS_DIR
    shutil.rmtree(notebooks, ignore_errors=True)
    write_student_notebooks(ROOT, notebooks)
    (notebooks / "README.md").write_text(STUDENT_README, encoding="utf-8")
    # What Binder needs to run them (binder/ installs requirements.txt: the pins and `-e .`).
    for name in PACKAGE_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(
                source,
                notebooks / name,
                ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"),
            )
        elif source.is_file():
            shutil.copyfile(source, notebooks / name)
    key = kit / ANSWER_KEY_DIR
    for folder in ("notebooks", "zh"):
        shutil.rmtree(key / folder, ignore_errors=True)
    write_answer_key(ROOT, key)
    if zh_tree is not None:
        write_student_notebooks(zh_tree, notebooks / ZH_DIR)
        write_answer_key(zh_tree, key / ZH_DIR, chinese=True)
    for edition, name in ANSWER_KEY_PDFS.items():
        pdf = kit / pdf_name(edition)
        if pdf.is_file():
            shutil.copyfile(pdf, key / name)
    (key / "README.md").write_text(ANSWER_KEY_README, encoding="utf-8")


STUDENT_README = """# RoPE, derived and run: the student notebooks

One notebook per chapter (`notebooks/`), the cheat sheet (`book/cheatsheet.ipynb`) and the
Chinese ones (`zh/`), with every exercise and without the solutions: the notebooks of the
student edition of the book, with the chapters' executed outputs. The first cell installs
`ropelab`, the book's package, when it is missing. The package (`src/`, `pyproject.toml`) and
its pins (`requirements.txt`, `binder/`) are here too, so that Binder runs the notebooks from
this folder published as a repository (`ROPELAB_STUDENT_REPOSITORY` points the student
edition's launch buttons at it).

Built by `tools/build_student.py` from the book's notebooks. A course may publish this folder
as its students' repository; never publish the book's own repository to students: it holds
the solutions.
"""

ANSWER_KEY_README = """# RoPE, derived and run: the answer key (for instructors)

Not for students: no page of the student edition links here.

- `notebooks/<chapter>-answer-key.ipynb`: every exercise of the chapter followed by its
  solution, the code cells with their executed outputs (a reading copy: the code runs after
  the chapter's own cells; run it in the full chapter notebook). Chinese: `zh/notebooks/`.
- `rope-derived-and-run-answer-key.pdf`: the book with every solution printed expanded (the
  instructor PDF); `rope-derived-and-run-zh-answer-key.pdf`, the same in Chinese.
- `assignments/`: the graders of the autograded assignments, when they are built.

Built by `tools/build_student.py` from the committed notebooks.
"""


def build_edition(config: dict, tree: Path, work: Path, warnings_fail: bool) -> Path:
    """Build ``tree`` with ``config`` into ``work``; the built site's folder."""
    returncode = build_with_config(config, work, warnings_fail=warnings_fail, tree=tree)
    if returncode != 0:
        raise SystemExit(returncode)
    return work.resolve() / "_build" / "html"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--kit",
        type=Path,
        default=DEFAULT_KIT,
        help="the kit to copy in and to write the answer key and student notebooks into",
    )
    parser.add_argument("--work", type=Path, default=WORK, help="the build's own folder")
    parser.add_argument("--no-zh", action="store_true", help="no Chinese student edition")
    parser.add_argument("--allow-warnings", action="store_true", help="no -W")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    work = args.work.resolve()
    strict = not args.allow_warnings
    zh_site = zh_tree = None
    if not args.no_zh:
        from ropebook.build_zh import report_missing, write_tree

        zh_tree = work / "zh-tree"
        report_missing(write_tree(zh_tree))
        write_student_tree(zh_tree, work / "zh-src")
        zh_site = build_edition(
            zh_student_config(kit=args.kit), work / "zh-src", work / "zh", strict
        )
    write_student_tree(ROOT, work / "src")
    site = build_edition(
        student_config(kit=args.kit, zh_site=zh_site), work / "src", work / "en", strict
    )
    out = args.out.resolve()
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(site, out)
    if zh_site is not None:
        shutil.copytree(zh_site, out / ZH_DIR)
    write_kit_files(args.kit.resolve(), zh_tree)
    print(f"student edition: {out} ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
