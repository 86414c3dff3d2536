"""Fixtures for tests that open the built site in a real browser.

The site is the output of ``make book`` (``_build/html``); ``make test`` builds it first. Pages
are opened from files in Debian's Chromium, driven headless by Playwright (the system browser:
Playwright's own browser download is never used), with scrollbars drawn as on a desktop (a
scrollbar that takes room is one a reader sees). Every request that would leave the machine is
blocked and recorded, as are console errors and failed requests, so a test can assert that a
page works offline.

Each page of the book is *visited* once per test session (``visit``): loaded, checked for what
``test_pages.py`` asserts, screenshotted, and measured by ``tools/page_layout.py`` at every
width in screen and print media for ``test_layout.py`` and ``test_print.py``. A test reads
the visit; no test reloads the page.

Screenshots go to ``_build/screenshots/``: ``<page>.png`` (1280 px, screen, full page, before
anything is clicked open) always; with ``ROPELAB_SCREENSHOTS=all`` (``make screenshots``) also
``<page>-screen-768.png``, ``<page>-screen-390.png`` and ``<page>-print-<width>.png`` for
every width.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

from ropebook.book_toc import toc_docnames
from ropebook.headless_chromium import CHROMIUM, keep_offline
from ropebook.page_layout import WIDTHS, launch, measure_page

ROOT = Path(__file__).resolve().parents[2]
# ROPELAB_SITE points the tests at another build (e.g. tools/build_site.py's _build/quick).
SITE = Path(os.environ.get("ROPELAB_SITE", ROOT / "_build" / "html")).resolve()
SCREENSHOTS = SITE.parent / "screenshots"
ALL_SCREENSHOTS = os.environ.get("ROPELAB_SCREENSHOTS", "") == "all"


@dataclass
class PageLog:
    """What happened while a page was open."""

    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    external_requests: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    finished_requests: list[str] = field(default_factory=list)


@dataclass
class Visit:
    """One page, loaded once: its log, what test_pages checks, and its layout per view."""

    relative: str
    log: PageLog
    content: dict[str, Any]
    url: str
    #: ``{"1280-screen": probe, "768-print": probe, …}`` (tools/page_layout.py), for the book's
    #: pages (chapters, intro, notation, references); empty for search and index pages.
    views: dict[str, dict[str, Any]]
    #: Milliseconds from the start of navigation until every equation was typeset and drawn
    #: in its fonts (``TYPESET_CLOCK_JS``), as the reader sees it on a 1280-px screen, and
    #: until the load event ended.
    typeset_ms: float = 0.0
    load_ms: float = 0.0
    #: The HTML and every local file the browser fetched for the page, in bytes.
    weight: int = 0
    #: ``{site-relative path: bytes}`` of those files.
    files: dict[str, int] = field(default_factory=dict)


def site_pages() -> list[str]:
    """Every HTML page of the book, relative to the site root (search and index pages included)."""
    return sorted(
        str(p.relative_to(SITE))
        for p in SITE.rglob("*.html")
        if "_static" not in p.parts and "_sources" not in p.parts
    )


def book_pages() -> list[str]:
    """The pages a reader reads, from the table of contents (so a missing build fails, never
    skips): the root page, every chapter and every other page, as built HTML paths."""

    return sorted(f"{entry}.html" for entry in toc_docnames())


#: The Chinese edition's folder in the site (issue 27; ``tools/build_zh.py``, copied in by
#: ``src/ropebook/ext/lecturer_kit.py``).
ZH = "zh"


def zh_pages() -> list[str]:
    """The Chinese edition's pages: ``zh/`` and every page of :func:`book_pages`. They are
    visited, measured and checked like the English pages (``test_pages.py``)."""
    return [f"{ZH}/{relative}" for relative in book_pages()]


#: The student edition's folder in the site (issue 31; ``tools/build_student.py``, copied in by
#: ``src/ropebook/ext/lecturer_kit.py``), with its Chinese edition in ``student/zh/``.
STUDENT = "student"


def student_pages() -> list[str]:
    """The student edition's pages, English and Chinese: measured like the others (issue 33's
    phone checks cover every edition)."""
    return [f"{STUDENT}/{relative}" for relative in book_pages() + zh_pages()]


def attach_log(page: Any, log: PageLog) -> None:
    page.on("console", lambda m: log.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: log.page_errors.append(str(e)))
    page.on("requestfailed", lambda r: log.failed_requests.append(f"{r.url} {r.failure}"))
    page.on("requestfinished", lambda r: log.finished_requests.append(r.url))
    keep_offline(page, log.external_requests.append)


#: Resolves once MathJax (only on pages with math) has typeset, the fonts have loaded and every
#: image has loaded or failed.
SETTLED_JS = """async () => {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
        await MathJax.startup.promise;
    }
    await document.fonts.ready;
    await Promise.all([...document.images].filter(i => !i.complete).map(i => new Promise(
        done => { i.addEventListener('load', done); i.addEventListener('error', done); })));
}"""

#: What test_pages.py asserts, read once per page.
CONTENT_JS = """() => ({
    pending: document.querySelectorAll('.math:not(:has(mjx-container))').length,
    typeset: document.querySelectorAll('mjx-container').length,
    raw: [...document.querySelectorAll('article p, article li, article td')]
           .map(e => e.innerText).filter(t => /\\\\\\(|\\\\\\[|\\$\\$/.test(t)).slice(0, 3),
    broken: [...document.images].filter(i => !(i.complete && i.naturalWidth > 0))
              .map(i => i.getAttribute('src')),
    links: [...document.querySelectorAll('a[href]')].map(a => a.href)
              .filter(h => h.startsWith('file://')),
})"""


#: Installed before a visited page loads: resolves to ``{typeset, load}``, the times (ms since
#: navigation began) at which every equation had been typeset and drawn in its fonts, and at
#: which the page's load event ended. Checked on every animation frame from the moment the HTML
#: is parsed: no element of class ``math`` without its MathJax container, and MathJax's own
#: promise resolved where MathJax runs in the browser (the pages before issue 28); then the
#: fonts the page asked for have loaded.
TYPESET_CLOCK_JS = """window.__ropelabTypeset = new Promise(done => {
    const typeset = () => !document.querySelector('.math:not(:has(mjx-container))');
    const frame = () => new Promise(next => requestAnimationFrame(() => next()));
    const loaded = new Promise(next => window.addEventListener('load', () => next()));
    document.addEventListener('DOMContentLoaded', async () => {
        while (!typeset()) { await frame(); }
        if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
            await MathJax.startup.promise;
        }
        await frame();
        await document.fonts.ready;
        const at = performance.now();
        await loaded;
        const nav = performance.getEntriesByType('navigation')[0];
        done({typeset: at, load: nav ? nav.loadEventEnd : at});
    });
});"""


def local_path(url: str) -> Path:
    return Path(unquote(urlparse(url).path))


def fetched_files(url: str, log: PageLog) -> dict[str, int]:
    """``{path relative to the site: bytes}`` of the page and every local file it fetched."""
    files = {}
    for u in {url, *log.finished_requests}:
        path = local_path(u)
        if u.startswith("file://") and path.is_file():
            try:
                name = str(path.resolve().relative_to(SITE))
            except ValueError:
                name = str(path)
            files[name] = path.stat().st_size
    return files


REFRESH = re.compile(r'<meta http-equiv="Refresh" content="\d+;\s*url=([^"]+)"', re.IGNORECASE)


def refresh_target(path: Path) -> str | None:
    """The URL a redirect page (``<meta http-equiv="Refresh">``) sends the reader to, or None."""
    head = path.read_text(encoding="utf-8", errors="replace")[:2000]
    found = REFRESH.search(head)
    return (path.parent / found.group(1)).resolve().as_uri() if found else None


def settle(page: Any, redirect_to: str | None = None) -> None:
    """Wait for ``SETTLED_JS``; a redirect page is followed to ``redirect_to`` and loaded first.

    Waiting for the target URL, not retrying after "context destroyed", is what makes this
    deterministic: on a busy machine the refresh may commit seconds after the first page loads.
    """
    if redirect_to is not None:
        page.wait_for_url(redirect_to, wait_until="load", timeout=60_000)
    for _ in range(3):
        try:
            page.evaluate(SETTLED_JS)
            return
        except PlaywrightError as error:
            if "context was destroyed" not in str(error):
                raise
            page.wait_for_load_state("load")
    page.evaluate(SETTLED_JS)


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
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture
def open_page(browser, site):
    """``open_page("notebooks/04_theta_spectrum.html") -> (page, log)``, offline and recorded."""
    pages = []

    def _open(relative: str, *, width: int = 1280, height: int = 900):
        page = browser.new_page(viewport={"width": width, "height": height})
        log = PageLog()
        attach_log(page, log)
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


@pytest.fixture(scope="session")
def visit(browser, site, screenshots_dir) -> Callable[[str], Visit]:
    """``visit("notebooks/04_theta_spectrum.html") -> Visit``, loaded once per session."""
    visits: dict[str, Visit] = {}
    measured = set(book_pages()) | set(zh_pages()) | set(student_pages())

    def shoot(relative: str, page: Any, width: int, media: str) -> None:
        stem = ("zh-" if relative.startswith(f"{ZH}/") else "") + Path(relative).stem
        suffix = "" if (width, media) == (WIDTHS[0], "screen") else f"-{media}-{width}"
        page.screenshot(path=str(screenshots_dir / f"{stem}{suffix}.png"), full_page=True)

    def views_to_shoot(relative: str) -> frozenset[str]:
        relative = relative.removeprefix(f"{ZH}/")
        if not (relative.startswith(("notebooks/", "book/")) or relative == "index.html"):
            return frozenset()
        if ALL_SCREENSHOTS:
            return frozenset(f"{w}-{m}" for w in WIDTHS for m in ("screen", "print"))
        return frozenset({f"{WIDTHS[0]}-screen"})

    def _visit(relative: str) -> Visit:
        if relative in visits:
            return visits[relative]
        if not (site / relative).exists():
            pytest.fail(f"{relative} is not in the built site {site}: rebuild it (make book)")
        page = browser.new_page(viewport={"width": WIDTHS[0], "height": 900})
        log = PageLog()
        attach_log(page, log)
        page.add_init_script(TYPESET_CLOCK_JS)
        try:
            page.goto((site / relative).as_uri(), wait_until="load")
            redirect_to = refresh_target(site / relative)
            # Typeset math, loaded fonts and images (Playwright's "networkidle" proved flaky
            # on a busy machine: it sometimes never came for file:// pages).
            settle(page, redirect_to)
            clock = page.evaluate("window.__ropelabTypeset || null") or {}
            content = page.evaluate(CONTENT_JS)
            shots = views_to_shoot(relative)

            def screenshot(page: Any, width: int, media: str) -> None:
                shoot(relative, page, width, media)

            if relative in measured:
                views = measure_page(page, screenshot=screenshot, screenshots=shots)
            else:
                views = {}
                if shots:
                    screenshot(page, WIDTHS[0], "screen")
            url = page.url
        finally:
            page.close()
        files = fetched_files(url, log)
        visits[relative] = Visit(
            relative,
            log,
            content,
            url,
            views,
            clock.get("typeset", 0.0),
            clock.get("load", 0.0),
            sum(files.values()),
            files,
        )
        return visits[relative]

    return _visit


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False))
