"""The student edition in Chromium, and the kit's printed page (issue 18).

The student edition (``_build/html/student/``, ``ropelab_edition: student``) is the book without
the solutions. Each of its pages is opened offline like the instructor pages: it works (no
console error, no outside request, its equations typeset), it shows no solution and no
"Solution to" text, and it has the same exercises with the same numbers as the instructor
page ("Exercise 3A.1"), in the same order. Its header links to the student PDF, which exists.

The cheat sheet prints on one A4 page (Chromium's print to PDF, as a lecturer prints it).
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from .conftest import book_pages

STUDENT = "student"
PAGES = book_pages()

READ = """() => ({
    solutions: document.querySelectorAll('div.solution, .solution-title').length,
    solutionText: document.body.innerText.includes('Solution to'),
    exercises: [...document.querySelectorAll('div.exercise .admonition-title')]
        .map(t => (t.innerText.match(/Exercise \\d+[A-Z]?\\.\\d+/) || [''])[0]),
    pending: document.querySelectorAll('.math:not(:has(mjx-container))').length,
    pdf: (document.querySelector('a.btn-kit-pdf-button') || {}).href || null,
})"""

SETTLED = """async () => {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
        await MathJax.startup.promise;
    }
}"""


def read(open_page, relative: str) -> tuple[dict, object]:
    page, log = open_page(relative)
    page.evaluate(SETTLED)
    return page.evaluate(READ), log


@pytest.mark.parametrize("relative", PAGES, ids=lambda r: Path(r).stem)
def test_student_page_has_the_exercises_and_no_solution(open_page, site, relative):
    student_page = f"{STUDENT}/{relative}"
    if not (site / student_page).exists():
        pytest.fail(f"{student_page} is missing: make book builds the student edition")
    student, log = read(open_page, student_page)
    instructor, _ = read(open_page, relative)
    assert student["solutions"] == 0 and not student["solutionText"], (
        f"{student_page}: solutions in the student edition"
    )
    assert student["exercises"] == instructor["exercises"], (
        f"{student_page}: exercises {student['exercises']}, instructor {instructor['exercises']}"
    )
    if relative.startswith("notebooks/"):
        assert student["exercises"] and all(student["exercises"]), student["exercises"]
        assert instructor["solutions"] > 0, f"{relative}: the instructor page has no solution"
    assert student["pending"] == 0, f"{student_page}: equations left untypeset"
    assert student["pdf"] and student["pdf"].endswith("kit/rope-derived-and-run-student.pdf")
    assert Path(student["pdf"].removeprefix("file://")).is_file()
    assert log.external_requests == [] and log.failed_requests == [], student_page
    assert log.console_errors == [] and log.page_errors == [], (
        f"{student_page}: {log.console_errors} {log.page_errors}"
    )


def test_cheatsheet_prints_on_one_page(open_page, site):
    page, log = open_page("book/cheatsheet.html")
    page.evaluate(SETTLED)
    page.emulate_media(media="print")
    with tempfile.TemporaryDirectory(prefix="ropelab-cheatsheet-") as tmp:
        pdf = Path(tmp) / "cheatsheet.pdf"
        page.pdf(path=str(pdf), format="A4", print_background=True)
        info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    pages = int(re.search(r"^Pages:\s+(\d+)", info.stdout, re.M).group(1))
    assert pages == 1, f"the cheat sheet prints on {pages} A4 pages"
    assert log.console_errors == []
