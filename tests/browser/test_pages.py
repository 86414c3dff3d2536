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

from .conftest import ROOT, SITE, local_path, site_pages

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
