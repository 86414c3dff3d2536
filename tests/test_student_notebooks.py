"""Student notebooks and the answer key (issue 31, ``tools/student_notebooks.py``), on a made-up
notebook and on every chapter; no build needed (the built edition: test_student_leaks.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ropebook.student_notebooks import (
    ANY_SOLUTION,
    answer_key_notebook,
    cell_source,
    chapter_notebooks,
    read_notebook,
    solutions,
    student_notebook,
    write_student_tree,
)

ROOT = Path(__file__).resolve().parents[1]


def md(text: str, cell_id: str) -> dict:
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": text}


def code(text: str, cell_id: str, printed: str) -> dict:
    return {
        "cell_type": "code",
        "id": cell_id,
        "metadata": {},
        "execution_count": 1,
        "source": text,
        "outputs": [{"output_type": "stream", "name": "stdout", "text": printed}],
    }


def made_up() -> dict:
    return {
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
        "cells": [
            md("# 1. A chapter\n\nProse.", "a"),
            code("x = 1", "b", ""),
            md("```{exercise} Turn\n:label: ch1-turn\n\nTurn it.\n```", "c"),
            md(
                "Before the solution.\n\n```{solution-start} ch1-turn\n:class: dropdown\n```\n\n"
                "Turn it by hand.",
                "d",
            ),
            code("print('turned by 90 degrees')", "e", "turned by 90 degrees\n"),
            md("It is turned.\n\n```{solution-end}\n```\n\nAfter the solution.", "f"),
            md(
                "```{exercise} Prove\n:label: ch1-prove\n\nProve it.\n```\n\n"
                "```{solution} ch1-prove\n:class: dropdown\n\nIt holds because.\n```\n",
                "g",
            ),
            md("```{solution} ch1-prove\n:class: dropdown\n\nSecond.\n```", "h"),
            code("y = 2", "i", ""),
        ],
    }


def test_a_student_notebook_keeps_the_exercises_and_drops_every_solution():
    student = student_notebook(made_up())
    texts = [cell_source(c) for c in student["cells"]]
    assert [c["id"] for c in student["cells"]] == ["a", "b", "c", "d", "f-after", "g", "i"]
    assert texts[3] == "Before the solution.\n"
    assert texts[4] == "After the solution."
    assert texts[5] == "```{exercise} Prove\n:label: ch1-prove\n\nProve it.\n```"
    joined = "\n".join(texts)
    for gone in ("Turn it by hand", "turned by 90", "It is turned", "It holds", "Second."):
        assert gone not in joined
    assert not ANY_SOLUTION.search(joined)


def test_the_solutions_of_the_made_up_notebook():
    found = solutions(made_up())
    assert [s.label for s in found] == ["ch1-turn", "ch1-prove", "ch1-prove"]
    assert found[0].prose == ["Turn it by hand.", "It is turned."]
    assert [cell_source(c) for c in found[0].code_cells] == ["print('turned by 90 degrees')"]
    assert found[1].prose == ["It holds because."]


def test_the_answer_key_holds_each_exercise_and_its_solution():
    key = answer_key_notebook(made_up())
    texts = [cell_source(c) for c in key["cells"]]
    assert texts[0].startswith("# Answer key: 1. A chapter")
    assert texts[1] == "## `ch1-turn`\n\n**Exercise: Turn**\n\nTurn it.\n\n**Solution**"
    assert texts[2:5] == ["Turn it by hand.\n", "print('turned by 90 degrees')", "It is turned.\n"]
    assert key["cells"][3]["outputs"][0]["text"] == "turned by 90 degrees\n"
    assert not any(ANY_SOLUTION.search(t) for t in texts)


def test_an_unclosed_solution_is_an_error():
    nb = made_up()
    del nb["cells"][5]
    with pytest.raises(ValueError, match="ch1-turn has no solution-end"):
        student_notebook(nb)


@pytest.mark.parametrize("path", chapter_notebooks(ROOT), ids=lambda p: p.stem)
def test_every_chapter_keeps_its_exercises_and_every_other_cell(path):
    nb = read_notebook(path)
    student = student_notebook(nb)
    found = solutions(nb)
    exercises = [c for c in nb["cells"] if "{exercise}" in cell_source(c)]
    assert found and len({s.label for s in found}) == len(found)
    assert [c["id"] for c in student["cells"] if "{exercise}" in cell_source(c)] == [
        c["id"] for c in exercises
    ]
    solution_ids = {id(c) for s in found for c in s.code_cells}
    kept_code = [
        c["id"] for c in nb["cells"] if c["cell_type"] == "code" and id(c) not in solution_ids
    ]
    assert [c["id"] for c in student["cells"] if c["cell_type"] == "code"] == kept_code
    assert not any(ANY_SOLUTION.search(cell_source(c)) for c in student["cells"])


def test_the_student_tree_is_the_book_without_solutions(tmp_path):
    pages = write_student_tree(ROOT, tmp_path / "tree")
    assert (tmp_path / "tree" / "_toc.yml").read_text() == (ROOT / "_toc.yml").read_text()
    for page in pages:
        text = (tmp_path / "tree" / page).read_text(encoding="utf-8")
        assert not ANY_SOLUTION.search(text), page
