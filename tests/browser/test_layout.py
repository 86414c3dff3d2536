"""How the book's pages lay out on screen, at 1280, 768 and 390 px (issue 13).

Each page is measured once per view by ``tools/page_layout.py`` (the ``visit`` fixture); every
test below reads those measurements:

* display math (prose equations and SymPy outputs alike) fits its column at 1280 and 768 px;
* no equation is ever clipped, at any width, on screen or in print; where one scrolls (allowed
  on a 390-px phone only) its scrollbar is drawn; the page itself never scrolls sideways;
* no code block (cell code, printed output, code in a solution) scrolls sideways at 1280 px;
* every figure has a caption numbered "Figure <chapter>.<n>", n = 1, 2, … in page order, and
  every explorable shown on screen has one (its own, or that of the print-only figure cell
  right after it); no image of a cell output is left without a figure;
* no TeX is left in the prose: no literal ``$``, no ``\\command``;
* exercises are numbered per chapter ("Exercise 3.2", "Exercise 3A.1"), solutions and
  references say the same number, and nothing reads "Exercise Exercise";
* a cell tagged ``print-only`` shows no code or image on screen;
* on a phone (390 px, issue 33), in every edition (English, Chinese, student English and
  Chinese): every display equation lies inside the text column (its narrow form, switched in
  by ``book/assets/ropelab-narrow.js``, or shrunk to fit), except the few listed in
  ``UNBREAKABLE`` with the reason, which shrink to 70 % and scroll with a cue; no equation
  number overlaps its formula at any width; every inline formula's boxes lie inside the column;
  a screen reader is offered the one form on screen; laptops and print get the wide forms;
  explorables draw no label under 11 px and fit their box.

The tables below list the chapters that do not pass a check yet (their issue-13 edits are
pending). When your chapter passes a check, delete its line from that check's table: the
entries are strict xfails, so a listed chapter that passes fails the run.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ropebook.page_layout import summarize
from tests.strict_xfail import strict_xfail_params

from .conftest import SITE, book_pages, student_pages, write_json, zh_pages

# --- chapters not yet fixed (issue 13): stem -> what is still wrong ------------------------
MATH_FITS_ON_SCREEN: dict[str, str] = {}
MATH_NEVER_CLIPPED: dict[str, str] = {}
CODE_FITS_AT_1280: dict[str, str] = {}
FIGURES_NUMBERED: dict[str, str] = {}
NO_TEX_IN_PROSE: dict[str, str] = {}
EXERCISES_PER_CHAPTER: dict[str, str] = {}
# -------------------------------------------------------------------------------------------

PAGES = book_pages()
SCREEN = ("1280-screen", "768-screen", "390-screen")


def chapter_of(probe: dict[str, Any]) -> str | None:
    return probe["chapter"]


def numbered(kind: str, chapter: str | None) -> re.Pattern[str]:
    """ "Figure 4.2", "Exercise 3A.1"; on a page without a chapter number, "Figure 2"."""
    prefix = rf"{re.escape(chapter)}\." if chapter else ""
    return re.compile(rf"^{kind} {prefix}(\d+):?$")


def describe_equation(e: dict[str, Any]) -> str:
    return f"{e['width']} px in {e['box']} px at {e['where']}: {e['tex']}"


@pytest.mark.parametrize("relative", strict_xfail_params(PAGES, MATH_FITS_ON_SCREEN))
def test_display_math_fits_at_1280_and_768(visit, relative):
    views = visit(relative).views
    wide = [
        f"{view}: {describe_equation(e)}"
        for view in ("1280-screen", "768-screen")
        for e in views[view]["equations"]
        if not e["fits"]
    ]
    assert wide == [], f"{len(wide)} equations wider than their column:\n" + "\n".join(wide)


@pytest.mark.parametrize("relative", strict_xfail_params(PAGES, MATH_NEVER_CLIPPED))
def test_math_is_never_clipped_and_scrolls_only_with_a_scrollbar(visit, relative):
    problems = []
    for view, probe in visit(relative).views.items():
        for e in probe["equations"]:
            if e["clipped"]:
                problems.append(f"{view}: clipped by {e['clipper']}: {describe_equation(e)}")
            elif e["scrolls"] and not e["scrollbar"]:
                problems.append(f"{view}: scrolls with no scrollbar: {describe_equation(e)}")
        if view in SCREEN and probe["pageScrollsSideways"]:
            problems.append(f"{view}: the whole page scrolls sideways")
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("relative", strict_xfail_params(PAGES, CODE_FITS_AT_1280))
def test_code_blocks_do_not_scroll_at_1280(visit, relative):
    code = visit(relative).views["1280-screen"]["code"]
    scrolling = [
        f"{c['kind']} at {c['where']}: {c['longest']} characters, {c['content']} px in "
        f"{c['width']} px: {c['first']!r}"
        for c in code
        if c["scrolls"]
    ]
    assert scrolling == [], f"{len(scrolling)} of {len(code)} code blocks scroll:\n" + "\n".join(
        scrolling
    )


@pytest.mark.parametrize("relative", strict_xfail_params(PAGES, FIGURES_NUMBERED))
def test_every_figure_has_a_numbered_caption(visit, relative):
    views = visit(relative).views
    problems = []
    for view in ("1280-screen", "768-print"):
        probe = views[view]
        pattern = numbered("Figure", chapter_of(probe))
        numbers = []
        for fig in probe["figures"]:
            match = pattern.match(fig["number"] or "")
            if not match or not fig["text"]:
                problems.append(f"{view}: figure {fig['id']} at {fig['where']}: {fig['number']!r}")
            else:
                numbers.append(int(match.group(1)))
            if fig["figureShown"] and not fig["shown"]:
                problems.append(f"{view}: the caption of {fig['id']} is hidden")
        if numbers != list(range(1, len(numbers) + 1)):
            problems.append(f"{view}: figure numbers {numbers}, not 1..{len(numbers)}")
        problems += [f"{view}: an output image with no figure at {w}" for w in probe["bareImages"]]
        if view.endswith("screen"):
            for ex in probe["explorables"]:
                caption = ex["caption"] or {}
                if ex["shown"] and not (
                    pattern.match(caption.get("number") or "") and caption.get("shown")
                ):
                    problems.append(f"{view}: explorable {ex['id']} has no numbered caption")
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("relative", strict_xfail_params(PAGES, NO_TEX_IN_PROSE))
def test_no_tex_left_in_the_prose(visit, relative):
    left = visit(relative).views["1280-screen"]["texLeft"]
    assert left == [], "TeX outside math:\n" + "\n".join(left)


@pytest.mark.parametrize("relative", strict_xfail_params(PAGES, EXERCISES_PER_CHAPTER))
def test_exercises_are_numbered_per_chapter(visit, relative):
    probe = visit(relative).views["1280-screen"]
    chapter = chapter_of(probe)
    expected = [f"Exercise {chapter}.{i}" for i in range(1, len(probe["exercises"]) + 1)]
    if chapter is None:
        expected = [f"Exercise {i}" for i in range(1, len(probe["exercises"]) + 1)]
    assert [e["number"] for e in probe["exercises"]] == expected
    for solution in probe["solutions"]:
        match = re.match(r"Solution to ?(Exercise \S+)", solution["title"] or "")
        assert match and match.group(1) in expected, f"solution titled {solution['title']!r}"
    any_chapter = re.compile(r"^Exercise \d+[A-Z]?\.\d+$")
    for text in probe["numrefs"]:
        if text.startswith("Exercise"):
            assert any_chapter.match(text), f"a reference reads {text!r}"
    assert probe["doubled"] == [], f"doubled words on the page: {probe['doubled']}"


@pytest.mark.parametrize("relative", strict_xfail_params(PAGES, {}))
def test_print_only_cells_show_nothing_but_captions_on_screen(visit, relative):
    views = visit(relative).views
    shown = {view: views[view]["hidden"]["printOnlyShown"] for view in SCREEN}
    assert set(shown.values()) == {0}, f"print-only cells with code or images on screen: {shown}"


def test_layout_report(visit):
    """Writes ``_build/layout.json``: per page and view, how many equations overflow, are
    clipped, and how many code blocks scroll (the visits are cached: this reloads nothing)."""
    report = {Path(r).stem: summarize(visit(r).views) for r in PAGES}
    write_json(SITE.parent / "layout.json", report)
    wide = {page: views["1280-screen"]["overflowing"] for page, views in report.items()}
    scrolling = {page: views["1280-screen"]["code_scrolls"] for page, views in report.items()}
    print(f"at 1280 px: equations too wide {wide}; code blocks that scroll {scrolling}")


# --- phones (issue 33) ----------------------------------------------------------------------
PHONE = "390-screen"
#: Every page of every edition: the site, its Chinese edition, the student edition and its
#: Chinese edition.
ALL_EDITIONS = PAGES + zh_pages() + student_pages()
#: Display equations a phone cannot show whole: (page stem, the start of the formula's text as
#: the probe reads it) -> why. They shrink to 70 % and scroll sideways with a cue (a shadow on
#: the side that scrolls), whole; the test fails when one fits (delete its line) or when it
#: does not scroll with its cue.
UNBREAKABLE: dict[tuple[str, str], str] = {
    ("01_rotation_2d", "Rm⊤Rn=(cos⁡mθsin⁡mθ"): (
        "the product written out as one 2×2 matrix whose entries are sums of two products "
        "(26 em): nothing outside the matrix to break at, and a matrix is never cut"
    ),
}
#: The smallest label an explorable may draw on a phone, in CSS pixels.
SMALLEST_LABEL_PX = 11


def unbreakable(relative: str, e: dict[str, Any]) -> str | None:
    stem = Path(relative).stem
    return next(
        (
            why
            for (page, start), why in UNBREAKABLE.items()
            if page == stem and e["tex"].startswith(start)
        ),
        None,
    )


@pytest.mark.parametrize("relative", ALL_EDITIONS)
def test_display_math_fits_a_phone(visit, relative):
    problems = []
    for e in visit(relative).views[PHONE]["equations"]:
        why = unbreakable(relative, e)
        whole = e["fits"] and e["inColumn"]
        if whole and why:
            problems.append(f"listed in UNBREAKABLE but fits now: {describe_equation(e)}")
        elif not whole and not why:
            problems.append(
                f"{e['variant'] or 'no narrow form'}, at {e['scale']:.0%}: {describe_equation(e)}"
            )
        elif why and not (e["cue"] and e["scrolls"] and not e["clipped"] and e["scale"] <= 0.71):
            problems.append(f"unbreakable, but not shrunk to 70 % with a scroll cue: {e}")
    assert problems == [], f"{len(problems)} display equations at 390 px:\n" + "\n".join(problems)


@pytest.mark.parametrize("relative", ALL_EDITIONS)
def test_equation_numbers_clear_of_their_formulas(visit, relative):
    overlaps = [
        f"{view}: {e['eqno']} over {describe_equation(e)}"
        for view in SCREEN
        for e in visit(relative).views[view]["equations"]
        if e["eqnoOverlap"]
    ]
    assert overlaps == [], "\n".join(overlaps)


@pytest.mark.parametrize("relative", ALL_EDITIONS)
def test_inline_math_stays_in_the_column(visit, relative):
    outside = [
        f"{view}: {i['width']} px, {i['overRight']} px past the right edge, "
        f"{i['overLeft']} px past the left, at {i['where']}: {i['tex']}"
        for view in SCREEN
        for i in visit(relative).views[view]["inline"]
        if not i["inColumn"]
    ]
    assert outside == [], f"{len(outside)} inline formulas leave the column:\n" + "\n".join(outside)


@pytest.mark.parametrize("relative", ALL_EDITIONS)
def test_one_form_of_each_equation_is_shown_and_read(visit, relative):
    """The narrow forms only where the wide one does not fit: never at 1280 px, never in print;
    the form on screen is the one a screen reader reads (the other is aria-hidden)."""
    views = visit(relative).views
    problems = [
        f"{view}: the narrow form shown: {describe_equation(e)}"
        for view in ("1280-screen", "1280-print", "768-print", "390-print")
        for e in views[view]["equations"]
        if e["variant"] == "narrow"
    ]
    problems += [
        f"{view}: the equation on screen is aria-hidden: {describe_equation(e)}"
        for view in SCREEN
        for e in views[view]["equations"]
        if e["ariaHidden"]
    ]
    narrowed = [e for e in views[PHONE]["equations"] if e["narrowed"]]
    problems += [
        f"{PHONE}: a wide form shown that does not fit: {describe_equation(e)}"
        for e in narrowed
        if e["variant"] == "wide" and not e["fits"]
    ]
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("relative", ALL_EDITIONS)
def test_explorables_are_readable_on_a_phone(visit, relative):
    problems = [
        f"{ex['id']} ({ex['kind']}): smallest label {ex['smallestLabel']} px, "
        f"fits {ex['figureFits']}, scrolls {ex['figureScrolls']}"
        for ex in visit(relative).views[PHONE]["explorables"]
        if ex["shown"]
        and (
            ex["smallestLabel"] is None
            or ex["smallestLabel"] < SMALLEST_LABEL_PX
            or not (ex["figureFits"] or ex["figureScrolls"])
        )
    ]
    assert problems == [], "\n".join(problems)
