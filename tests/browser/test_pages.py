"""Every page of the built site, opened offline in Chromium as a reader would open it.

For each page: it loads; no console error, page error or failed request; no request leaves
the machine; every equation is typeset by the site's own MathJax; every image loads; every
internal link points at a file that exists (and at an anchor that exists on that page). A
screenshot of each chapter is saved to ``_build/screenshots/``.

Page weight (issue 28): the HTML plus every local file the browser fetched for it, figures
included, stays within its budget: 1.5 MB for the introduction and the other pages of the book,
2.5 MB for a chapter (MB = 10^6 bytes). ``_build/page_weight.json`` records each page's weight,
its budget, its heaviest files, the time at which its equations were typeset and the time
its load event ended (reported, not asserted: they depend on the machine). Each page is loaded once for this file, test_layout.py and test_print.py (the
``visit`` fixture); the log covers the whole visit, print media and every width included.
"""

from __future__ import annotations

import json
from urllib.parse import unquote, urlparse

import pytest

from .conftest import ROOT, SITE, ZH, local_path, site_pages, zh_pages

PAGES = site_pages() if SITE.exists() else []
VISITS: dict[str, object] = {}

#: Bytes a page may weigh with everything it fetches (issue 28): a chapter, with its figures
#: and explorables; every other page of the book (the introduction, notation, glossary,
#: search, ...), in both editions. The slides are the lecturer's, opened once on a projector:
#: recorded, not budgeted.
CHAPTER_BUDGET = 2_500_000
PAGE_BUDGET = 1_500_000


def budget(relative: str) -> int | None:
    parts = relative.split("/")
    if "slides" in parts:
        return None
    return CHAPTER_BUDGET if "notebooks" in parts else PAGE_BUDGET


@pytest.mark.parametrize("relative", PAGES)
def test_page_works_offline(visit, relative):
    seen = visit(relative)
    log, content = seen.log, seen.content

    assert log.external_requests == [], f"{relative} asked the network for {log.external_requests}"
    assert log.failed_requests == [], f"{relative}: failed requests {log.failed_requests}"
    assert log.page_errors == [], f"{relative}: JavaScript errors {log.page_errors}"
    assert log.console_errors == [], f"{relative}: console errors {log.console_errors}"

    # Equations: every math node became a MathJax container, and no raw TeX delimiters remain.
    assert content["pending"] == 0, f"{relative}: {content['pending']} equations left untypeset"
    assert content["raw"] == [], f"{relative}: raw TeX on the page: {content['raw']}"

    # Images: all loaded with real pixels.
    assert content["broken"] == [], f"{relative}: images that did not load: {content['broken']}"

    # Internal links: the target file exists, and so does the anchor on it.
    for href in content["links"]:
        target = local_path(href)
        assert target.exists(), f"{relative} links to a missing file {target}"
        fragment = urlparse(href).fragment
        if fragment and target.suffix == ".html":
            html = target.read_text(encoding="utf-8")
            assert f'id="{unquote(fragment)}"' in html, f"{relative} links to a missing #{fragment}"

    VISITS[relative] = seen


@pytest.mark.parametrize("relative", PAGES)
def test_page_weight_within_budget(visit, relative):
    seen = visit(relative)
    VISITS[relative] = seen
    if budget(relative) is None:
        return
    heaviest = sorted(seen.files.items(), key=lambda kv: -kv[1])[:5]
    assert seen.weight <= budget(relative), (
        f"{relative} weighs {seen.weight / 1e6:.2f} MB, over its budget of "
        f"{budget(relative) / 1e6:.1f} MB; heaviest files: "
        + ", ".join(f"{name} {size / 1e3:.0f} KB" for name, size in heaviest)
    )
    # no page may bring back the scripts issue 28 took off the pages
    for name in seen.files:
        assert not name.endswith(("fontawesome.js", "tex-chtml-full.js")), f"{relative}: {name}"


def test_every_chapter_page_is_in_the_site():
    chapters = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert chapters, "no chapter notebooks found"
    for stem in chapters:
        assert f"notebooks/{stem}.html" in PAGES
        assert f"{ZH}/notebooks/{stem}.html" in PAGES, f"no Chinese page of {stem}: make kit"


# --- the Chinese edition (issue 27) --------------------------------------------------------
# Its pages are among PAGES (every HTML file of the site), so they load offline, with no
# console error, within their weight budget, like the English ones. Below: their layout at
# 1280, 768 and 390 px and in print, from the same single visit, and the language switch.


def _fits(view: str) -> bool:
    """Views in which a display equation must fit its column (a phone may scroll one)."""
    return view in ("1280-screen", "768-screen") or view.endswith("print")


@pytest.mark.parametrize("relative", zh_pages())
def test_zh_page_lays_out_and_prints(visit, relative):
    views = visit(relative).views
    problems = []
    for view, probe in views.items():
        for e in probe["equations"]:
            where = f"{view}: {e['width']} px in {e['box']} px at {e['where']}: {e['tex']}"
            if e["clipped"]:
                problems.append(f"clipped by {e['clipper']}: {where}")
            elif e["scrolls"] and not e["scrollbar"]:
                problems.append(f"scrolls with no scrollbar: {where}")
            if _fits(view) and not e["fits"]:
                problems.append(f"wider than its column: {where}")
        if view.endswith("screen") and probe["pageScrollsSideways"]:
            problems.append(f"{view}: the whole page scrolls sideways")
        if view.endswith("print"):
            problems += [f"{view}: printed page chrome {c}" for c in probe["chrome"]]
            problems += [
                f"{view}: code wider than the paper at {c['where']}: {c['first']!r}"
                for c in probe["code"]
                if c["scrolls"] or c["clipped"]
            ]
            problems += [
                f"{view}: solution hidden in print: {s['title']}"
                for s in probe["solutions"]
                if not (s["shown"] and s["bodyShown"])
            ]
    problems += [
        f"1280-screen: code block scrolls at {c['where']}: {c['first']!r}"
        for c in views["1280-screen"]["code"]
        if c["scrolls"]
    ]
    assert problems == [], f"{relative}:\n" + "\n".join(problems)


@pytest.mark.parametrize("relative", zh_pages())
def test_zh_page_numbers_in_chinese_as_the_english_page_does(visit, relative):
    """Figures "图 4.2：", exercises "练习 3A.1": the same numbers as the English page."""
    english = visit(relative.removeprefix(f"{ZH}/")).views["1280-screen"]
    chinese = visit(relative).views["1280-screen"]
    chapter = english["chapter"]
    prefix = f"{chapter}." if chapter else ""
    figures = [f["number"] for f in chinese["figures"]]
    assert figures == [f"图 {prefix}{n}：" for n in range(1, len(english["figures"]) + 1)]
    exercises = [e["number"] for e in chinese["exercises"]]
    assert exercises == [f"练习 {prefix}{n}" for n in range(1, len(english["exercises"]) + 1)]


SWITCH = "a.ropelab-language-link"


def test_language_switch_goes_both_ways(open_page, site):
    """Click "中文" on an English chapter: its Chinese page; there, "English": back again."""
    relative = "notebooks/04_theta_spectrum.html"
    page, log = open_page(relative)
    english_url = page.url
    link = page.locator(SWITCH)
    assert link.count() == 1 and link.inner_text().strip() == "中文"
    link.click()
    page.wait_for_url((site / ZH / relative).as_uri(), wait_until="load")
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    back = page.locator(SWITCH)
    assert back.count() == 1 and back.inner_text().strip() == "English"
    back.click()
    page.wait_for_url(english_url, wait_until="load")
    assert page.evaluate("document.documentElement.lang") == "en"
    assert log.page_errors == [] and log.external_requests == []


def budget_text(relative: str) -> str:
    limit = budget(relative)
    return "none" if limit is None else f"{limit / 1e6:.1f}"


def test_page_weight_report():
    """Writes the weights and times measured above (runs after them: pytest keeps file
    order) and prints them."""
    assert VISITS, "the page tests measured nothing"
    weights = {relative: seen.weight for relative, seen in VISITS.items()}
    total = sum(f.stat().st_size for f in SITE.rglob("*") if f.is_file())
    largest = max(weights, key=weights.get)
    report = {
        "site_total_bytes": total,
        "largest_page": largest,
        "largest_page_bytes": weights[largest],
        "budgets": {"chapter_bytes": CHAPTER_BUDGET, "other_page_bytes": PAGE_BUDGET},
        "pages": {
            relative: {
                "bytes": seen.weight,
                "budget_bytes": budget(relative),
                "typeset_ms": round(seen.typeset_ms),
                "load_ms": round(seen.load_ms),
                "equations": seen.content["typeset"],
                "heaviest_files": dict(sorted(seen.files.items(), key=lambda kv: -kv[1])[:8]),
            }
            for relative, seen in sorted(VISITS.items())
        },
    }
    (SITE.parent / "page_weight.json").write_text(json.dumps(report, indent=2))
    for relative, seen in sorted(VISITS.items()):
        print(
            f"{relative:45s} {seen.weight / 1e6:5.2f} MB (budget {budget_text(relative)})"
            f"  typeset at {seen.typeset_ms:5.0f} ms, loaded at {seen.load_ms:5.0f} ms"
            f"  ({seen.content['typeset']} equations)"
        )
    print(f"site: {total / 2**20:.1f} MiB; largest page {largest}: {weights[largest] / 1e6:.2f} MB")
