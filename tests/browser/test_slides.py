"""The chapters' slides (issues 18 and 28), opened offline in Chromium like the pages.

Each deck (``slides/<chapter>.html``, built by ``tools/build_slides.py`` and copied into the site)
is loaded from files with every outside request blocked, then shown slide by slide through
reveal.js's API, on a 16:9 screen (1280 x 720, the deck's own size). For every slide:

* it has a title (a heading of class ``slide-title``, not empty) and content;
* nothing overflows: its body holds its content (the decks shrink a slide that is too tall:
  smaller type, then zoom) and nothing is wider than the slide, display equations included;
* a figure slide's image, as drawn (``object-fit: contain``), covers at least half the slide's
  free area (the body under the title), and keeps a short caption (its number and one
  sentence, at most 200 characters);
* it has speaker notes (reveal.js's ``aside.notes``) with text;
* its mathematics is typeset by the copied MathJax (no raw TeX left), its images loaded.

A deck shows at most one live explorable, and one when its chapter tags one: it is mounted and
live (one control is moved and the figure's data, read back from the script, equals ropelab's
for the new setting). No console error, page error, failed or outside request on the way. Every
slide is screenshotted into ``_build/screenshots/slides/``; the slide counts and the figure
areas are printed.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from ropelab.explorables import explorable_data
from tests.explorable_checks import assert_same

from .conftest import ROOT, SCREENSHOTS, book_pages

DECKS = [f"slides/{Path(p).stem}.html" for p in book_pages() if p.startswith("notebooks/")]

READY = "document.documentElement.dataset.deckReady === 'true'"
#: The decks' size in reveal.js's layout pixels (16:9), as tools/build_slides.py makes them.
WIDTH, HEIGHT = 1280, 720
#: A figure's caption on a slide is short: its number and one sentence.
CAPTION_CHARACTERS = 200

#: What a slide shows, read while it is the current slide.
SLIDE = """() => {
    const slide = Reveal.getCurrentSlide();
    const rect = slide.getBoundingClientRect();
    const body = slide.querySelector('.slide-body');
    const title = slide.querySelector('.slide-title');
    const notes = slide.querySelector('aside.notes');
    const area = r => r.width * r.height;
    const drawn = img => {
        const box = img.getBoundingClientRect();
        if (!img.naturalWidth || !img.naturalHeight) { return 0; }
        const scale = Math.min(box.width / img.naturalWidth, box.height / img.naturalHeight);
        return img.naturalWidth * img.naturalHeight * scale * scale;
    };
    const figure = slide.querySelector('.slide-body > figure img');
    const caption = slide.querySelector('.slide-body > figure figcaption');
    return {
        index: Reveal.getIndices().h,
        kind: slide.className,
        title: title ? title.innerText.trim() : '',
        text: slide.innerText.trim().length,
        media: slide.querySelectorAll('img, svg, mjx-container, .ropelab-explorable').length,
        width: rect.width,
        overflowDown: body ? body.scrollHeight - body.clientHeight : 0,
        overflowSide: Math.max(slide.scrollWidth - slide.clientWidth,
            ...[...slide.querySelectorAll('.slide-body div.math, .slide-body pre, .slide-body table')]
                .map(e => e.scrollWidth - e.clientWidth)),
        fit: slide.dataset.fit,
        zoom: slide.dataset.zoom,
        figureShare: figure && body ? drawn(figure) / area(body.getBoundingClientRect()) : null,
        caption: caption ? caption.innerText.trim().length : null,
        notes: notes ? notes.textContent.trim().length : 0,
        pendingMath: slide.querySelectorAll('.math:not(:has(mjx-container))').length,
        rawTex: /\\\\\\(|\\\\\\[|\\$\\$/.test(slide.innerText),
        broken: [...slide.querySelectorAll('img')]
            .filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src')),
        explorables: [...slide.querySelectorAll('.ropelab-explorable')].map(e => ({
            kind: e.dataset.kind,
            mounted: e.getAttribute('data-mounted') === 'true',
            drawn: e.querySelectorAll('.ropelab-figure svg').length,
        })),
    };
}"""

MOVE = """kind => {
    const instance = window.ropelabExplore.instances.find(i => i.kind === kind);
    const slider = instance.root.querySelector('input[type=range][data-param]');
    slider.value = slider.max;
    slider.dispatchEvent(new Event('input', {bubbles: true}));
    return {params: instance.params, data: instance.data};
}"""


def tags_an_explorable(stem: str) -> bool:
    """Whether the chapter tags a cell that shows an explorable for its slides."""
    notebook = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
    return any(
        "slide" in cell.metadata.get("tags", [])
        and any("ropelab-explorable" in str(o.get("data", {})) for o in cell.get("outputs", []))
        for cell in notebook.cells
    )


@pytest.mark.parametrize("relative", DECKS, ids=lambda r: Path(r).stem)
def test_deck_works_offline_and_every_slide_renders(open_page, site, relative):
    if not (site / relative).exists():
        pytest.fail(f"{relative} is not in the site: make book builds the slides (make slides)")
    page, log = open_page(relative, width=WIDTH, height=HEIGHT)
    page.wait_for_function(READY, timeout=60_000)
    assert page.evaluate("[Reveal.getConfig().width, Reveal.getConfig().height]") == [
        WIDTH,
        HEIGHT,
    ], f"{relative}: not a 16:9 deck of {WIDTH} x {HEIGHT}"
    total = page.evaluate("Reveal.getTotalSlides()")
    assert total >= 3, f"{relative}: {total} slides"
    shots = SCREENSHOTS / "slides"
    shots.mkdir(parents=True, exist_ok=True)
    problems, live, shares = [], [], []
    for index in range(total):
        page.evaluate(f"Reveal.slide({index})")
        page.wait_for_timeout(100)
        slide = page.evaluate(SLIDE)
        where = f"slide {index + 1}/{total} ({slide['title'][:40]!r})"
        if slide["index"] != index or slide["width"] <= 0:
            problems.append(f"{where}: not shown")
        if not slide["title"]:
            problems.append(f"{where}: no title")
        if slide["text"] == 0 and slide["media"] == 0:
            problems.append(f"{where}: empty")
        if slide["overflowDown"] > 1 or slide["overflowSide"] > 1:
            problems.append(
                f"{where}: overflows by {slide['overflowDown']} px down, "
                f"{slide['overflowSide']} px sideways (type {slide['fit']}, zoom {slide['zoom']})"
            )
        if slide["figureShare"] is not None:
            shares.append(slide["figureShare"])
            if slide["figureShare"] < 0.5:
                problems.append(
                    f"{where}: the figure covers {slide['figureShare']:.0%} of the slide"
                )
            if slide["caption"] is not None and slide["caption"] > CAPTION_CHARACTERS:
                problems.append(f"{where}: a caption of {slide['caption']} characters")
        if slide["notes"] < 20:
            problems.append(f"{where}: no speaker notes")
        if slide["pendingMath"] or slide["rawTex"]:
            problems.append(f"{where}: mathematics left as TeX")
        if slide["broken"]:
            problems.append(f"{where}: images not loaded {slide['broken']}")
        for explorable in slide["explorables"]:
            if not (explorable["mounted"] and explorable["drawn"]):
                problems.append(f"{where}: explorable {explorable['kind']} not drawn")
            live.append(explorable["kind"])
        page.screenshot(path=str(shots / f"{Path(relative).stem}-{index + 1:02d}.png"))
    stem = Path(relative).stem
    print(
        f"{stem}: {total} slides, {len(shares)} figures covering "
        + ", ".join(f"{s:.0%}" for s in shares)
        + f" of their slides, explorables {live}"
    )
    assert len(live) <= 1, f"{relative}: {len(live)} live explorables, one a deck"
    if tags_an_explorable(stem):
        assert len(live) == 1, f"{relative}: the chapter tags an explorable; the deck shows none"
    for kind in live:
        moved = page.evaluate(MOVE, kind)
        assert_same(moved["data"], explorable_data(kind, **moved["params"]), f"{relative} {kind}")
    assert problems == [], f"{relative}:\n" + "\n".join(problems)
    assert log.external_requests == [], f"{relative} asked the network for {log.external_requests}"
    assert log.failed_requests == [], f"{relative}: failed requests {log.failed_requests}"
    assert log.page_errors == [], f"{relative}: JavaScript errors {log.page_errors}"
    assert log.console_errors == [], f"{relative}: console errors {log.console_errors}"


def test_slides_index_links_every_deck(open_page, site):
    page, log = open_page("slides/index.html")
    links = page.evaluate("[...document.querySelectorAll('li a')].map(a => a.getAttribute('href'))")
    assert links == [n for d in DECKS for n in (Path(d).name, f"pdf/{Path(d).stem}.pdf")]
    assert log.console_errors == [] and log.external_requests == []


def test_core_only_deck_leaves_the_optional_sections_out(open_page, site):
    """``?core`` after a deck's address shows the slides of core sections only (the course
    marker the chapter gives each section; issue 31), numbered from 1 without gaps."""
    relative = "slides/02_complex_derivation.html"
    if not (site / relative).exists():
        pytest.fail(f"{relative} is not in the site: make book builds the slides (make slides)")
    page, log = open_page(relative, width=WIDTH, height=HEIGHT)
    page.wait_for_function(READY, timeout=60_000)
    full = page.evaluate("Reveal.getTotalSlides()")
    optional = page.evaluate(
        "document.querySelectorAll('.slides > section[data-course=\"optional\"]').length"
    )
    assert optional >= 1, f"{relative}: no slide of an optional section"
    tag = page.evaluate(
        "getComputedStyle(document.querySelector("
        "'.slides > section[data-course=\"optional\"] > .slide-title'), '::after').content"
    )
    assert "optional" in tag, tag
    page.goto((site / relative).as_uri() + "?core", wait_until="load")
    page.wait_for_function(READY, timeout=60_000)
    assert page.evaluate("Reveal.getTotalSlides()") == full - optional
    assert page.evaluate("document.querySelectorAll('[data-course=\"optional\"]').length") == 0
    assert page.evaluate("document.documentElement.dataset.deckCoreOnly") == "true"
    assert log.page_errors == [], log.page_errors
