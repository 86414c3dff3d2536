"""The checks a lecturer makes before showing a deck, run in Chromium on every slide (issue 33).

A deck of ``tools/build_slides.py`` is opened offline, and each slide is shown in turn
(reveal.js's API) and measured as drawn:

* **cut**: every paragraph, caption and list item on the slide ends where a sentence ends:
  a paragraph or caption ends in ``.``, ``!`` or ``?`` (a closing bracket or quote may follow),
  or in ``:`` with something after it on the slide (the equation, list or code it introduces);
  in a Chinese deck (``slides/zh/``) the same with 。！？ and ：，;
  nothing ends in an abbreviation ("eq.", "eqs.", "e.g.", "i.e.", "cf.", "Fig.") or in a word
  that leaves the sentence open ("and", "so the score"); a list item may be a phrase, but not
  one cut so. Mathematics counts as one word; code blocks, tables, explorables and titles are
  not prose.
* **brackets**: in each of those texts the brackets ``()``, ``[]`` balance, the full-width
  （）counted as ``()`` (mathematics left out: its own brackets are MathJax's).
* **ellipsis**: no caption and no text ends in "…" (or "...").
* **overlap**: an equation number's box does not intersect its formula's box (the drawn
  ``mjx-math``, not the full-width container).
* **overflow**: nothing drawn on the slide leaves its 16:9 frame, and its body holds its
  content.

:func:`audit_deck` returns the problems of a loaded deck; :func:`contact_sheet` draws every
slide into one PNG grid. ``tools/build_slides.py --pdf`` runs both for every deck (the contact
sheets go to ``slides/contact/``, the problems to ``slides/checks.json``) and
``tests/browser/test_slides.py`` asserts that no deck has a problem, and that a synthetic deck
with a planted cut caption and a planted overlap fails.

    .venv/bin/python tools/slide_checks.py /tmp/slides-out     # counts per deck, contact sheets
"""

from __future__ import annotations

import argparse
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

#: What a deck sets once it has typeset and fitted its first slide (ropelab-slides.js).
READY = "document.documentElement.dataset.deckReady === 'true'"
WIDTH, HEIGHT = 1280, 720
#: The problem kinds, in the order reports list them.
KINDS = ("cut", "brackets", "ellipsis", "overlap", "overflow")
#: One tile of a contact sheet (16:9) and the tiles in a row.
TILE_WIDTH, TILE_HEIGHT, TILES_PER_ROW = 384, 216, 4

#: The checks on the current slide (a reveal.js ``section``): ``[{kind, text}]``.
CHECK_SLIDE_JS = r"""(section) => {
    const problems = [];
    const add = (kind, text) => problems.push({kind, text: String(text).slice(-120)});
    // the text a reader sees, each formula one word ("x"), equation numbers left out
    const prose = el => {
        const copy = el.cloneNode(true);
        copy.querySelectorAll('mjx-container').forEach(m => m.replaceWith(' x '));
        copy.querySelectorAll('.eqno, aside.notes, pre, .ropelab-explorable, table, ul, ol')
            .forEach(e => e.remove());
        return copy.textContent.replace(/\s+/g, ' ').trim();
    };
    const ABBREVIATION = /(^|[\s(])(eqs?|e\.g|i\.e|cf|figs?|vs|resp|approx|sec|ch|no|ref)\.$/i;
    const OPEN_END = /\b(and|or|but|so|the|a|an|of|to|with|by|for|in|that|which|as|is|are|its|their|from|than|then|where|while)$/i;
    const ELLIPSIS = /(…|\.\.\.)\s*[)\]]?$/;
    const after = el => {
        // something follows el on the slide (what a colon introduces)
        for (let e = el; e && e !== section; e = e.parentElement) {
            if (e.nextElementSibling && !e.nextElementSibling.matches('aside.notes')) {
                return true;
            }
        }
        return false;
    };
    const body = section.querySelector('.slide-body') || section;
    const blocks = [...body.querySelectorAll('p, figcaption, li, .meaning, dd')]
        .filter(e => !e.closest('.ropelab-explorable, aside.notes, pre, table'))
        .filter(e => !e.matches('.admonition-title, .label, .chapter-link'))
        .filter(e => !e.querySelector('p, li'));
    for (const el of blocks) {
        const text = prose(el);
        if (!text || text === 'x') { continue; }
        const item = el.matches('li');
        const open = OPEN_END.test(text.replace(/\s*x$/, '').trim());
        if (ELLIPSIS.test(text)) {
            add('ellipsis', text);
        } else if (ABBREVIATION.test(text)) {
            add('cut', text);
        } else if (/[:,：，]$/.test(text) || (/\bx$/.test(text) && !open)) {
            // a lead-in: the equation, list or code it introduces comes next
            if (!after(el)) { add('cut', text); }
        } else if (item ? open : !/[.!?。！？]["'”’)\]）」]*$/.test(text)) {
            add('cut', text);
        }
        const depth = {'(': 0, '[': 0};
        let unbalanced = false;
        for (const ch of text.replace(/（/g, '(').replace(/）/g, ')')) {
            if (ch === '(' || ch === '[') { depth[ch] += 1; }
            if (ch === ')') { depth['('] -= 1; }
            if (ch === ']') { depth['['] -= 1; }
            if (depth['('] < 0 || depth['['] < 0) { unbalanced = true; }
        }
        if (unbalanced || depth['('] !== 0 || depth['['] !== 0) { add('brackets', text); }
    }
    const intersects = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5
        && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
    for (const number of section.querySelectorAll('.eqno')) {
        const box = number.getBoundingClientRect();
        if (box.width === 0 || box.height === 0) { continue; }
        const math = number.closest('.math') || number.parentElement;
        for (const formula of math.querySelectorAll('mjx-container > mjx-math, mjx-container svg')) {
            if (intersects(box, formula.getBoundingClientRect())) {
                add('overlap', `${number.textContent.trim()} over its formula`);
            }
        }
    }
    const frame = section.getBoundingClientRect();
    const scale = frame.width / WIDTH_PX;
    if (Math.abs(frame.height / frame.width - HEIGHT_PX / WIDTH_PX) > 0.01) {
        add('overflow', `the slide is ${frame.width} x ${frame.height}, not 16:9`);
    }
    if (body.scrollHeight - body.clientHeight > 1 || body.scrollWidth - body.clientWidth > 1) {
        add('overflow', `the body's content is ${body.scrollWidth} x ${body.scrollHeight} `
            + `in ${body.clientWidth} x ${body.clientHeight}`);
    }
    const tolerance = 1.5 * scale;
    for (const el of section.querySelectorAll('*')) {
        // the notes are not drawn; MathJax's assistive MathML is clipped to nothing
        if (el.closest('aside.notes, mjx-assistive-mml')) { continue; }
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) { continue; }
        const out = Math.max(frame.left - r.left, r.right - frame.right,
            frame.top - r.top, r.bottom - frame.bottom);
        if (out > tolerance) {
            const name = el.tagName.toLowerCase() + (el.className && el.className.baseVal === undefined
                ? '.' + String(el.className).split(' ')[0] : '');
            add('overflow', `${name} leaves the frame by ${Math.round(out / scale)} px`);
            break;
        }
    }
    return problems;
}""".replace("WIDTH_PX", str(WIDTH)).replace("HEIGHT_PX", str(HEIGHT))


def audit_deck(page: Any, screenshot: bool = False) -> tuple[list[dict[str, Any]], list[bytes]]:
    """The problems of every slide of the deck loaded in ``page`` (``[{slide, title, kind,
    text}]``, slides numbered from 1) and, with ``screenshot``, a PNG of each slide."""
    page.wait_for_function(READY, timeout=120_000)
    total = page.evaluate("Reveal.getTotalSlides()")
    problems: list[dict[str, Any]] = []
    shots: list[bytes] = []
    for index in range(total):
        page.evaluate(f"Reveal.slide({index})")
        page.wait_for_function(
            f"Reveal.getIndices().h === {index} && !!Reveal.getCurrentSlide().dataset.fit"
        )
        page.wait_for_timeout(50)
        title = page.evaluate(
            "(() => { const t = Reveal.getCurrentSlide().querySelector('.slide-title');"
            " return t ? t.innerText.trim() : ''; })()"
        )
        for found in page.evaluate(f"() => ({CHECK_SLIDE_JS})(Reveal.getCurrentSlide())"):
            problems.append({"slide": index + 1, "title": title, **found})
        if screenshot:
            shots.append(page.screenshot())
    return problems, shots


def contact_sheet(shots: list[bytes], path: Path, label: str = "") -> Path:
    """Every slide's screenshot, in order, as tiles of one PNG (slide numbers drawn on)."""
    from PIL import Image, ImageDraw

    rows = max(1, -(-len(shots) // TILES_PER_ROW))
    header = 28 if label else 0
    gap = 6
    sheet = Image.new(
        "RGB",
        (
            TILES_PER_ROW * (TILE_WIDTH + gap) + gap,
            header + rows * (TILE_HEIGHT + gap) + gap,
        ),
        "#9aa0a6",
    )
    draw = ImageDraw.Draw(sheet)
    if label:
        draw.text((gap, 8), label, fill="black")
    for n, shot in enumerate(shots):
        tile = Image.open(io.BytesIO(shot)).convert("RGB")
        tile = tile.resize((TILE_WIDTH, TILE_HEIGHT), Image.LANCZOS)
        x = gap + (n % TILES_PER_ROW) * (TILE_WIDTH + gap)
        y = header + gap + (n // TILES_PER_ROW) * (TILE_HEIGHT + gap)
        sheet.paste(tile, (x, y))
        # the slide's number, in the bottom left corner (the title stays readable)
        draw.rectangle((x, y + TILE_HEIGHT - 16, x + 26, y + TILE_HEIGHT), fill="black")
        draw.text((x + 4, y + TILE_HEIGHT - 14), str(n + 1), fill="white")
    path.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(path)
    return path


def open_deck(browser: Any, path: Path, query: str = "") -> Any:
    """A 1280 x 720 page showing the deck at ``path``, offline."""
    from ropebook.headless_chromium import keep_offline

    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    keep_offline(page)
    page.goto(path.as_uri() + query, wait_until="load")
    return page


def audit_folder(
    folder: Path, contact: Path | None = None, stems: list[str] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """``{deck stem: problems}`` for every deck in ``folder`` (the slides folder), and its
    contact sheet ``contact/<stem>.png`` when ``contact`` is given."""
    from playwright.sync_api import sync_playwright

    from ropebook.page_layout import launch

    decks = sorted(p for p in folder.glob("*.html") if p.name != "index.html")
    if stems:
        decks = [p for p in decks if p.stem in stems]
    found: dict[str, list[dict[str, Any]]] = {}
    with sync_playwright() as playwright:
        browser = launch(playwright)
        for deck in decks:
            page = open_deck(browser, deck)
            problems, shots = audit_deck(page, screenshot=contact is not None)
            page.close()
            found[deck.stem] = problems
            if contact is not None:
                contact_sheet(shots, contact / f"{deck.stem}.png", deck.stem)
        browser.close()
    return found


def summary(found: dict[str, list[dict[str, Any]]]) -> str:
    """One line per deck: the count of each kind of problem."""
    lines = [f"{'deck':32} " + " ".join(f"{k:>9}" for k in KINDS)]
    totals: Counter[str] = Counter()
    for stem, problems in found.items():
        counts = Counter(p["kind"] for p in problems)
        totals.update(counts)
        lines.append(f"{stem:32} " + " ".join(f"{counts[k]:>9}" for k in KINDS))
    lines.append(f"{'total':32} " + " ".join(f"{totals[k]:>9}" for k in KINDS))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a slides folder (build_slides.py --out)")
    parser.add_argument("decks", nargs="*", help="deck stems (default: every deck)")
    parser.add_argument("--contact", type=Path, help="write contact sheets into this folder")
    parser.add_argument("--json", type=Path, help="write the problems here")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every problem")
    args = parser.parse_args(argv)
    found = audit_folder(args.folder.resolve(), args.contact, args.decks or None)
    if args.verbose:
        for stem, problems in found.items():
            for p in problems:
                print(f"{stem} {p['slide']:>2} {p['kind']:9} {p['title'][:30]!r}: {p['text']}")
    print(summary(found))
    if args.json:
        args.json.write_text(json.dumps(found, indent=1, ensure_ascii=False), encoding="utf-8")
    return 1 if any(found.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
