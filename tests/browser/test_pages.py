"""Every page of the built site, opened offline in Chromium as a reader would open it.

For each page: it loads; no console error, page error or failed request; no request leaves
the machine; every equation is typeset by the site's own MathJax; every image loads; every
internal link points at a file that exists (and at an anchor that exists on that page). A
screenshot of each chapter is saved to ``_build/screenshots/`` and the page weight (the HTML
plus every local file the browser fetched for it) to ``_build/page_weight.json``. Each page is
loaded once for this file, test_layout.py and test_print.py (the ``visit`` fixture); the log
covers the whole visit, print media and every width included.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from .conftest import ROOT, SITE, site_pages

PAGES = site_pages() if SITE.exists() else []
WEIGHTS: dict[str, int] = {}


def local_path(url: str) -> Path:
    return Path(unquote(urlparse(url).path))


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

    fetched = {seen.url, *log.finished_requests}
    WEIGHTS[relative] = sum(
        local_path(u).stat().st_size
        for u in fetched
        if u.startswith("file://") and local_path(u).is_file()
    )


def test_every_chapter_page_is_in_the_site():
    chapters = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert chapters, "no chapter notebooks found"
    for stem in chapters:
        assert f"notebooks/{stem}.html" in PAGES


def test_page_weight_report():
    """Writes the weights measured above (runs after them: pytest keeps file order)."""
    assert WEIGHTS, "the page tests measured nothing"
    total = sum(f.stat().st_size for f in SITE.rglob("*") if f.is_file())
    largest = max(WEIGHTS, key=WEIGHTS.get)
    report = {
        "site_total_bytes": total,
        "largest_page": largest,
        "largest_page_bytes": WEIGHTS[largest],
        "pages": dict(sorted(WEIGHTS.items())),
    }
    (SITE.parent / "page_weight.json").write_text(json.dumps(report, indent=2))
    print(
        f"site: {total / 2**20:.1f} MiB; largest page {largest}: {WEIGHTS[largest] / 2**20:.2f} MiB"
    )
