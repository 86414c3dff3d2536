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
    .venv/bin/python tools/reading_time.py --sections # minutes per ``##`` section

``--write`` also updates the Chinese unit of a box it changes (``book/zh/<stem>.md``), when
that unit was current before: the same minutes, the same sessions, in the store's wording.

Sections (issue 31, :func:`section_times`): a chapter's ``##`` section runs from its heading to
the next one (the opening before the first heading belongs to the first section). Each section
is charged at the same rates; the chapter's rounded reading minutes and its lecture minutes
(1.5 x the reading time, to the nearest minute) are then shared out among the sections in
proportion to what each holds (largest remainders), so the sections' minutes add up exactly to
the chapter's.
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ropebook import ROOT
from ropebook.zh_store import prose_words

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
class SectionTime:
    """One ``##`` section of a chapter: its heading, the cell that opens it, its course marker
    (``"core"``, ``"optional"`` or None where the cell has none) and its minutes."""

    title: str
    cell_id: str
    course: str | None
    raw_minutes: float
    reading_minutes: int
    lecture_minutes: int


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

    @property
    def lecture_minutes(self) -> int:
        """The chapter presented in class: 1.5 x its reading time, to the nearest minute."""
        return math.floor(LECTURE_FACTOR * self.reading_minutes + 0.5)

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


HEADING = re.compile(r"^## (.+?)\s*$", re.MULTILINE)
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def section_headings(text: str) -> list[tuple[int, str]]:
    """``(offset, title)`` of every ``## `` heading line of a markdown cell, outside fenced
    code (a ``# comment`` in a code block is no heading)."""
    found, fence, offset = [], None, 0
    for line in text.splitlines(keepends=True):
        match = FENCE.match(line)
        if match and not line.lstrip().startswith(match.group(1) + "{"):
            if fence is None:
                fence = match.group(1)
            elif line.strip() == fence or line.strip().startswith(fence):
                fence = None
        elif fence is None:
            heading = HEADING.match(line)
            if heading:
                found.append((offset, heading.group(1).strip()))
        offset += len(line)
    return found


def _markdown_minutes(text: str) -> float:
    return prose_words(text) / WORDS_PER_MINUTE + len(DISPLAY.findall(text)) * EQUATION_MINUTES


def apportion(total: int, weights: list[float]) -> list[int]:
    """``total`` shared out in whole units in proportion to ``weights`` (largest remainders,
    ties to the earlier entry); the shares add up to ``total``."""
    if total < 0:
        raise ValueError(f"total must be >= 0, got {total}")
    if not weights or any(w < 0 for w in weights):
        raise ValueError(f"weights must be a non-empty list of numbers >= 0, got {weights}")
    whole = sum(weights)
    if whole == 0:
        shares = [0] * len(weights)
        shares[0] = total
        return shares
    exact = [total * w / whole for w in weights]
    shares = [math.floor(x) for x in exact]
    order = sorted(range(len(weights)), key=lambda i: (-(exact[i] - shares[i]), i))
    for i in order[: total - sum(shares)]:
        shares[i] += 1
    return shares


def section_times(notebook: Path) -> list[SectionTime]:
    """The chapter's ``##`` sections with their minutes (module docstring): the raw minutes
    each holds at this module's rates, and the chapter's reading and lecture minutes shared
    out among them, so that they add up to :func:`chapter_time`'s."""
    cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    opening = 0.0
    sections: list[list] = []  # [title, cell id, course, raw minutes]
    in_solution = False

    def charge(minutes: float) -> None:
        nonlocal opening
        if sections:
            sections[-1][3] += minutes
        else:
            opening += minutes

    for cell in cells:
        text = _source(cell)
        if cell["cell_type"] == "markdown":
            if "{solution-start}" in text:
                in_solution = True
            if "{solution-end}" in text:
                in_solution = False
                continue
            counted = not (
                in_solution or EXERCISE.search(text) or "{admonition} Before you start" in text
            )
            cuts = section_headings(text)
            start = 0
            for offset, title in cuts:
                if counted:
                    charge(_markdown_minutes(text[start:offset]))
                course = cell.get("metadata", {}).get("ropelab", {}).get("course")
                sections.append([title, str(cell.get("id", "")), course, 0.0])
                start = offset
            if counted:
                charge(_markdown_minutes(text[start:]))
            continue
        if in_solution or "nbval-skip" in cell.get("metadata", {}).get("tags", []):
            continue
        if text.lstrip().startswith("# Setup (hidden in the book)"):
            continue
        outputs = cell.get("outputs", [])
        figure = any("image/png" in o.get("data", {}) for o in outputs)
        charge(CODE_MINUTES + (FIGURE_MINUTES if figure else 0.0))
    if not sections:
        raise ValueError(f"notebook {Path(notebook).name} has no '## ' section")
    sections[0][3] += opening
    chapter = chapter_time(notebook)
    weights = [s[3] for s in sections]
    reading = apportion(chapter.reading_minutes, weights)
    lecture = apportion(chapter.lecture_minutes, weights)
    return [
        SectionTime(title, cell_id, course, raw, r, lec)
        for (title, cell_id, course, raw), r, lec in zip(sections, reading, lecture, strict=True)
    ]


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
    t = chapter_time(notebook)
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    changed = False
    for cell in nb["cells"]:
        source = _source(cell)
        if cell["cell_type"] != "markdown" or "{admonition} Before you start" not in source:
            continue
        new = READING_LINE.sub(f"**Reading time:** about {t.reading_minutes} minutes", source)
        new = re.sub(
            r"\*\*Teaching time:\*\* [^\n]+(?:\n  [^\n-][^\n]*)*",
            f"**Teaching time:** {t.teaching_text()}.",
            new,
        )
        if new != source:
            write_chinese_times(Path(notebook), str(cell.get("id", "")), source, new, t)
            cell["source"], changed = new.splitlines(keepends=True), True
    if changed:  # the notebooks' own format: one-space indent, UTF-8, a final newline
        text = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
        Path(notebook).write_text(text, encoding="utf-8")
    return changed


ZH_SESSIONS = {1: "一", 2: "两", 3: "三", 4: "四", 5: "五"}
ZH_READING = re.compile(r"(\*\*阅读时间：\*\*\s*约\s*)\d+(\s*分钟)")
ZH_TEACHING = re.compile(r"\*\*授课时间：\*\*[^\n]*")


def chinese_teaching_text(t: ChapterTime) -> str:
    """The teaching time in the Chinese store's words: ``一次 90 分钟的课（含练习则两次）``."""
    n, m = t.lecture_sessions, t.teaching_sessions
    text = f"{ZH_SESSIONS[n]}次 {SESSION_MINUTES} 分钟的课"
    return text + ("，含练习" if m == n else f"（含练习则{ZH_SESSIONS[m]}次）")


def write_chinese_times(
    notebook: Path, cell_id: str, old: str, new: str, t: ChapterTime, store: Path | None = None
) -> bool:
    """Carry new times into the chapter's Chinese unit of the box, where that unit translated
    the old English (a stale unit stays stale for its translator); True if it was updated."""
    from ropebook import zh_store

    path = store or zh_store.STORE / f"{Path(notebook).stem}.md"
    units = zh_store.read_store(path)
    unit = units.get(cell_id)
    if unit is None or unit.sha != zh_store.unit_sha(old):
        return False
    text = ZH_READING.sub(rf"\g<1>{t.reading_minutes}\g<2>", unit.text)
    text = ZH_TEACHING.sub(f"**授课时间：** {chinese_teaching_text(t)}。", text)
    body = path.read_text(encoding="utf-8")
    marker = f"<!-- unit {cell_id} en:{unit.sha} -->"
    start = body.index(marker)
    end = body.index(unit.text, start) + len(unit.text)
    body = (
        body[:start] + f"<!-- unit {cell_id} en:{zh_store.unit_sha(new)} -->\n" + text + body[end:]
    )
    path.write_text(body, encoding="utf-8")
    return True


def main() -> int:
    if "--sections" in sys.argv[1:]:
        for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
            t = chapter_time(notebook)
            print(f"{notebook.stem}: {t.reading_minutes} min reading, {t.lecture_minutes} in class")
            for s in section_times(notebook):
                print(
                    f"  {s.reading_minutes:>4}{s.lecture_minutes:>4}  {s.course or '-':<9}{s.title}"
                )
        return 0
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
