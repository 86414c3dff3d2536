"""The course paths (issue 31): every section of every chapter is marked core or optional,
section times add up to the chapter's, and ``book/teaching.md`` is current, its lectures fit
in 90 minutes and add up to the totals it prints, and its short paths take core sections only.

The page is read back as a reader sees it (its tables), and each row is checked against the
notebooks themselves (the marker in the cell metadata, the section's minutes from
``tools/reading_time.py``), so a wrong generator cannot pass by agreeing with itself.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from ropebook import course_path as cp
from ropebook import reading_time as rt

ROOT = Path(__file__).resolve().parents[1]


CHAPTERS = cp.toc_chapters()
PAGE = ROOT / "book" / "teaching.md"
STORE = ROOT / "book" / "zh" / "teaching.md"
ROW = re.compile(r"^\| (\w+) \| \{doc\}`(.+?) <\.\./notebooks/(\w+)>` \| (\d+) \|$")
TOTAL = re.compile(r"^\| \| \*\*Total\*\* \| \*\*(\d+)\*\* \|$")
LECTURE = re.compile(r"^### Lecture (\d+): .+ \((\d+) minutes\)$")
STEP = re.compile(
    r"^\d+\. \*\*(\d+)–(\d+) min\*\*, chapter \w+, \{doc\}`(.+?) <\.\./notebooks/(\w+)>`: "
)


def cells(stem: str) -> list[dict]:
    return json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]


def marker_of(stem: str, title: str) -> str | None:
    """The course marker of the cell that opens section ``title``, read from the notebook."""
    for cell in cells(stem):
        if cell["cell_type"] == "markdown" and re.search(
            rf"^## {re.escape(title)}\s*$", "".join(cell["source"]), re.M
        ):
            return cell["metadata"].get("ropelab", {}).get("course")
    raise AssertionError(f"{stem}: no section {title!r}")


def lectures_on(text: str) -> dict[str, list[dict]]:
    """``{path heading: [lecture, ...]}``: each lecture's printed minutes, rows and total."""
    paths: dict[str, list[dict]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("## "):
            current = paths.setdefault(line[3:], [])
        elif (m := LECTURE.match(line)) and current is not None:
            current.append({"heading": int(m.group(2)), "rows": [], "total": None})
        elif (m := ROW.match(line)) and current:
            current[-1]["rows"].append((m.group(3), m.group(2), int(m.group(4))))
        elif (m := TOTAL.match(line)) and current:
            current[-1]["total"] = int(m.group(1))
    return paths


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_section_carries_a_course_marker(path):
    assert cp.marker_problems(path) == []
    headings = [
        line[3:].strip()
        for c in cells(path.stem)
        if c["cell_type"] == "markdown"
        for line in "".join(c["source"]).splitlines()
        if line.startswith("## ")
    ]
    assert [s.title for s in rt.section_times(path)] == headings
    assert {marker_of(path.stem, h) for h in headings} <= {"core", "optional"}


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_section_times_add_up_to_the_chapters(path):
    chapter = rt.chapter_time(path)
    sections = rt.section_times(path)
    assert sum(s.reading_minutes for s in sections) == chapter.reading_minutes
    assert sum(s.lecture_minutes for s in sections) == chapter.lecture_minutes
    assert chapter.lecture_minutes == math.floor(1.5 * chapter.reading_minutes + 0.5)
    # shares follow what each section holds: no section is off its exact share by a minute
    whole = sum(s.raw_minutes for s in sections)
    for s in sections:
        exact = chapter.reading_minutes * s.raw_minutes / whole
        assert abs(s.reading_minutes - exact) < 1, (path.stem, s.title, exact)


def test_a_missing_marker_is_found(tmp_path):
    stem = CHAPTERS[0].stem
    nb = json.loads(CHAPTERS[0].read_text(encoding="utf-8"))
    opening = next(
        c
        for c in nb["cells"]
        if c["cell_type"] == "markdown" and "".join(c["source"]).startswith("## ")
    )
    del opening["metadata"]["ropelab"]
    copy = tmp_path / f"{stem}.ipynb"
    copy.write_text(json.dumps(nb), encoding="utf-8")
    assert any("has no course marker" in p for p in cp.marker_problems(copy))


def test_page_and_its_chinese_store_are_current():
    assert PAGE.read_text(encoding="utf-8") == cp.render("en"), (
        "book/teaching.md is stale: run `.venv/bin/python tools/course_path.py --write`"
    )
    assert STORE.read_text(encoding="utf-8") == cp.render_store(), (
        "book/zh/teaching.md is stale: run `.venv/bin/python tools/course_path.py --write`"
    )


def test_each_lecture_adds_up_and_fits_in_90_minutes():
    paths = lectures_on(PAGE.read_text(encoding="utf-8"))
    counts = {name: len(lectures) for name, lectures in paths.items() if lectures}
    assert counts == {"One lecture": 1, "Two lectures": 2, "Four lectures": 4}
    for name, lectures in paths.items():
        for lecture in lectures:
            minutes = sum(m for _, _, m in lecture["rows"])
            assert lecture["rows"], name
            assert minutes == lecture["total"] == lecture["heading"], (name, lecture)
            assert lecture["total"] <= 90, (name, lecture["total"])


def test_rows_state_the_sections_own_minutes():
    minutes = {(p.stem, s.title): s.lecture_minutes for p in CHAPTERS for s in rt.section_times(p)}
    for lectures in lectures_on(PAGE.read_text(encoding="utf-8")).values():
        for lecture in lectures:
            for stem, title, m in lecture["rows"]:
                assert minutes[(stem, title)] == m, (stem, title)


def test_short_paths_take_core_sections_only():
    paths = lectures_on(PAGE.read_text(encoding="utf-8"))
    for name in ("One lecture", "Two lectures"):
        for lecture in paths[name]:
            for stem, title, _ in lecture["rows"]:
                assert marker_of(stem, title) == "core", (name, stem, title)


def test_an_optional_section_in_a_short_path_is_refused(monkeypatch):
    one = cp.PATHS[0]
    planted = cp.CoursePath(
        one.lectures,
        one.name,
        one.name_zh,
        (),
        (cp.Lecture("x", "x", (("02_complex_derivation", ("Explore the complex score",)),)),),
        core_only=True,
    )
    with pytest.raises(ValueError, match="core sections only"):
        cp.resolve(planted, {p.stem: cp.read_chapter(p) for p in CHAPTERS})


def test_a_lecture_over_90_minutes_is_refused():
    chapters = {p.stem: cp.read_chapter(p) for p in CHAPTERS}
    long = cp.CoursePath(
        1, "x", "x", (), (cp.Lecture("x", "x", (("06_scaling_laws", "all"),)),), core_only=False
    )
    with pytest.raises(ValueError, match="more than 90"):
        cp.resolve(long, chapters)


def test_the_plan_follows_the_two_lecture_path_step_by_step():
    text = PAGE.read_text(encoding="utf-8")
    two = lectures_on(text)["Two lectures"]
    plan = text.split("## A two-lecture plan, step by step", 1)[1]
    lectures, steps = [], []
    for line in plan.splitlines():
        if line.startswith("### Lecture"):
            steps = []
            lectures.append(steps)
        elif m := STEP.match(line):
            steps.append(
                (m.group(4), m.group(3), int(m.group(2)) - int(m.group(1)), int(m.group(1)))
            )
    assert len(lectures) == len(two) == 2
    for steps, lecture in zip(lectures, two, strict=True):
        assert [(s, t, m) for s, t, m, _ in steps] == lecture["rows"]
        clock = 0
        for _, _, minutes, start in steps:
            assert start == clock
            clock += minutes
        assert clock == lecture["total"]


def test_the_page_is_in_getting_started_after_the_notation():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    getting_started = toc.split("- caption: Getting started", 1)[1].split("- caption:", 1)[0]
    files = re.findall(r"- file: (\S+)", getting_started)
    assert files.index("book/teaching") == files.index("book/notation") + 1


def test_the_page_names_each_problem_set_with_a_lecture():
    text = PAGE.read_text(encoding="utf-8")
    for name in cp.PROBLEM_SETS:
        assert f"**Problem set**: `{name}`" in text, name
    assert "answer" not in text.lower(), "a student page must not point at the answer key"


# --- the decks read the same markers -------------------------------------------------------------

SLIDE_SECTION = re.compile(r"^<section\b([^>]*)>")
ATTRIBUTE = re.compile(r'data-(course|section)="([^"]*)"')


def deck_markers(path: Path, out: Path) -> list[dict[str, str]]:
    """Each slide of the chapter's deck, as ``tools/build_slides.py`` builds it: its
    ``data-course`` and ``data-section`` (empty where the slide carries none)."""
    import html

    from ropebook import build_slides

    deck = build_slides.ChapterDeck(path, out, {}).build()
    found = []
    for slide in deck.slides:
        opening = SLIDE_SECTION.match(slide.lstrip())
        attributes = dict(ATTRIBUTE.findall(opening.group(1))) if opening else {}
        found.append({k: html.unescape(v) for k, v in attributes.items()})
    return found


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_each_slide_carries_its_sections_marker(path, tmp_path):
    """The deck's slide *n* is in the section the teaching page puts it in, with that
    section's marker: the slides and the path page read one marker and number slides alike."""
    chapter = cp.read_chapter(path)
    slides = deck_markers(path, tmp_path)
    assert len(slides) == chapter.deck_size, f"{path.stem}: deck of {len(slides)} slides"
    placed = {}
    for section in chapter.sections:
        assert section.course == marker_of(path.stem, section.title)
        for number in section.slides:
            placed[number] = section
            slide = slides[number - 1]
            assert slide.get("section") == section.title, (
                f"{path.stem}: slide {number} is in {slide.get('section')!r}, "
                f"the teaching page puts it in {section.title!r}"
            )
            assert slide.get("course") == section.course, (
                f"{path.stem}: slide {number} ({section.title}) is marked {slide.get('course')!r}"
                f" in the deck, {section.course!r} in the chapter"
            )
    unplaced = [n for n, s in enumerate(slides, start=1) if s.get("course") and n not in placed]
    assert unplaced == [], f"{path.stem}: marked slides no section of the page holds: {unplaced}"


def test_optional_sections_have_tagged_slides_somewhere(tmp_path):
    """The marker reaches a reader of the decks: some deck shows optional slides (with their
    note), and every optional slide's notes say so."""
    from ropebook import build_slides

    optional = 0
    for path in CHAPTERS:
        deck = build_slides.ChapterDeck(path, tmp_path, {}).build()
        for slide in deck.slides:
            if 'data-course="optional"' in slide.split(">", 1)[0]:
                optional += 1
                assert "Optional section" in slide, slide[:200]
    assert optional >= 5, optional
