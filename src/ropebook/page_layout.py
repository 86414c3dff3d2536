"""Measure how a built page lays out in Chromium: equations, code blocks, figures, exercises.

One probe (``PROBE_JS``) runs in the page and returns everything the layout tests need for one
viewport width and one media type (screen or print), so a page is measured once per view, not
once per check. ``tests/browser/test_layout.py`` and ``tests/browser/test_print.py`` assert on
these measurements; run this file to print the counts per page::

    .venv/bin/python tools/page_layout.py                  # every chapter of _build/html
    .venv/bin/python tools/page_layout.py --site /tmp/b/_build/html 04_theta_spectrum
    .venv/bin/python tools/page_layout.py --json out.json  # all measurements, for a report

What counts:

* a display equation (``mjx-container[display="true"]``: display math in prose and SymPy
  outputs alike) *overflows* when its typeset width runs past its own box or past the article's
  text column; it is *clipped* when an ancestor hides the overflow (``overflow: hidden``), and it
  *scrolls* when an ancestor scrolls it (allowed only on a phone, and only with a scrollbar that
  takes room on the page, i.e. is drawn);
* a code block (``pre``) *scrolls* when its content is wider than its box;
* a figure is *numbered* when its caption starts with "Figure <chapter>.<n>".
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from ropebook import ROOT
from ropebook.headless_chromium import CHROMIUM, CHROMIUM_ARGS

#: The viewport widths a reader uses: a laptop, a tablet in portrait, a phone.
WIDTHS = (1280, 768, 390)
HEIGHT = 900
MEDIA = ("screen", "print")

#: Playwright hides scrollbars in headless Chromium by default; the layout tests need them drawn
#: (a scrollbar that takes room is what a reader sees), so launch without that switch.
IGNORE_DEFAULT_ARGS = ["--hide-scrollbars"]

#: The number a page's title gives its chapter: "# 4. The θᵢ spectrum" -> "4", "3A. …" -> "3A".
CHAPTER_TITLE = re.compile(r"^\s*(\d+[A-Z]?)\.\s")

WAIT_FOR_MATH_JS = """async () => {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
        await MathJax.startup.promise;
    }
    if (document.fonts && document.fonts.ready) { await document.fonts.ready; }
}"""

#: Two animation frames: media-query listeners (ropelab-print.js) and resize handlers have run.
NEXT_FRAMES_JS = """() => new Promise(done =>
    requestAnimationFrame(() => requestAnimationFrame(() => done())))"""

#: Open every collapsed block (solutions, hidden code) as a reader who clicks them would.
EXPAND_JS = """() => {
    document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
    document.querySelectorAll('button.toggle-button-hidden')
        .forEach(e => e.classList.remove('toggle-button-hidden'));
    document.querySelectorAll('details').forEach(d => { d.open = true; });
}"""

PROBE_JS = r"""(options) => {
    const article = document.querySelector('article.bd-article') || document.body;
    const shown = el => el.isConnected && el.getClientRects().length > 0
        && el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true});
    const px = v => parseFloat(v) || 0;
    const acs = getComputedStyle(article);
    const ar = article.getBoundingClientRect();
    const column = {left: ar.left + px(acs.paddingLeft), right: ar.right - px(acs.paddingRight)};
    const chapterOf = () => {
        const h1 = article.querySelector('h1');
        const m = h1 ? h1.textContent.match(/^\s*(\d+[A-Z]?)\.\s/) : null;
        return m ? m[1] : null;
    };
    const texOf = el => {
        try {
            const items = MathJax.startup.document.getMathItemsWithin(el);
            if (items.length) { return items[0].math.trim().replace(/\s+/g, ' ').slice(0, 90); }
        } catch (e) { /* MathJax not on this page */ }
        return el.textContent.trim().slice(0, 90);
    };
    const where = el => {
        const sec = el.closest('section[id]');
        const cell = el.closest('div.cell');
        return (sec ? '#' + sec.id : '') + (cell ? ' (code cell)' : '');
    };
    // Walk from `el` up to the article: who clips, who scrolls the box `r` (a DOMRect).
    // Past the first ancestor that clips or scrolls it, the content is confined to that box.
    const containment = (el, rect) => {
        const out = {clipped: false, scrolls: false, scrollbar: true, box: null};
        let r = {left: rect.left, right: rect.right, top: rect.top, bottom: rect.bottom};
        for (let a = el.parentElement; a && a !== article.parentElement; a = a.parentElement) {
            const cs = getComputedStyle(a);
            const b = a.getBoundingClientRect();
            const left = b.left + px(cs.borderLeftWidth);
            const right = left + a.clientWidth;
            const top = b.top + px(cs.borderTopWidth);
            const bottom = top + a.clientHeight;
            const outX = r.left < left - 1 || r.right > right + 1;
            const outY = r.top < top - 1 || r.bottom > bottom + 1;
            const cut = v => v === 'hidden' || v === 'clip';
            const scroll = v => v === 'auto' || v === 'scroll';
            if ((outX && cut(cs.overflowX)) || (outY && cut(cs.overflowY))) {
                out.clipped = true; out.box = a.tagName.toLowerCase() + '.' + a.className;
            }
            if ((outX && scroll(cs.overflowX)) || (outY && scroll(cs.overflowY))) {
                out.scrolls = true;
                // A drawn scrollbar takes room: the border box is taller than the client box
                // plus the borders.
                const bar = a.offsetHeight - a.clientHeight
                    - px(cs.borderTopWidth) - px(cs.borderBottomWidth);
                if (outX && bar < 4) { out.scrollbar = false; }
                if (!out.box) { out.box = a.tagName.toLowerCase() + '.' + a.className; }
            }
            if (cs.overflowX !== 'visible') {
                r = {...r, left: Math.max(r.left, left), right: Math.min(r.right, right)};
            }
            if (cs.overflowY !== 'visible') {
                r = {...r, top: Math.max(r.top, top), bottom: Math.min(r.bottom, bottom)};
            }
        }
        return out;
    };

    const equations = [];
    for (const c of article.querySelectorAll('mjx-container[display="true"]')) {
        if (!shown(c)) { continue; }
        const m = c.querySelector(':scope > mjx-math') || c;
        const r = m.getBoundingClientRect();
        const cr = c.getBoundingClientRect();
        const boxLeft = Math.max(cr.left, column.left), boxRight = Math.min(cr.right, column.right);
        const fits = r.left >= boxLeft - 1 && r.right <= boxRight + 1;
        const info = containment(m, r);
        // The equation number (Sphinx's span.eqno) against the part of the formula one sees.
        const host = c.closest('div.math');
        const eqno = host ? host.querySelector(':scope > span.eqno') : null;
        const er = eqno && shown(eqno) ? eqno.getBoundingClientRect() : null;
        const seenLeft = Math.max(r.left, cr.left), seenRight = Math.min(r.right, cr.right);
        const eqnoOverlap = !!er && er.left < seenRight - 1 && er.right > seenLeft + 1
            && er.top < r.bottom - 1 && er.bottom > r.top + 1;
        const fullSize = parseFloat(c.dataset.ropelabFontSize || '0');
        equations.push({
            tex: texOf(c), where: where(c), output: !!c.closest('.cell_output'),
            width: Math.round(r.width), box: Math.round(boxRight - boxLeft),
            fits, clipped: info.clipped, scrolls: info.scrolls,
            scrollbar: info.scrollbar, clipper: info.box,
            inColumn: r.left >= column.left - 1 && r.right <= column.right + 1,
            variant: c.dataset.ropelabVariant || null,
            narrowed: !!(host && host.querySelector('mjx-container[data-ropelab-variant="narrow"]')),
            scale: fullSize ? Math.round(100 * parseFloat(getComputedStyle(c).fontSize)
                / fullSize) / 100 : 1,
            cue: c.classList.contains('ropelab-scroll-cue'),
            ariaHidden: c.getAttribute('aria-hidden') === 'true',
            eqno: er ? eqno.textContent.replace(/#$/, '').trim() : null, eqnoOverlap,
        });
    }

    // Inline math: every line box of it lies inside the text column (a formula that wraps
    // has one box per line), unless an ancestor between it and the column scrolls it.
    const inline = [];
    for (const c of article.querySelectorAll('mjx-container:not([display="true"])')) {
        if (!shown(c) || c.closest('.ropelab-explorable')) { continue; }
        const rects = [...c.getClientRects()].filter(q => q.width > 0);
        const left = Math.min(...rects.map(q => q.left));
        const right = Math.max(...rects.map(q => q.right));
        const info = containment(c, {left, right, top: rects[0].top, bottom: rects[0].bottom});
        inline.push({
            tex: texOf(c), where: where(c), lines: rects.length,
            width: Math.round(Math.max(...rects.map(q => q.width))),
            overLeft: Math.round(Math.max(0, column.left - left)),
            overRight: Math.round(Math.max(0, right - column.right)),
            inColumn: left >= column.left - 1 && right <= column.right + 1,
            clipped: info.clipped, scrolls: info.scrolls, scroller: info.box,
        });
    }

    const code = [];
    for (const pre of article.querySelectorAll('pre')) {
        if (!shown(pre)) { continue; }
        const r = pre.getBoundingClientRect();
        let content = pre.scrollWidth;
        const inner = document.createRange();
        inner.selectNodeContents(pre);
        const ir = inner.getBoundingClientRect();
        const scroll = pre.scrollWidth > pre.clientWidth + 1;
        const info = containment(pre, {left: r.left, right: r.right, top: r.top, bottom: r.bottom});
        const cs = getComputedStyle(pre);
        const lines = pre.textContent.split('\n');
        code.push({
            kind: pre.closest('.cell_input') ? 'input'
                : pre.closest('.cell_output') ? 'output' : 'prose',
            where: where(pre), scrolls: scroll,
            clipped: info.clipped || (scroll && (cs.overflowX === 'hidden' || cs.overflowX === 'clip')),
            width: Math.round(pre.clientWidth), content: Math.round(content),
            longest: Math.max(...lines.map(l => l.length)),
            first: lines[0].slice(0, 80), wraps: cs.whiteSpace,
            fontSize: cs.fontSize, textRight: Math.round(ir.right - r.left),
        });
    }

    const captionOf = fig => {
        const n = fig.querySelector('figcaption .caption-number, .caption .caption-number');
        const t = fig.querySelector('figcaption .caption-text, .caption .caption-text');
        return {number: n ? n.textContent.trim() : null, text: t ? t.textContent.trim() : null,
                shown: n ? shown(n) : false};
    };
    const figures = [];
    for (const fig of article.querySelectorAll('figure, div.figure')) {
        const cell = fig.closest('div.cell');
        figures.push({
            id: fig.id || (fig.querySelector('[id]') || {}).id || null,
            ...captionOf(fig), figureShown: shown(fig),
            imageShown: [...fig.querySelectorAll('img, svg, .ropelab-explorable')].some(shown),
            printOnly: !!(cell && cell.classList.contains('tag_print-only')),
            screenOnly: !!(cell && cell.classList.contains('tag_screen-only')),
            where: where(fig),
        });
    }
    // Images of cell outputs that are not inside a figure (no caption, no number).
    const bareImages = [...article.querySelectorAll('.cell_output img')]
        .filter(i => shown(i) && !i.closest('figure, div.figure')).map(i => where(i));
    // Explorables: captioned when inside a figure, or when the cell right after theirs is the
    // print twin (tag print-only) whose caption stays on screen.
    const explorables = [];
    for (const ex of article.querySelectorAll('.ropelab-explorable')) {
        const cell = ex.closest('div.cell');
        const own = ex.closest('figure');
        let caption = own ? captionOf(own) : null;
        const next = cell ? cell.nextElementSibling : null;
        if (!caption && next && next.matches('div.cell.tag_print-only')) {
            const f = next.querySelector('figure');
            if (f) { caption = captionOf(f); }
        }
        // The smallest label of its figure as drawn (SVG units times the drawing's scale) and
        // whether the figure fits its box or scrolls in it.
        const svg = ex.querySelector('.ropelab-figure svg');
        let smallestLabel = null, figureFits = null, figureScrolls = false;
        if (svg && shown(svg)) {
            const unit = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            const sizes = [...svg.querySelectorAll('text')]
                .map(t => parseFloat(t.getAttribute('font-size')) * unit);
            smallestLabel = sizes.length ? Math.round(10 * Math.min(...sizes)) / 10 : null;
            const box = ex.querySelector('.ropelab-figure');
            figureFits = svg.getBoundingClientRect().right <= Math.min(
                box.getBoundingClientRect().right, column.right) + 1;
            figureScrolls = box.scrollWidth > box.clientWidth + 1
                && getComputedStyle(box).overflowX === 'auto';
        }
        explorables.push({
            id: ex.id, shown: shown(ex), where: where(ex), smallestLabel, figureFits,
            figureScrolls, kind: ex.dataset.kind || null,
            caption: caption, screenOnly: !!(cell && cell.classList.contains('tag_screen-only')),
            printTwin: !!(next && next.matches('div.cell.tag_print-only')
                          && next.querySelector('figure img')),
        });
    }

    const exercises = [...article.querySelectorAll('.exercise')].map(e => {
        const n = e.querySelector('.caption-number');
        return {id: e.id, number: n ? n.textContent.trim() : null};
    });
    const solutions = [...article.querySelectorAll('.solution')].map(s => {
        const title = s.querySelector('.admonition-title');
        const body = s.querySelector('section, .admonition-title ~ *');
        const br = body ? body.getBoundingClientRect() : null;
        return {
            id: s.id, title: title ? title.textContent.replace(/\s+/g, ' ').trim() : null,
            shown: shown(s), bodyShown: !!(body && shown(body) && br.height > 4),
        };
    });
    const numrefs = [...article.querySelectorAll('a.reference span.std-numref, a.reference code.std-numref')]
        .map(s => s.textContent.trim());

    // Prose text outside math and code that still holds TeX: a "$" or a "\command".
    const skip = 'mjx-container, pre, code, script, style, svg, textarea, .ropelab-explorable, '
        + '.cell_input, .cell_output, .MathJax, mjx-assistive-mml, .math';
    const texLeft = [];
    const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
    for (let n = options.prose ? walker.nextNode() : null; n; n = walker.nextNode()) {
        const p = n.parentElement;
        if (!p || p.closest(skip) || !shown(p)) { continue; }
        const t = n.textContent;
        const m = t.match(/\$|\\[A-Za-z]+|\\[()\[\]{}]/);
        if (m) {
            texLeft.push((where(p) + ': ' + t.slice(Math.max(0, m.index - 30), m.index + 40))
                .replace(/\s+/g, ' '));
        }
    }

    // What must not be printed: navigation, sidebars, the header with its launch buttons.
    const chrome = ['.bd-header', '.bd-sidebar-primary', '.bd-sidebar-secondary',
        '.bd-header-article', '.header-article-items', '.prev-next-area', '.bd-footer',
        '.bd-footer-article', '#pst-back-to-top', '.article-header-buttons', '.dropdown-launch-buttons',
        'button.toggle-button', 'details.hide > summary']
        .flatMap(s => [...document.querySelectorAll(s)].filter(shown).map(() => s));

    const hidden = {
        screenOnlyShown: [...article.querySelectorAll('.tag_screen-only')].filter(shown).length,
        printOnlyShown: [...article.querySelectorAll('.tag_print-only')]
            .filter(c => [...c.querySelectorAll('img, .cell_input')].some(shown)).length,
    };
    return {
        chapter: chapterOf(), title: (article.querySelector('h1') || {}).textContent || '',
        column: Math.round(column.right - column.left),
        pageScrollsSideways: document.documentElement.scrollWidth
            > document.documentElement.clientWidth + 1,
        equations, inline, code, figures, bareImages, explorables, exercises, solutions, numrefs,
        texLeft, chrome: [...new Set(chrome)], hidden,
        doubled: article.innerText.match(/\b(Exercise|Figure|Table|Equation)\s+\1\b/g) || [],
    };
}"""


def launch(playwright: Any) -> Any:
    """Debian's Chromium, headless, with scrollbars drawn (see ``IGNORE_DEFAULT_ARGS``)."""
    return playwright.chromium.launch(
        executable_path=CHROMIUM, args=CHROMIUM_ARGS, ignore_default_args=IGNORE_DEFAULT_ARGS
    )


def measure_page(
    page: Any,
    widths: tuple[int, ...] = WIDTHS,
    screenshot: Any = None,
    screenshots: frozenset[str] = frozenset(),
) -> dict[str, dict[str, Any]]:
    """Every view of a loaded page at ``widths[0]``: ``{"1280-screen": probe, "768-print": …}``.

    ``screenshot(page, width, media)`` is called in each view named in ``screenshots``
    ("1280-screen", "390-print", …) before anything on the page is opened. Print is measured
    next, with every block as the page left it (solutions must print open without a click);
    then every collapsed block is opened and the screen views are measured, narrowest first
    (the order costs the fewest relayouts). The prose is searched for TeX in the first view only.
    """
    page.evaluate(WAIT_FOR_MATH_JS)
    current = {"width": widths[0]}

    def resize(width: int) -> None:
        if width != current["width"]:
            page.set_viewport_size({"width": width, "height": HEIGHT})
            page.evaluate(NEXT_FRAMES_JS)
            current["width"] = width

    def emulate(media: str) -> None:
        page.emulate_media(media=media)
        page.evaluate(NEXT_FRAMES_JS)

    def probe(width: int, media: str) -> dict[str, Any]:
        return page.evaluate(PROBE_JS, {"prose": width == widths[0] and media == "screen"})

    if screenshot is not None:
        for width in widths:
            if f"{width}-screen" in screenshots:
                resize(width)
                screenshot(page, width, "screen")
    views: dict[str, dict[str, Any]] = {}
    emulate("print")
    for width in sorted(widths, key=lambda w: abs(w - current["width"])):
        resize(width)
        if screenshot is not None and f"{width}-print" in screenshots:
            screenshot(page, width, "print")
        views[f"{width}-print"] = probe(width, "print")
    emulate("screen")
    page.evaluate(EXPAND_JS)
    for width in sorted(widths, key=lambda w: abs(w - current["width"])):
        resize(width)
        views[f"{width}-screen"] = probe(width, "screen")
    return {f"{w}-{m}": views[f"{w}-{m}"] for m in MEDIA for w in widths}


def chapter_pages(site: Path) -> list[str]:
    """The chapter pages and the book's other pages, relative to the site root."""
    pages = sorted(str(p.relative_to(site)) for p in (site / "notebooks").glob("*.html"))
    pages += sorted(str(p.relative_to(site)) for p in (site / "book").glob("*.html"))
    return pages


def summarize(views: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Counts per view: equations that overflow, are clipped, scroll; code blocks that scroll."""
    out: dict[str, Any] = {}
    for view, probe in views.items():
        eqs = probe["equations"]
        code = probe["code"]
        out[view] = {
            "equations": len(eqs),
            "overflowing": sum(not e["fits"] for e in eqs),
            "clipped": sum(e["clipped"] for e in eqs),
            "out_of_column": sum(not e["inColumn"] for e in eqs),
            "eqno_overlaps": sum(e["eqnoOverlap"] for e in eqs),
            "inline": len(probe["inline"]),
            "inline_out": sum(not i["inColumn"] for i in probe["inline"]),
            "code": len(code),
            "code_scrolls": sum(c["scrolls"] for c in code),
            "input_scrolls": sum(c["scrolls"] and c["kind"] == "input" for c in code),
            "output_scrolls": sum(c["scrolls"] and c["kind"] == "output" for c in code),
            "column": probe["column"],
        }
    return out


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", help="page stems (04_theta_spectrum); default all")
    parser.add_argument("--site", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--json", type=Path, help="write every measurement here")
    parser.add_argument(
        "--widths", type=int, nargs="+", default=list(WIDTHS), help="viewport widths (px)"
    )
    args = parser.parse_args(argv)
    widths = tuple(args.widths)
    site = args.site.resolve()
    pages = chapter_pages(site)
    if args.pages:
        pages = [p for p in pages if Path(p).stem in args.pages]
    everything: dict[str, Any] = {}
    print(
        f"{'page':28} {'view':12} {'col':>4} {'eqs':>4} {'wide':>5} {'clip':>5} {'#ovl':>5}"
        f" {'inl':>4} {'out':>4} {'code':>5} {'scroll':>6} {'(in/out)':>9}"
    )
    with sync_playwright() as playwright:
        browser = launch(playwright)
        for relative in pages:
            page = browser.new_page(viewport={"width": widths[0], "height": HEIGHT})
            page.goto((site / relative).as_uri(), wait_until="load")
            views = measure_page(page, widths)
            page.close()
            everything[relative] = views
            for view, s in summarize(views).items():
                print(
                    f"{Path(relative).stem:28} {view:12} {s['column']:>4} {s['equations']:>4}"
                    f" {s['overflowing']:>5} {s['clipped']:>5} {s['eqno_overlaps']:>5}"
                    f" {s['inline']:>4} {s['inline_out']:>4} {s['code']:>5}"
                    f" {s['code_scrolls']:>6} {s['input_scrolls']:>4}/{s['output_scrolls']:<4}"
                )
        browser.close()
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
