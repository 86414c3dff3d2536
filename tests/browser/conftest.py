"""Fixtures for tests that open the built site in a real browser.

The site is the output of ``make book`` (``_build/html``); ``make test`` builds it first. Pages
are opened from files in Debian's Chromium, driven headless by Playwright (the system browser:
Playwright's own browser download is never used). Every request that would leave the machine is
blocked and recorded, as are console errors and failed requests, so a test can assert that a
page works offline.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from headless_chromium import CHROMIUM, CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parents[2]
# ROPELAB_SITE points the tests at another build (e.g. one made with --path-output).
SITE = Path(os.environ.get("ROPELAB_SITE", ROOT / "_build" / "html")).resolve()
SCREENSHOTS = SITE.parent / "screenshots"


@dataclass
class PageLog:
    """What happened while a page was open."""

    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    external_requests: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    finished_requests: list[str] = field(default_factory=list)


def site_pages() -> list[str]:
    """Every HTML page of the book, relative to the site root (search and index pages included)."""
    return sorted(
        str(p.relative_to(SITE))
        for p in SITE.rglob("*.html")
        if "_static" not in p.parts and "_sources" not in p.parts
    )


@pytest.fixture(scope="session")
def site() -> Path:
    if not (SITE / "index.html").exists():
        pytest.fail("the built site is missing: run `make book` (make test does it first)")
    return SITE


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: make test installs Debian's chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def open_page(browser, site):
    """``open_page("notebooks/04_theta_spectrum.html") -> (page, log)``, offline and recorded."""
    pages = []

    def _open(relative: str, *, width: int = 1280, height: int = 900):
        page = browser.new_page(viewport={"width": width, "height": height})
        log = PageLog()
        page.on(
            "console", lambda m: log.console_errors.append(m.text) if m.type == "error" else None
        )
        page.on("pageerror", lambda e: log.page_errors.append(str(e)))
        page.on("requestfailed", lambda r: log.failed_requests.append(f"{r.url} {r.failure}"))
        page.on("requestfinished", lambda r: log.finished_requests.append(r.url))

        def route(route, request):
            if request.url.startswith(("file://", "data:", "blob:", "about:")):
                route.continue_()
            else:
                log.external_requests.append(request.url)
                route.abort()

        page.route("**/*", route)
        page.goto((site / relative).as_uri(), wait_until="load")
        pages.append(page)
        return page, log

    yield _open
    for page in pages:
        page.close()


@pytest.fixture(scope="session")
def screenshots_dir() -> Iterator[Path]:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    yield SCREENSHOTS
