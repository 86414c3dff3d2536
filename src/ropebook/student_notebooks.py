"""Student notebooks and the answer key (issue 31): a chapter notebook without its solutions,
and its solutions alone.

A chapter's exercise has exactly one solution, in one of two forms (DEVELOPERS.md, "What every
chapter follows"):

* a *gated* solution: a markdown cell opening ``{solution-start} LABEL``, the chapter's executed
  code cells, and a markdown cell closing with ``{solution-end}``;
* a ``{solution} LABEL`` block inside a markdown cell (prose only).

:func:`student_notebook` removes both, with the code cells between a start and its end and
their outputs; the exercises stay as they are. :func:`answer_key_notebook` keeps the
opposite: each exercise followed by its solution, code cells with their executed outputs (an
extract to read: its code runs only after the chapter's own cells). :func:`write_student_tree`
turns a book's source tree (the repository, or the Chinese tree of ``tools/build_zh.py``) into
the source tree of its student edition, which ``tools/build_student.py`` builds, so that the
notebook a student page offers for download (Jupyter Book's ``_sources/…ipynb``) is the student
notebook.

Command line (the kit's files, from the repository's notebooks)::

    .venv/bin/python tools/student_notebooks.py --notebooks /tmp/out   # student notebooks
    .venv/bin/python tools/student_notebooks.py --answer-key /tmp/key  # the solutions
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ropebook import ROOT
from ropebook.book_toc import toc_docnames

#: The opening fence of a gated solution (its label is the exercise's).
SOLUTION_START = re.compile(
    r"^(?P<fence>[`:]{3,})\{solution-start\}\s*(?P<label>\S+)[^\n]*\n(?:[^\n]*\n)*?(?P=fence)[ \t]*(?:\n|$)",
    re.M,
)
#: The closing of a gated solution: its fence and the fence's end.
SOLUTION_END = re.compile(
    r"^(?P<fence>[`:]{3,})\{solution-end\}[^\n]*\n(?:[^\n]*\n)*?(?P=fence)[ \t]*(?:\n|$)", re.M
)
#: A ``{solution}`` block in a markdown cell, fence to matching fence.
SOLUTION_BLOCK = re.compile(
    r"^(?P<fence>[`:]{3,})\{solution\}\s*(?P<label>\S+)[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$\n?",
    re.M | re.S,
)
#: An exercise block in a markdown cell.
EXERCISE_BLOCK = re.compile(
    r"^(?P<fence>[`:]{3,})\{exercise\}[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$\n?", re.M | re.S
)
_LABEL_OPTION = re.compile(r"^:label:\s*(\S+)", re.M)
#: Any solution directive: none may be left in a student notebook.
ANY_SOLUTION = re.compile(r"\{solution(?:-start|-end)?\}")
#: Where the kit puts the answer key and the student notebooks (relative to the kit).
ANSWER_KEY_DIR = "answer-key"
STUDENT_NOTEBOOKS_DIR = "student-notebooks"


@dataclass
class Solution:
    """One exercise's solution in a notebook: its label (the exercise's), the markdown of its
    prose (fences and options left out) and its code cells, as they are in the notebook."""

    label: str
    prose: list[str] = field(default_factory=list)
    code_cells: list[dict] = field(default_factory=list)
    #: The notebook cells (gated) or the one block's text, in order, for the answer key.
    cells: list[dict] = field(default_factory=list)


def cell_source(cell: dict) -> str:
    """A cell's source as one string."""
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _strip_options(body: str) -> str:
    """A directive body without its ``:option:`` lines at the top."""
    lines = body.splitlines()
    while lines and re.match(r"^:[\w-]+:", lines[0]):
        lines.pop(0)
    return "\n".join(lines).strip("\n")


def _split_gated(cells: list[dict]) -> tuple[list[dict], list[Solution]]:
    """The cells outside the gated solutions (a start cell's text before its fence and an end
    cell's text after its closing fence stay), and the gated solutions."""
    kept: list[dict] = []
    found: list[Solution] = []
    current: Solution | None = None
    for cell in cells:
        text = cell_source(cell)
        start = SOLUTION_START.search(text) if cell["cell_type"] == "markdown" else None
        if start:
            if current is not None:
                raise ValueError(f"solution {start.group('label')} starts inside {current.label}")
            before = text[: start.start()]
            if before.strip():
                kept.append({**copy.deepcopy(cell), "source": _lines(before.rstrip("\n") + "\n")})
            current = Solution(start.group("label"))
            text = text[start.end() :]
            inside = copy.deepcopy(cell)
            inside["source"] = _lines(text)
            cell = inside
        if current is None:
            kept.append(copy.deepcopy(cell))
            continue
        end = SOLUTION_END.search(text) if cell["cell_type"] == "markdown" else None
        if cell["cell_type"] == "markdown":
            prose = text[: end.start()] if end else text
            body = _strip_options(prose)
            if body.strip():
                current.prose.append(body)
                current.cells.append({**copy.deepcopy(cell), "source": _lines(body + "\n")})
        else:
            current.code_cells.append(cell)
            current.cells.append(copy.deepcopy(cell))
        if end:
            after = text[end.end() :]
            if after.strip():
                rest = {**copy.deepcopy(cell), "source": _lines(after.lstrip("\n"))}
                if "id" in rest:
                    rest["id"] = f"{rest['id']}-after"[:64]
                kept.append(rest)
            found.append(current)
            current = None
    if current is not None:
        raise ValueError(f"solution {current.label} has no solution-end")
    return kept, found


def solutions(nb: dict) -> list[Solution]:
    """Every solution of a notebook, gated or a ``{solution}`` block, in order of their cells."""
    kept, gated = _split_gated(nb["cells"])
    blocks: list[Solution] = []
    for cell in kept:
        if cell["cell_type"] != "markdown":
            continue
        for match in SOLUTION_BLOCK.finditer(cell_source(cell)):
            body = _strip_options(match.group("body"))
            solution = Solution(match.group("label"), prose=[body])
            solution.cells.append({"cell_type": "markdown", "metadata": {}, "source": _lines(body)})
            blocks.append(solution)
    return gated + blocks


def student_notebook(nb: dict) -> dict:
    """The student version of a chapter notebook: the same cells and outputs without the
    solutions (gated: the start cell, the cells up to the end cell and their outputs;
    ``{solution}`` blocks: the block, and the cell when nothing else is left in it). Raises
    ValueError when a solution directive would be left in it."""
    kept, _ = _split_gated(nb["cells"])
    cells = []
    for cell in kept:
        if cell["cell_type"] == "markdown" and SOLUTION_BLOCK.search(cell_source(cell)):
            text = SOLUTION_BLOCK.sub("", cell_source(cell))
            if not text.strip():
                continue
            text = re.sub(r"\n{3,}", "\n\n", text).strip("\n")
            cell = {**cell, "source": _lines(text)}
        if ANY_SOLUTION.search(cell_source(cell)):
            raise ValueError(f"cell {cell.get('id')!r}: a solution directive left in the cell")
        cells.append(cell)
    student = copy.deepcopy({key: value for key, value in nb.items() if key != "cells"})
    student["cells"] = cells
    return student


def _exercises(nb: dict) -> dict[str, str]:
    """``{label: the exercise block's markdown}`` of a notebook."""
    found = {}
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for match in EXERCISE_BLOCK.finditer(cell_source(cell)):
            label = _LABEL_OPTION.search(match.group("body"))
            if label:
                found[label.group(1)] = match.group(0).strip("\n")
    return found


def chapter_title(nb: dict) -> str:
    """The notebook's first ``# `` heading (its chapter title)."""
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            match = re.search(r"^#\s+(.+)$", cell_source(cell), re.M)
            if match:
                return match.group(1).strip()
    return ""


def _exercise_as_text(block: str) -> str:
    """An exercise block as plain markdown (its title in bold, options dropped): a notebook of
    the answer key has no exercise to attach a solution directive to."""
    lines = block.splitlines()
    title = re.sub(r"^[`:]{3,}\{exercise\}\s*", "", lines[0]).strip()
    body = _strip_options("\n".join(lines[1:-1]))
    return (f"**Exercise: {title}**\n\n" if title else "**Exercise**\n\n") + body


def answer_key_notebook(nb: dict, *, chinese: bool = False) -> dict:
    """The answer key of a chapter: its title, then each exercise (as text) and its solution,
    prose and code cells with their executed outputs, in the chapter's order. A reading copy:
    the code runs after the chapter's own cells, not on its own."""
    exercises = _exercises(nb)
    title = chapter_title(nb)
    if chinese:
        intro = (
            f"# 答案：{title}\n\n本章每道练习及其解答（代码单元附执行结果）。这些代码接在本章"
            "自己的单元之后运行；要重新运行，请在完整的章节笔记本中运行。"
        )
    else:
        intro = (
            f"# Answer key: {title}\n\nEvery exercise of the chapter with its solution (code "
            "cells with their executed outputs). The code runs after the chapter's own cells: "
            "to run it again, run it in the full chapter notebook."
        )
    cells = [{"cell_type": "markdown", "metadata": {}, "source": _lines(intro)}]
    heading = "**解答**" if chinese else "**Solution**"
    for solution in solutions(nb):
        exercise = exercises.get(solution.label)
        if exercise is None:
            raise ValueError(f"solution {solution.label}: no exercise with that label")
        text = f"## `{solution.label}`\n\n{_exercise_as_text(exercise)}\n\n{heading}"
        cells.append({"cell_type": "markdown", "metadata": {}, "source": _lines(text)})
        cells += copy.deepcopy(solution.cells)
    key = copy.deepcopy({k: v for k, v in nb.items() if k != "cells"})
    for number, cell in enumerate(cells):
        cell["id"] = f"key-{number}"
    key["cells"] = cells
    key["nbformat"], key["nbformat_minor"] = 4, max(int(nb.get("nbformat_minor", 5)), 5)
    return key


def read_notebook(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def write_notebook(path: Path, nb: dict) -> None:
    """A notebook in the repository's format (indent 1, UTF-8, a final newline)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _page(root: Path, docname: str) -> Path:
    for suffix in (".ipynb", ".md"):
        if (root / f"{docname}{suffix}").exists():
            return root / f"{docname}{suffix}"
    raise ValueError(f"{root}/_toc.yml lists {docname}, which has no .ipynb or .md file")


def write_student_tree(source: Path, tree: Path) -> list[str]:
    """The student edition's source tree in ``tree`` (replaced) from the book's source tree
    ``source`` (its ``_toc.yml``, every page it lists, ``book/references.bib`` and the
    ``vendor`` folder, linked): every notebook a student notebook, a ``.md`` page with its
    ``{solution}`` blocks removed. Returns the pages written."""
    source, tree = source.resolve(), tree.resolve()
    if tree == source:
        raise ValueError("tree must not be the source tree")
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    shutil.copyfile(source / "_toc.yml", tree / "_toc.yml")
    bib = source / "book" / "references.bib"
    (tree / "book").mkdir()
    shutil.copyfile(bib, tree / "book" / "references.bib")
    (tree / "vendor").symlink_to((source / "vendor").resolve(), target_is_directory=True)
    written = []
    for docname in toc_docnames(source):
        page = _page(source, docname)
        target = tree / page.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        if page.suffix == ".ipynb":
            write_notebook(target, student_notebook(read_notebook(page)))
        else:
            text = SOLUTION_BLOCK.sub("", page.read_text(encoding="utf-8"))
            if ANY_SOLUTION.search(text):
                raise ValueError(f"{page}: a solution directive left in the page")
            target.write_text(text, encoding="utf-8")
        written.append(str(page.relative_to(source)))
    return written


def chapter_notebooks(source: Path) -> list[Path]:
    """The notebooks of ``source``'s table of contents that hold exercises (the chapters)."""
    return [
        source / f"{d}.ipynb"
        for d in toc_docnames(source)
        if d.startswith("notebooks/") and (source / f"{d}.ipynb").exists()
    ]


def write_student_notebooks(source: Path, out: Path) -> list[Path]:
    """The student notebooks of ``source``'s chapters into ``out/notebooks/`` (the cheat sheet
    too, into ``out/book/``)."""
    written = []
    pages = chapter_notebooks(source) + [
        p for p in [source / "book" / "cheatsheet.ipynb"] if p.exists()
    ]
    for page in pages:
        target = out / page.relative_to(source)
        write_notebook(target, student_notebook(read_notebook(page)))
        written.append(target)
    return written


def write_answer_key(source: Path, out: Path, *, chinese: bool = False) -> list[Path]:
    """``out/notebooks/<chapter>-answer-key.ipynb`` for every chapter of ``source``."""
    written = []
    for page in chapter_notebooks(source):
        nb = read_notebook(page)
        if not solutions(nb):
            continue
        target = out / "notebooks" / f"{page.stem}-answer-key.ipynb"
        write_notebook(target, answer_key_notebook(nb, chinese=chinese))
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=ROOT, help="the book's source tree")
    parser.add_argument("--notebooks", type=Path, help="write the student notebooks here")
    parser.add_argument("--answer-key", type=Path, help="write the answer key's notebooks here")
    args = parser.parse_args(argv)
    if args.notebooks:
        print(f"{len(write_student_notebooks(args.source, args.notebooks))} student notebooks")
    if args.answer_key:
        print(f"{len(write_answer_key(args.source, args.answer_key))} answer-key notebooks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
