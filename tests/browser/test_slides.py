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

The Chinese decks (``slides/zh/``, issue 34) are held to the same: each renders, works offline
and passes every check, and both indexes list them.

Every slide of every deck, the two lecture decks too, passes the checks a lecturer makes
(``tools/slide_checks.py``: whole sentences, balanced brackets, no caption cut with "…",
equation numbers clear of their formulas, nothing outside the 16:9 frame), and those checks
fail a synthetic deck with a planted cut caption, a planted cut sentence, a planted overlap
and a planted overflow, slide by slide. The lecture decks hold the slides the teaching page's
two-lecture path lists, in its order, all of core sections.

A chapter's deck shows at most one live explorable, and one when its chapter tags one: it is mounted and
live (one control is moved and the figure's data, read back from the script, equals ropelab's
for the new setting). No console error, page error, failed or outside request on the way. Every
slide is screenshotted into ``_build/screenshots/slides/``; the slide counts and the figure
areas are printed.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from ropebook import build_slides, course_path, slide_checks
from ropelab.explorables import explorable_data
from tests.explorable_checks import assert_same

from .conftest import ROOT, SCREENSHOTS, book_pages

DECKS = [f"slides/{Path(p).stem}.html" for p in book_pages() if p.startswith("notebooks/")]
#: The decks of the two-lecture path (tools/build_slides.py, from tools/course_path.py).
LECTURES = [f"slides/{build_slides.LECTURE_STEM.format(n=n)}.html" for n in (1, 2)]
#: The Chinese decks (issue 34): the same decks in ``slides/zh/``.
ZH_DECKS = [d.replace("slides/", f"slides/{build_slides.ZH_DIR}/", 1) for d in DECKS]
ZH_LECTURES = [d.replace("slides/", f"slides/{build_slides.ZH_DIR}/", 1) for d in LECTURES]


def _deck_id(relative: str) -> str:
    """``05_long_range_decay``, ``zh-05_long_range_decay``."""
    return relative.removeprefix("slides/").removesuffix(".html").replace("/", "-")


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


@pytest.mark.parametrize("relative", [*DECKS, *ZH_DECKS], ids=_deck_id)
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
        page.screenshot(path=str(shots / f"{_deck_id(relative)}-{index + 1:02d}.png"))
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
    # the lecture decks first; each deck's HTML and PDF (the PPTX links: tests/test_pptx.py)
    english = [n for n in links if not n.startswith(("pptx/", "zh/"))]
    assert english == [
        n for d in [*LECTURES, *DECKS] for n in (Path(d).name, f"pdf/{Path(d).stem}.pdf")
    ]
    # then the Chinese decks, each with its PDF, and a link to their own index
    assert [n for n in links if n.startswith("zh/")] == [
        f"zh/{n}"
        for d in [*ZH_LECTURES, *ZH_DECKS]
        for n in (Path(d).name, f"pdf/{Path(d).stem}.pdf")
    ]
    assert page.evaluate("!!document.querySelector('a[href=\"zh/index.html\"]')")
    assert log.console_errors == [] and log.external_requests == []


def test_chinese_slides_index_links_every_chinese_deck(open_page, site):
    page, log = open_page("slides/zh/index.html")
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    links = page.evaluate("[...document.querySelectorAll('li a')].map(a => a.getAttribute('href'))")
    assert [n for n in links if not n.startswith("pptx/")] == [
        n for d in [*ZH_LECTURES, *ZH_DECKS] for n in (Path(d).name, f"pdf/{Path(d).stem}.pdf")
    ]
    for href in (*links, "../../zh/book/intro.html", "../index.html"):
        assert (site / "slides" / "zh" / href).resolve().is_file(), href
    assert log.console_errors == [] and log.external_requests == []


@pytest.mark.parametrize("relative", [*LECTURES, *DECKS, *ZH_LECTURES, *ZH_DECKS], ids=_deck_id)
def test_every_slide_passes_the_lecturers_checks(open_page, site, relative):
    """Whole sentences, balanced brackets, no "…", equation numbers clear of their formulas,
    nothing outside the 16:9 frame: on every slide, as Chromium draws it."""
    if not (site / relative).exists():
        pytest.fail(f"{relative} is not in the site: make book builds the slides (make slides)")
    page, log = open_page(relative, width=WIDTH, height=HEIGHT)
    problems, _ = slide_checks.audit_deck(page)
    listed = [
        f"slide {p['slide']} ({p['title'][:30]!r}): {p['kind']}: {p['text']}" for p in problems
    ]
    assert listed == [], f"{relative}:\n" + "\n".join(listed)
    assert log.page_errors == [], log.page_errors


@pytest.mark.parametrize("lecture", [1, 2])
def test_lecture_deck_follows_the_two_lecture_path(open_page, site, lecture):
    """Lecture *n*'s deck: its title slide, then for each chapter of the lecture (in the path's
    order) the chapter's title slide, the slides the teaching page lists for its sections
    (every one of a core section) and its What-to-remember slide; all of them, nothing else."""
    relative = LECTURES[lecture - 1]
    if not (site / relative).exists():
        pytest.fail(f"{relative} is not in the site: make book builds the slides (make slides)")
    chapters = course_path._chapters()
    two = next(p for p in course_path.PATHS if p.lectures == 2)
    _, lectures = course_path.resolve(two, chapters)
    sections = lectures[lecture - 1]
    expected: list[tuple[str, str]] = [("", "title")]
    for stem in dict.fromkeys(s.stem for s in sections):
        expected.append((stem, "title"))
        numbers = sorted({k for s in sections if s.stem == stem for k in s.slides})
        expected += [(stem, str(k)) for k in numbers]
        if chapters[stem].closing_slide:
            expected.append((stem, "closing"))
    page, log = open_page(relative, width=WIDTH, height=HEIGHT)
    page.wait_for_function(READY, timeout=60_000)
    shown = page.evaluate(
        """() => [...document.querySelectorAll('.reveal .slides > section')].map(s => ({
            chapter: s.dataset.chapter || '', cell: s.dataset.cell || '',
            course: s.dataset.course || '', title: s.classList.contains('title-slide'),
            heading: ((s.querySelector('.slide-title') || {}).textContent || '')
                .replace(/\\s+/g, ' ').trim()}))"""
    )
    assert len(shown) == len(expected), f"{relative}: {len(shown)} slides, {len(expected)} listed"
    assert len(sections) >= 3
    for (stem, what), slide in zip(expected, shown, strict=True):
        assert slide["chapter"] == stem, (slide, stem)
        if what == "title":
            assert slide["title"], slide
        elif what == "closing":
            assert slide["heading"] == "What to remember", slide
        else:
            assert slide["course"] == "core", slide
    # the slides of a chapter are its deck's, in its order: the same titles as the chapter deck
    for stem in dict.fromkeys(s.stem for s in sections):
        numbers = [1, *sorted({k for s in sections if s.stem == stem for k in s.slides})]
        numbers += [chapters[stem].closing_slide] if chapters[stem].closing_slide else []
        mine = [s["heading"] for s in shown if s["chapter"] == stem]
        deck, _ = open_page(f"slides/{stem}.html", width=WIDTH, height=HEIGHT)
        deck.wait_for_function(READY, timeout=60_000)
        theirs = deck.evaluate(
            "[...document.querySelectorAll('.reveal .slides > section')]"
            ".map(s => ((s.querySelector('.slide-title') || {}).textContent || '')"
            ".replace(/\\s+/g, ' ').trim())"
        )
        assert mine == [theirs[k - 1] for k in numbers], stem
    assert log.page_errors == [], log.page_errors


#: A deck made to fail: each slide plants a problem the checks must find (the kinds of problem
#: it makes, and no other), and a last slide is clean. ``(kinds, title, body)``.
PLANTED = [
    (
        ("ellipsis",),
        "A figure cut short",
        '<figure><img src="img/x.png" alt=""><figcaption><strong>Figure 1.1:</strong> The '
        "frequencies of a head for four bases, on a linear axis and a logarithmic one, where "
        "each base …</figcaption></figure>",
    ),
    (
        ("cut", "brackets"),
        "A sentence split at an abbreviation",
        '<p class="meaning">RoFormer (eqs.</p>',
    ),
    (("cut",), "A lead-in with nothing after it", "<p>It splits into two equations, and</p>"),
    (
        ("overlap",),
        "A number over its formula",
        '<div class="math">\\[a^2 + b^2 = c^2 + d^2 + e^2 + f^2\\]'
        '<span class="eqno" style="position: absolute; inset: 0; text-align: center">(1.1)</span></div>',
    ),
    (("overflow",), "Too wide", '<p style="width: 1600px">A paragraph wider than the slide.</p>'),
    (
        (),
        "A clean slide",
        '<div class="math">\\[a^2 + b^2 = c^2\\]<span class="eqno">(1.2)</span></div>'
        "<p>The numerator is relative (RoFormer eq. 16), and it still factors.</p>",
    ),
]


def test_the_checks_fail_a_deck_with_planted_problems(browser, tmp_path):
    """A cut caption, a cut sentence, an overlapping equation number and an overflow, each on
    a slide of its own, are found there, and nothing is found on the clean slide."""
    from PIL import Image

    build_slides.copy_vendor(tmp_path)
    (tmp_path / "img").mkdir()
    Image.new("RGB", (800, 400), "white").save(tmp_path / "img" / "x.png")
    slides = [
        build_slides.Slide(0, title, body, "<p>Notes of the slide.</p>", "text").html()
        for _, title, body in PLANTED
    ]
    deck = build_slides.Deck("planted", "1", "Planted problems", slides, 0, 0, len(slides))
    (tmp_path / "planted.html").write_text(build_slides.deck_page(deck), encoding="utf-8")
    page = slide_checks.open_deck(browser, tmp_path / "planted.html")
    problems, shots = slide_checks.audit_deck(page, screenshot=True)
    page.close()
    found = sorted({(p["slide"], p["kind"]) for p in problems})
    planted = sorted(
        (n, kind) for n, (kinds, _, _) in enumerate(PLANTED, start=1) for kind in kinds
    )
    assert found == planted, problems
    sheet = slide_checks.contact_sheet(shots, tmp_path / "contact.png", "planted")
    with Image.open(sheet) as image:
        rows = -(-len(PLANTED) // slide_checks.TILES_PER_ROW)
        assert image.size[1] > rows * slide_checks.TILE_HEIGHT


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
