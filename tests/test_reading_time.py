"""The reading and teaching times each chapter states are the ones tools/reading_time.py computes."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import reading_time as rt  # noqa: E402

CHAPTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("notebook", CHAPTERS, ids=lambda p: p.stem)
def test_each_chapter_states_the_computed_times(notebook):
    reading, teaching = rt.stated_times(notebook)
    computed = rt.chapter_time(notebook)
    assert (reading, teaching) == (computed.reading_minutes, computed.teaching_text()), (
        f"{notebook.name}: run `.venv/bin/python tools/reading_time.py --write`"
    )


def _notebook(tmp_path: Path) -> Path:
    words = " ".join(["word"] * 600)  # 600 words: 5 minutes at 120 a minute
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("# Setup (hidden in the book): install"),  # not counted
        nbformat.v4.new_markdown_cell(
            "```{admonition} Before you start\n:class: chapter-meta\n\n"
            "- **Reading time:** about 99 minutes.\n"
            "- **Teaching time:** nine 90-minute sessions.\n```"
        ),
        nbformat.v4.new_markdown_cell(words + "\n\n$$a = b$$\n\n$$c = d$$"),  # 2 equations
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_code_cell("plot()"),
        nbformat.v4.new_markdown_cell("```{exercise} One\nThese words are not read.\n```"),
        nbformat.v4.new_markdown_cell("```{solution-start} one\n:class: dropdown\n```"),
        nbformat.v4.new_code_cell("solution()"),  # inside the solution: not counted
        nbformat.v4.new_markdown_cell("Solution prose, not read.\n```{solution-end}\n```"),
    ]
    nb.cells[4].outputs = [nbformat.v4.new_output("display_data", {"image/png": "iVBOR"})]
    path = tmp_path / "chapter.ipynb"
    nbformat.write(nb, path)
    return path


def test_counts_and_times_of_a_small_chapter(tmp_path):
    t = rt.chapter_time(_notebook(tmp_path))
    assert (t.words, t.equations, t.figures, t.code_cells, t.exercises) == (600, 2, 1, 2, 1)
    # 5 + 2 x 1 + 0.75 + 2 x 0.5 = 8.75 minutes -> 10; lecture 15 minutes, +10 with the exercise
    assert (t.reading_minutes, t.lecture_sessions, t.teaching_sessions) == (10, 1, 1)
    assert t.teaching_text() == "one 90-minute session, exercises included"


def test_write_times_puts_them_in_the_box(tmp_path):
    path = _notebook(tmp_path)
    assert rt.stated_times(path) == (99, "nine 90-minute sessions")
    assert rt.write_times(path) is True
    assert rt.stated_times(path) == (10, "one 90-minute session, exercises included")
    assert rt.write_times(path) is False
