"""The chapters' slides (issue 18), opened offline in Chromium like the pages.

Each deck (``slides/<chapter>.html``, built by ``tools/build_slides.py`` and copied into the site)
is loaded from files with every outside request blocked, then shown slide by slide through
reveal.js's API. For every slide: it has content, fits the 1280 x 800 slide (the decks shrink a
slide that is too tall: smaller type, then zoom), its mathematics is typeset by the copied MathJax (no
raw TeX left), its images loaded. An explorable on a slide is mounted and live: one control is
moved and the figure's data, read back from the script, equals ropelab's for the new setting.
No console error, page error, failed or outside request on the way. Every slide is
screenshotted into ``_build/screenshots/slides/``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ropelab.explorables import explorable_data
from tests.explorable_checks import assert_same

from .conftest import SCREENSHOTS, book_pages

DECKS = [f"slides/{Path(p).stem}.html" for p in book_pages() if p.startswith("notebooks/")]

READY = "document.documentElement.dataset.deckReady === 'true'"

#: What a slide shows, read while it is the current slide.
SLIDE = """() => {
    const slide = Reveal.getCurrentSlide();
    const rect = slide.getBoundingClientRect();
    return {
        index: Reveal.getIndices().h,
        text: slide.innerText.trim().length,
        media: slide.querySelectorAll('img, svg, mjx-container, .ropelab-explorable').length,
        width: rect.width,
        height: rect.height / Reveal.getScale(),
        fit: slide.dataset.fit,
        zoom: slide.dataset.zoom,
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


@pytest.mark.parametrize("relative", DECKS, ids=lambda r: Path(r).stem)
def test_deck_works_offline_and_every_slide_renders(open_page, site, relative):
    if not (site / relative).exists():
        pytest.fail(f"{relative} is not in the site: make book builds the slides (make slides)")
    page, log = open_page(relative, width=1280, height=800)
    page.wait_for_function(READY, timeout=60_000)
    total = page.evaluate("Reveal.getTotalSlides()")
    assert total >= 3, f"{relative}: {total} slides"
    shots = SCREENSHOTS / "slides"
    shots.mkdir(parents=True, exist_ok=True)
    problems, live = [], []
    for index in range(total):
        page.evaluate(f"Reveal.slide({index})")
        page.wait_for_timeout(100)
        slide = page.evaluate(SLIDE)
        where = f"slide {index + 1}/{total}"
        if slide["index"] != index or slide["width"] <= 0:
            problems.append(f"{where}: not shown")
        if slide["text"] == 0 and slide["media"] == 0:
            problems.append(f"{where}: empty")
        if slide["height"] > 800:
            problems.append(
                f"{where}: {slide['height']:.0f} px tall (type {slide['fit']}, zoom {slide['zoom']})"
            )
        if slide["pendingMath"] or slide["rawTex"]:
            problems.append(f"{where}: mathematics left as TeX")
        if slide["broken"]:
            problems.append(f"{where}: images not loaded {slide['broken']}")
        for explorable in slide["explorables"]:
            if not (explorable["mounted"] and explorable["drawn"]):
                problems.append(f"{where}: explorable {explorable['kind']} not drawn")
            live.append(explorable["kind"])
        page.screenshot(path=str(shots / f"{Path(relative).stem}-{index + 1:02d}.png"))
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
    assert links == [Path(d).name for d in DECKS]
    assert log.console_errors == [] and log.external_requests == []
