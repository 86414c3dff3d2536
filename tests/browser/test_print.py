"""How the book's pages print (print media, emulated at 1280, 768 and 390 px; issue 13).

Read from the same single visit per page as test_layout.py (``tools/page_layout.py``). Print
is measured *before* anything on the page is clicked open, as a reader's "Print" would see it:

* every display equation fits the paper's column (ropelab-print.js scales an equation that is
  wider than the paper down, to 40 % at the least), at every width;
* every solution prints open (``ropelab_print_solutions: open``, the default);
* code and outputs wrap: no code block is wider than its box;
* no navigation, sidebars, header, launch or toggle buttons are printed;
* explorables are not printed: each one is replaced by its static figure (the ``print-only``
  figure cell right after its ``screen-only`` cell), and no ``screen-only`` cell prints.

The tables below list the chapters that do not pass a check yet (their issue-13 edits are
pending). When your chapter passes a check, delete its line from that check's table: the
entries are strict xfails, so a listed chapter that passes fails the run.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.strict_xfail import strict_xfail_params

from .conftest import book_pages

# --- chapters not yet fixed (issue 13): stem -> what is still wrong ------------------------
MATH_FITS_IN_PRINT: dict[str, str] = {}
EXPLORABLES_PRINT_AS_FIGURES: dict[str, str] = {}
# -------------------------------------------------------------------------------------------

PAGES = book_pages()
PRINT = ("1280-print", "768-print", "390-print")


def in_print(visit: Any, relative: str) -> dict[str, dict[str, Any]]:
    views = visit(relative).views
    return {view: views[view] for view in PRINT}


@pytest.mark.parametrize("relative", strict_xfail_params(PAGES, MATH_FITS_IN_PRINT))
def test_display_math_fits_the_paper(visit, relative):
    wide = [
        f"{view}: {e['width']} px in {e['box']} px at {e['where']}: {e['tex']}"
        for view, probe in in_print(visit, relative).items()
        for e in probe["equations"]
        if not e["fits"] or e["clipped"]
    ]
    assert wide == [], f"{len(wide)} equations cut off in print:\n" + "\n".join(wide)


@pytest.mark.parametrize("relative", strict_xfail_params(PAGES, {}))
def test_solutions_print_open(visit, relative):
    for view, probe in in_print(visit, relative).items():
        closed = [s["title"] for s in probe["solutions"] if not (s["shown"] and s["bodyShown"])]
        assert closed == [], f"{view}: solutions hidden in print: {closed}"


@pytest.mark.parametrize("relative", strict_xfail_params(PAGES, {}))
def test_code_wraps_in_print(visit, relative):
    for view, probe in in_print(visit, relative).items():
        cut = [
            f"{c['kind']} at {c['where']}: {c['first']!r}"
            for c in probe["code"]
            if c["scrolls"] or c["clipped"]
        ]
        assert cut == [], f"{view}: code blocks wider than the paper:\n" + "\n".join(cut)


@pytest.mark.parametrize("relative", strict_xfail_params(PAGES, {}))
def test_no_navigation_in_print(visit, relative):
    for view, probe in in_print(visit, relative).items():
        assert probe["chrome"] == [], f"{view}: printed page chrome: {probe['chrome']}"


@pytest.mark.parametrize("relative", strict_xfail_params(PAGES, EXPLORABLES_PRINT_AS_FIGURES))
def test_explorables_print_as_their_static_figure(visit, relative):
    views = visit(relative).views
    on_screen = views["1280-screen"]["explorables"]
    problems = [
        f"explorable {ex['id']} at {ex['where']}: no print-only figure cell right after it"
        for ex in on_screen
        if not ex["printTwin"]
    ]
    for view, probe in in_print(visit, relative).items():
        problems += [
            f"{view}: explorable {e['id']} printed" for e in probe["explorables"] if e["shown"]
        ]
        if probe["hidden"]["screenOnlyShown"]:
            problems.append(
                f"{view}: {probe['hidden']['screenOnlyShown']} screen-only cells printed"
            )
        twins = [f for f in probe["figures"] if f["printOnly"]]
        problems += [
            f"{view}: static figure {f['id']} not printed" for f in twins if not f["imageShown"]
        ]
    assert problems == [], "\n".join(problems)
