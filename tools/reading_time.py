"""Reading and teaching times of each chapter, computed from what the chapter holds.

A chapter's "Before you start" box states a reading time and a teaching time. They are not
guessed: this tool counts what a reader meets on the page (prose words, display equations,
figures, code cells with their output, exercises) and charges each a stated time. The rates are
assumptions, written down here so that anyone can check or change them:

* prose: 120 words a minute. Brysbaert (2019, "How many words do we read per minute?", Journal of
  Memory and Language 109, 104047) puts silent reading of non-fiction at 238 words a minute on
  average; a first, careful reading of a derivation goes at about half that;
* a display equation: 1 minute (read it, follow the step from the line before);
* a figure: 45 seconds; a code cell with its output: 30 seconds;
* teaching: presenting a chapter, with questions, takes 1.5 times its reading time, and each
  exercise 10 minutes of class time, its solution discussed.

The solutions (between ``{solution-start}`` and ``{solution-end}``) and the exercises are left
out of the reading time. Reading time = the sum, rounded to 5 minutes; teaching time = 1.5 x the
reading time, without and with the exercises, in sessions of 90 minutes (rounded up). A test
(``tests/test_reading_time.py``) checks that every chapter states the times this tool gives::

    .venv/bin/python tools/reading_time.py            # the table for every chapter
    .venv/bin/python tools/reading_time.py --write    # and write the times into the boxes
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from zh_store import prose_words  # noqa: E402

WORDS_PER_MINUTE = 120
EQUATION_MINUTES = 1.0
FIGURE_MINUTES = 0.75
CODE_MINUTES = 0.5
EXERCISE_MINUTES = 10.0
LECTURE_FACTOR = 1.5
SESSION_MINUTES = 90

DISPLAY = re.compile(r"\$\$.+?\$\$|\\begin\{(align|equation|gather)\*?\}", re.DOTALL)
EXERCISE = re.compile(r"^\s*(?:`{3,}|:{3,})\{exercise\}", re.MULTILINE)
READING_LINE = re.compile(r"\*\*Reading time:\*\* about (\d+) minutes")
TEACHING_LINE = re.compile(r"\*\*Teaching time:\*\* ([^\n]+)")
SESSION_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}


@dataclass(frozen=True)
class ChapterTime:
    """What a chapter holds and the times charged for it (module docstring)."""

    words: int
    equations: int
    figures: int
    code_cells: int
    exercises: int
    reading_minutes: int
    lecture_sessions: int
    teaching_sessions: int

    def teaching_text(self) -> str:
        """``two 90-minute sessions (three with the exercises)``, as the box states it."""
        n, m = self.lecture_sessions, self.teaching_sessions
        text = f"{SESSION_WORDS[n]} {SESSION_MINUTES}-minute session" + ("s" if n > 1 else "")
        if m == n:
            return text + ", exercises included"
        return text + f" ({SESSION_WORDS[m]} with the exercises)"


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def chapter_time(notebook: Path) -> ChapterTime:
    """Count a chapter notebook's contents and charge the module's rates."""
    cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    words = equations = figures = code = exercises = 0
    in_solution = False
    for cell in cells:
        text = _source(cell)
        if cell["cell_type"] == "markdown":
            if "{solution-start}" in text:
                in_solution = True
            if "{solution-end}" in text:
                in_solution = False
                continue
            exercises += len(EXERCISE.findall(text))
            if in_solution or EXERCISE.search(text) or "{admonition} Before you start" in text:
                continue
            words += prose_words(text)
            equations += len(DISPLAY.findall(text))
            continue
        if in_solution or "nbval-skip" in cell.get("metadata", {}).get("tags", []):
            continue
        if text.lstrip().startswith("# Setup (hidden in the book)"):
            continue
        code += 1
        outputs = cell.get("outputs", [])
        if any("image/png" in o.get("data", {}) for o in outputs):
            figures += 1
    minutes = (
        words / WORDS_PER_MINUTE
        + equations * EQUATION_MINUTES
        + figures * FIGURE_MINUTES
        + code * CODE_MINUTES
    )
    reading = max(5, 5 * round(minutes / 5))
    lecture = LECTURE_FACTOR * reading
    sessions = math.ceil(lecture / SESSION_MINUTES)
    with_exercises = math.ceil((lecture + exercises * EXERCISE_MINUTES) / SESSION_MINUTES)
    return ChapterTime(
        words, equations, figures, code, exercises, reading, sessions, with_exercises
    )


def stated_times(notebook: Path) -> tuple[int | None, str | None]:
    """The reading minutes and teaching text a chapter's "Before you start" box states."""
    text = "\n".join(
        _source(c)
        for c in json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
        if c["cell_type"] == "markdown"
    )
    reading, teaching = READING_LINE.search(text), TEACHING_LINE.search(text)
    return (
        int(reading.group(1)) if reading else None,
        teaching.group(1).strip().rstrip(".") if teaching else None,
    )


def write_times(notebook: Path) -> bool:
    """Put this tool's times into the chapter's "Before you start" box; True if it changed."""
    import nbformat

    t = chapter_time(notebook)
    nb = nbformat.read(notebook, as_version=4)
    changed = False
    for cell in nb.cells:
        if cell.cell_type != "markdown" or "{admonition} Before you start" not in cell.source:
            continue
        new = READING_LINE.sub(f"**Reading time:** about {t.reading_minutes} minutes", cell.source)
        new = re.sub(
            r"\*\*Teaching time:\*\* [^\n]+(?:\n  [^\n-][^\n]*)*",
            f"**Teaching time:** {t.teaching_text()}.",
            new,
        )
        if new != cell.source:
            cell.source, changed = new, True
    if changed:
        nbformat.write(nb, notebook)
    return changed


def main() -> int:
    if "--write" in sys.argv[1:]:
        for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
            if write_times(notebook):
                print(f"{notebook.relative_to(ROOT)}: times written")
    print(
        f"{'chapter':<36}{'words':>6}{'eqs':>5}{'figs':>5}{'code':>5}{'ex':>4}"
        f"{'reading':>9}  teaching"
    )
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        t = chapter_time(notebook)
        print(
            f"{notebook.stem:<36}{t.words:>6}{t.equations:>5}{t.figures:>5}{t.code_cells:>5}"
            f"{t.exercises:>4}{t.reading_minutes:>6} min  {t.teaching_text()}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
