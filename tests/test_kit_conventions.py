"""Every chapter carries the lecturer's-kit markers (issue 18), checked on the notebooks.

The conventions (decided for the kit; the site and the PDF style the two boxes,
``book/assets/ropelab-kit.css`` and ``book/latex/ropelab-kit.sty``):

* **Before you start**: right after the chapter's opening paragraph and before "## Learning
  objectives", one markdown cell holding an admonition titled "Before you start" with class
  ``chapter-meta`` and three items: prerequisites, a reading time and a teaching time in minutes
  or sessions;
* **What to remember**: the last cell before "## Exercises", an admonition titled "What to
  remember" with class ``remember`` and three to five points: the chapter's one summary (no
  "## Summary" section repeats it, issue 31);
* **Slides**: 6 to 12 cells tagged ``slide`` (the deck is the title slide and these cells,
  ``tools/build_slides.py``), at least one of them a figure or an explorable.

The tables below list the chapters that do not carry a marker yet: strict xfails, so a chapter
that gets it fails the run until its line is deleted here (delete yours when you are done).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ropebook.book_toc import toc_docnames

ROOT = Path(__file__).resolve().parents[1]


from tests.strict_xfail import strict_xfail_params  # noqa: E402

# --- chapters without a marker yet: stem -> what is missing ------------------------------------
NO_CHAPTER_META: dict[str, str] = {}
NO_REMEMBER: dict[str, str] = {}
NO_SLIDES: dict[str, str] = {}
# -----------------------------------------------------------------------------------------------


def toc_chapters() -> list[Path]:
    return [ROOT / f"{e}.ipynb" for e in toc_docnames() if e.startswith("notebooks/")]


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def text(cell: dict) -> str:
    return "".join(cell["source"])


def admonition(cell: dict, title: str, css_class: str) -> str | None:
    """The body of the cell's admonition with this title and class, or None."""
    if cell["cell_type"] != "markdown":
        return None
    match = re.fullmatch(
        rf"\s*(`{{3,}}|:{{3,}})\{{admonition\}} {re.escape(title)}\n:class: {css_class}\n(.*)\1\s*",
        text(cell),
        re.S,
    )
    return match.group(2) if match else None


def heading_index(all_cells: list[dict], heading: str) -> int:
    for index, cell in enumerate(all_cells):
        if cell["cell_type"] == "markdown" and text(cell).lstrip().startswith(f"## {heading}"):
            return index
    raise AssertionError(f"no '## {heading}' section")


def items(body: str) -> list[str]:
    return [line for line in body.splitlines() if re.match(r"^- \S", line)]


@pytest.mark.parametrize("path", strict_xfail_params(toc_chapters(), NO_CHAPTER_META))
def test_before_you_start_opens_the_chapter(path):
    all_cells = cells(path)
    objectives = heading_index(all_cells, "Learning objectives")
    boxes = [
        i for i, c in enumerate(all_cells) if admonition(c, "Before you start", "chapter-meta")
    ]
    assert len(boxes) == 1, f"{path.name}: {len(boxes)} 'Before you start' boxes"
    assert boxes[0] < objectives, f"{path.name}: the box comes after 'Learning objectives'"
    body = admonition(all_cells[boxes[0]], "Before you start", "chapter-meta")
    entries = items(body)
    labels = [re.match(r"- \*\*([^*:]+):\*\*", e) for e in entries]
    assert [m.group(1) if m else e for m, e in zip(labels, entries, strict=True)] == [
        "Prerequisites",
        "Reading time",
        "Teaching time",
    ], f"{path.name}: {entries}"
    for entry in entries[1:]:
        assert re.search(r"\d+[- ]minute|\d+ minutes|\bsession", entry), (
            f"{path.name}: no time in {entry!r}"
        )


@pytest.mark.parametrize("path", strict_xfail_params(toc_chapters(), NO_REMEMBER))
def test_what_to_remember_closes_the_chapter(path):
    all_cells = cells(path)
    exercises = heading_index(all_cells, "Exercises")
    body = admonition(all_cells[exercises - 1], "What to remember", "remember")
    assert body is not None, f"{path.name}: the cell before '## Exercises' is not the box"
    summaries = [c for c in all_cells if c["cell_type"] == "markdown" and "## Summary" in text(c)]
    assert not summaries, f"{path.name}: a '## Summary' section repeats the box"
    points = items(body)
    assert 3 <= len(points) <= 5, f"{path.name}: {len(points)} points"


@pytest.mark.parametrize("path", strict_xfail_params(toc_chapters(), NO_SLIDES))
def test_chapter_tags_its_slides(path):
    tagged = [c for c in cells(path) if "slide" in c["metadata"].get("tags", [])]
    assert 6 <= len(tagged) <= 12, f"{path.name}: {len(tagged)} cells tagged 'slide'"
    visual = [
        c
        for c in tagged
        if c["cell_type"] == "code"
        and any(
            "image/png" in o.get("data", {}) or "text/html" in o.get("data", {})
            for o in c.get("outputs", [])
        )
    ]
    assert visual, f"{path.name}: no figure or explorable among the slides"
