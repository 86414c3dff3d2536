"""The problem sets in the built site (issue 31): the kit holds the student
zips and the answer key, and the "Problem sets" page of every edition links
to zips its own site serves (the student edition self-contained, the
Chinese editions through the English site they sit in). Like
tests/test_kit.py these need `make book` and fail, never skip, without it.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote

import pytest
from bs4 import BeautifulSoup

from ropebook.build_assignments import PROBLEM_SETS

ROOT = Path(__file__).resolve().parents[1]


KIT = Path(os.environ.get("ROPELAB_KIT", ROOT / "_build" / "kit")).resolve()
SITE = Path(os.environ.get("ROPELAB_SITE", ROOT / "_build" / "html")).resolve()
ZIPS = [f"{folder}.zip" for folder in PROBLEM_SETS.values()]
#: edition -> (its site's root, the root that serves its zips); the Chinese
#: student edition where the student build made one (tools/build_student.py)
EDITIONS = {
    "instructor": ("", ""),
    "student": ("student", "student"),
    "zh": ("zh", ""),
}
if (SITE / "student" / "zh").is_dir():
    EDITIONS["student-zh"] = ("student/zh", "student")


def need(path: Path, how: str = "make book") -> Path:
    if not path.exists():
        pytest.fail(f"{path} is missing: run `{how}`")
    return path


def test_kit_holds_the_student_zips_and_the_answer_key() -> None:
    for name in ZIPS:
        need(KIT / "assignments" / name, "make kit")
    key = need(KIT / "answer-key" / "assignments", "make kit")
    for part in ("grader", "reference", "tests/planted", "README.md"):
        need(key / part, "make kit")


@pytest.mark.parametrize("edition", sorted(EDITIONS))
def test_problem_sets_page_links_its_sites_zips(edition: str) -> None:
    site, serving = EDITIONS[edition]
    page = need(SITE / site / "book" / "assignments.html")
    links = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    hrefs = [a["href"] for a in links.select("a.kit-assignment")]
    assert [h.rsplit("/", 1)[-1] for h in hrefs] == ZIPS
    for href, name in zip(hrefs, ZIPS, strict=True):
        target = (page.parent / unquote(href)).resolve()
        assert target == (SITE / serving / "assignments" / name).resolve()
        assert target.read_bytes() == (KIT / "assignments" / name).read_bytes()
