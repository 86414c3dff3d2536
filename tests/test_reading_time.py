"""The reading and teaching times each chapter states are the ones tools/reading_time.py computes."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from ropebook import reading_time as rt

ROOT = Path(__file__).resolve().parents[1]


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


def _sectioned(tmp_path: Path) -> Path:
    """Two sections: 240 words and an equation, then 120 words and a figure; the opening's
    120 words go to the first section."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 1. T\n\n" + " ".join(["word"] * 120)),
        nbformat.v4.new_markdown_cell("## First\n\n" + " ".join(["word"] * 240) + "\n\n$$a$$"),
        nbformat.v4.new_markdown_cell(
            "Text of the first.\n\n```python\n## not a heading\n```\n\n## Second\n\n"
            + " ".join(["word"] * 120)
        ),
        nbformat.v4.new_code_cell("plot()"),
    ]
    nb.cells[2].metadata["ropelab"] = {"course": "optional"}
    nb.cells[3].outputs = [nbformat.v4.new_output("display_data", {"image/png": "iVBOR"})]
    path = tmp_path / "sectioned.ipynb"
    nbformat.write(nb, path)
    return path


def test_sections_split_at_their_headings_and_add_up(tmp_path):
    path = _sectioned(tmp_path)
    sections = rt.section_times(path)
    assert [(s.title, s.course) for s in sections] == [("First", None), ("Second", "optional")]
    # first: 120 + 240 + 4 ("Text of the first") + 2 (the fenced "not a heading": prose_words
    # counts the words of a fence, as chapter_time does) and one equation; the heading words
    # count too ("First", "Second"); second: 120 words, a code cell with a figure
    first = (120 + 1 + 240 + 4 + 2) / 120 + 1.0  # "T" is one letter: not a word
    second = (1 + 120) / 120 + 0.5 + 0.75
    assert sections[0].raw_minutes == pytest.approx(first)
    assert sections[1].raw_minutes == pytest.approx(second)
    t = rt.chapter_time(path)
    assert t.reading_minutes == 5  # 6.3 minutes, to the nearest 5
    # shares of 5: 3.21 and 1.79 -> 3 + 1, the spare minute to the larger remainder (0.79)
    assert [s.reading_minutes for s in sections] == [3, 2]
    assert t.lecture_minutes == 8  # 7.5, to the nearest minute (half up)
    # shares of 8: 5.14 and 2.86 -> 5 + 2, the spare minute to 0.86
    assert [s.lecture_minutes for s in sections] == [5, 3]


def test_apportion_shares_by_largest_remainders():
    assert rt.apportion(10, [1, 1, 1]) == [4, 3, 3]
    assert rt.apportion(8, [4.1, 2.45, 2.45]) == [4, 2, 2]  # exact 3.645...: the ties to the first
    assert rt.apportion(7, [0.0, 0.0]) == [7, 0]
    assert sum(rt.apportion(83, [2.98, 9.49, 17.88, 19.45, 5.12, 0.0])) == 83
    with pytest.raises(ValueError, match="total"):
        rt.apportion(-1, [1.0])
    with pytest.raises(ValueError, match="weights"):
        rt.apportion(3, [])


def test_write_times_carries_them_into_a_current_chinese_unit(tmp_path):
    from ropebook import zh_store

    path = _notebook(tmp_path)
    nb = nbformat.read(path, as_version=4)
    box = nb.cells[1]
    store = tmp_path / "chapter.md"
    chinese = (
        "```{admonition} 开始之前\n:class: chapter-meta\n\n"
        "- **阅读时间：** 约 99 分钟。\n- **授课时间：** 九次 90 分钟的课。\n```"
    )
    store.write_text(
        f"<!-- unit {box.id} en:{zh_store.unit_sha(box.source)} -->\n{chinese}\n", encoding="utf-8"
    )
    t = rt.chapter_time(path)
    new = box.source.replace("99", "10")
    assert rt.write_chinese_times(path, box.id, box.source, new, t, store=store) is True
    unit = zh_store.read_store(store)[box.id]
    assert unit.sha == zh_store.unit_sha(new)
    assert "约 10 分钟" in unit.text
    assert "**授课时间：** 一次 90 分钟的课，含练习。" in unit.text
    # a unit that did not translate the old English is left stale for its translator
    assert rt.write_chinese_times(path, box.id, "other", new, t, store=store) is False
