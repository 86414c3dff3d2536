"""Every built deck as an editable PowerPoint file (issue 33): ``slides/pptx/<deck>.pptx``.

A lecturer opens it in PowerPoint, Keynote, Google Slides or LibreOffice Impress and cuts,
reorders or rewrites slides without npm, Chromium or a rebuild. Each deck
(``tools/build_slides.py``'s HTML) is opened in headless Chromium in reveal.js's print
layout (``?print-pdf``: every slide laid out on its own 1280 x 720 page and fitted by
``ropelab-slides.js``), and each slide is read where the browser put it
(``tools/pptx_extract.js``):

* **the title** becomes the slide's title placeholder, as text;
* **text** (paragraphs, list items, captions, code) becomes text boxes at the place and size
  the deck gives it, its runs styled (bold, italic, code, colour) and inline math written as
  text from MathJax's MathML, with sub- and superscripts;
* **display equations, figures, tables and explorables** become pictures: an element
  screenshot at a device scale factor of 2 (a figure's own PNG where the deck shows one),
  scaled to fit the box the deck gives it;
* **speaker notes** (``aside.notes``) become the slide's notes, one paragraph per paragraph,
  math as its TeX between ``$`` (``$$`` for a display).

The slide is 13.333 x 7.5 in (16:9), the deck's 1280 x 720 pixels at 96 a inch, so the boxes
keep the deck's layout: nothing overlaps that the deck does not overlap, and every box is
clipped to the slide. It depends only on the decks' DOM (one ``section`` a slide with its
``.slide-title``, ``img`` figures, MathJax ``mjx-container`` math, ``aside.notes``), not on
their texts.

    .venv/bin/python tools/export_pptx.py                       # _build/kit/slides/pptx/
    .venv/bin/python tools/export_pptx.py --slides /tmp/x 05_long_range_decay

The deck index (``slides/index.html``) gets a "PPTX" link beside each deck's PDF. ``make pptx``
runs it after ``make slides``; ``tests/test_pptx.py`` reads every file back and converts it to
PDF with LibreOffice.
"""

from __future__ import annotations

import argparse
import html
import io
import re
import shutil
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from bs4 import BeautifulSoup, NavigableString, Tag
from PIL import Image
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.text import MSO_AUTO_SIZE, PP_ALIGN
from pptx.oxml.ns import qn
from pptx.util import Emu, Pt

from ropebook import ROOT

DEFAULT_SLIDES = ROOT / "_build" / "kit" / "slides"
PPTX_DIR = "pptx"
EXTRACT_JS = ROOT / "tools" / "pptx_extract.js"

#: The deck's slide in layout pixels (ropelab-slides.js) and the PPTX slide (16:9, 96 px/in).
SLIDE_PX = (1280, 720)
EMU_PER_PX = 9525
SLIDE_EMU = (SLIDE_PX[0] * EMU_PER_PX, SLIDE_PX[1] * EMU_PER_PX)
#: Screenshots at twice the layout resolution, sharp on a projector.
DEVICE_SCALE = 2
#: Office fonts every editor has (LibreOffice maps them to metric-compatible Liberation
#: fonts); the type is set a little smaller than the deck's so that a wider font still fits.
SANS, MONO = "Arial", "Courier New"
#: The East Asian font of a run with Chinese in it (a Chinese deck, ``slides/zh/``): the CJK
#: sans the decks use; an editor without it takes its own CJK font.
CJK_SANS = "Noto Sans CJK SC"
CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")
FONT_SCALE = 0.92
#: The PowerPoint layouts of the default template: "Title Only" and "Blank".
TITLE_ONLY, BLANK = 5, 6


# --- notes: from the deck's HTML -------------------------------------------------------------


def _math_text(tag: Tag) -> str:
    """A MathJax source span as TeX between dollars: ``\\(x\\)`` -> ``$x$``, ``\\[x\\]`` ->
    ``$$x$$``."""
    tex = " ".join(tag.get_text().split())
    if tex.startswith("\\[") and tex.endswith("\\]"):
        return f"$${tex[2:-2].strip()}$$"
    if tex.startswith("\\(") and tex.endswith("\\)"):
        return f"${tex[2:-2].strip()}$"
    return tex


def _inline_text(tag: Tag) -> str:
    """The text of an element, its math as TeX, its whitespace collapsed."""
    parts = []
    for node in tag.children:
        if isinstance(node, NavigableString):
            parts.append(str(node))
        elif isinstance(node, Tag):
            if "math" in (node.get("class") or []):
                parts.append(_math_text(node))
            elif node.name not in ("ul", "ol", "script", "style"):
                parts.append(_inline_text(node))
    return " ".join("".join(parts).split())


def notes_paragraphs(notes: Tag, depth: int = 0) -> list[str]:
    """The speaker notes as paragraphs of plain text: one per paragraph, list item, display
    equation (``$$…$$``) or code block; list items start with a bullet."""
    out: list[str] = []
    loose: list[str] = []

    def flush() -> None:
        text = " ".join(" ".join(loose).split())
        if text:
            out.append(text)
        loose.clear()

    for node in notes.children:
        if isinstance(node, NavigableString):
            loose.append(str(node))
            continue
        if not isinstance(node, Tag) or node.name in ("script", "style"):
            continue
        classes = node.get("class") or []
        if node.name == "span" and "math" in classes:
            loose.append(_math_text(node))
        elif node.name in ("a", "em", "strong", "code", "span", "b", "i", "sub", "sup", "small"):
            loose.append(_inline_text(node))
        elif node.name == "br":
            continue
        else:
            flush()
            if node.name == "div" and "math" in classes:
                out.append(_math_text(node))
            elif node.name in ("ul", "ol"):
                for number, item in enumerate(node.find_all("li", recursive=False), 1):
                    mark = f"{number}." if node.name == "ol" else "\u2022"
                    text = _inline_text(item)
                    if text:
                        out.append(f"{'  ' * depth}{mark} {text}")
                    for nested in item.find_all(["ul", "ol"], recursive=False):
                        wrapper = BeautifulSoup("<div></div>", "html.parser").div
                        wrapper.append(nested.__copy__())
                        out.extend(notes_paragraphs(wrapper, depth + 1))
            elif node.name == "pre":
                out.extend(line.rstrip() for line in node.get_text().splitlines() if line.strip())
            elif node.find(["p", "ul", "ol", "div", "pre"]):
                out.extend(notes_paragraphs(node, depth))
            else:
                text = _inline_text(node)
                if text:
                    out.append(text)
    flush()
    return out


def deck_sections(path: Path) -> list[Tag]:
    """The slides of a built deck: ``.reveal .slides > section``, in order."""
    soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    return soup.select("div.slides > section")


def deck_notes(path: Path) -> list[list[str]]:
    """Each slide's notes (``aside.notes``) as paragraphs; an empty list where it has none."""
    notes = []
    for section in deck_sections(path):
        aside = section.select_one(":scope > aside.notes")
        notes.append(notes_paragraphs(aside) if aside is not None else [])
    return notes


# --- geometry --------------------------------------------------------------------------------


def clip_box(rect: list[float], scale: float) -> tuple[float, float, float, float] | None:
    """A box in the deck's pixels (``[x, y, w, h]`` from the slide's corner, times ``scale``
    where the browser drew the slide at another size) clipped to the slide; None when nothing
    of it is on the slide."""
    x, y, w, h = (v * scale for v in rect)
    left, top = max(0.0, x), max(0.0, y)
    right, bottom = min(float(SLIDE_PX[0]), x + w), min(float(SLIDE_PX[1]), y + h)
    if right - left < 1 or bottom - top < 1:
        return None
    return left, top, right - left, bottom - top


def fit_picture(
    box: tuple[float, float, float, float], width: int, height: int
) -> tuple[float, float, float, float]:
    """A ``width`` x ``height`` picture scaled to the largest size that fits ``box``, its aspect
    kept, centred in the box (as the deck's figures fill theirs, ``object-fit: contain``)."""
    x, y, w, h = box
    scale = min(w / width, h / height)
    fitted_w, fitted_h = width * scale, height * scale
    return x + (w - fitted_w) / 2, y + (h - fitted_h) / 2, fitted_w, fitted_h


def emu(px: float) -> Emu:
    return Emu(round(px * EMU_PER_PX))


# --- the PPTX --------------------------------------------------------------------------------


def _style_run(run: Any, spec: dict[str, Any], size_pt: float) -> None:
    font = run.font
    font.size = Pt(round(size_pt * 2) / 2)
    font.bold = bool(spec.get("b"))
    font.italic = bool(spec.get("i"))
    font.name = MONO if spec.get("m") else SANS
    if spec.get("c"):
        font.color.rgb = RGBColor.from_string(spec["c"].upper())
    if CJK.search(run.text or ""):
        # <a:ea> follows <a:latin> in a run's properties
        r_pr = run._r.get_or_add_rPr()
        east = r_pr.makeelement(qn("a:ea"), {"typeface": CJK_SANS})
        latin = r_pr.find(qn("a:latin"))
        if latin is not None:
            latin.addnext(east)
        else:
            r_pr.append(east)
    if spec.get("h"):
        # a highlighted line of code: <a:highlight> goes before the font's <a:latin>
        r_pr = run._r.get_or_add_rPr()
        mark = r_pr.makeelement(qn("a:highlight"), {})
        mark.append(mark.makeelement(qn("a:srgbClr"), {"val": spec["h"].upper()}))
        latin = r_pr.find(qn("a:latin"))
        if latin is not None:
            latin.addprevious(mark)
        else:
            r_pr.append(mark)
    baseline = int(spec.get("base") or 0)
    if baseline:
        # a subscript (negative) or superscript, in thousandths of a percent
        run._r.get_or_add_rPr().set("baseline", str(baseline * 1000))


def _bullet(paragraph: Any, mark: str, level: int, size_pt: float) -> None:
    """A hanging bullet (or ``1.`` number) the editor keeps when the text is changed."""
    p_pr = paragraph._p.get_or_add_pPr()
    indent = round(size_pt * 1.2 * 12700)
    p_pr.set("marL", str(indent * (level + 1)))
    p_pr.set("indent", str(-indent))
    if mark.endswith("."):
        number = p_pr.makeelement(qn("a:buAutoNum"), {"type": "arabicPeriod"})
        if mark[:-1].isdigit() and mark[:-1] != "1":
            number.set("startAt", mark[:-1])
        p_pr.append(number)
    else:
        p_pr.append(p_pr.makeelement(qn("a:buFont"), {"typeface": SANS}))
        p_pr.append(p_pr.makeelement(qn("a:buChar"), {"char": mark}))


ALIGN = {"left": PP_ALIGN.LEFT, "center": PP_ALIGN.CENTER, "right": PP_ALIGN.RIGHT}


def fill_text(
    frame: Any,
    paragraphs: list[dict[str, Any]],
    scale: float,
    padding: list[float] | None = None,
) -> None:
    """Write extracted paragraphs (``pptx_extract.js``) into a text frame whose insets are the
    block's ``padding`` (left, top, right, bottom, in the deck's pixels)."""
    frame.word_wrap = True
    frame.auto_size = MSO_AUTO_SIZE.NONE
    sides = ("margin_left", "margin_top", "margin_right", "margin_bottom")
    for side, inset in zip(sides, padding or [0, 0, 0, 0], strict=True):
        setattr(frame, side, emu(inset * scale))
    for n, spec in enumerate(paragraphs):
        paragraph = frame.paragraphs[0] if n == 0 else frame.add_paragraph()
        size_pt = spec["size"] * scale * 0.75 * FONT_SCALE
        paragraph.alignment = ALIGN.get(spec.get("align", "left"), PP_ALIGN.LEFT)
        if n and not spec.get("code"):
            paragraph.space_before = Pt(round(size_pt * 0.25))
        if spec.get("bullet"):
            _bullet(paragraph, spec["bullet"], int(spec.get("level", 0)), size_pt)
        for run_spec in spec["runs"]:
            run = paragraph.add_run()
            run.text = run_spec["t"]
            _style_run(run, run_spec, size_pt)


def write_pptx(
    slides: list[dict[str, Any]],
    notes: list[list[str]],
    pictures: dict[int, bytes],
    path: Path,
    title: str,
) -> None:
    """The deck as a PPTX: one slide per extracted slide, its title, text boxes, pictures
    (``pictures``: PNG bytes by shot number) and notes."""
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(SLIDE_EMU[0]), Emu(SLIDE_EMU[1])
    prs.core_properties.title = title
    prs.core_properties.author = "RoPE, derived and run"
    for spec, paragraphs in zip(slides, notes, strict=True):
        scale = SLIDE_PX[0] / spec["size"][0] if spec["size"][0] else 1.0
        heading = spec.get("title")
        slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY if heading else BLANK])
        if heading:
            shape = slide.shapes.title
            box = clip_box(heading["rect"], scale) or (48.0, 24.0, 1184.0, 64.0)
            shape.left, shape.top, shape.width, shape.height = (emu(v) for v in box)
            frame = shape.text_frame
            frame.clear()
            fill_text(frame, heading["paragraphs"], scale)
        for item in spec["items"]:
            box = clip_box(item["rect"], scale)
            if box is None:
                continue
            if item["kind"] == "text":
                shape = slide.shapes.add_textbox(*(emu(v) for v in box))
                fill_text(shape.text_frame, item["paragraphs"], scale, item.get("padding"))
                if item.get("fill"):
                    shape.fill.solid()
                    shape.fill.fore_color.rgb = RGBColor.from_string(item["fill"].upper())
                continue
            data = pictures.get(item["shot"])
            if data is None:
                continue
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
            x, y, w, h = fit_picture(box, width, height)
            picture = slide.shapes.add_picture(io.BytesIO(data), emu(x), emu(y), emu(w), emu(h))
            picture.name = f"Picture {item['shot']}"
        if paragraphs:
            slide.notes_slide.notes_text_frame.text = "\n".join(paragraphs)
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(str(path))


# --- reading the deck in Chromium ------------------------------------------------------------


def _picture(page: Any, item: dict[str, Any]) -> bytes | None:
    """The PNG of one picture item: the figure's own file where the deck shows a raster image,
    else an element screenshot."""
    source = item.get("src") or ""
    if source.startswith("file://"):
        path = Path(unquote(urlparse(source).path))
        if path.is_file():
            with Image.open(path) as image:
                out = io.BytesIO()
                image.convert("RGBA" if image.mode in ("RGBA", "LA", "P") else "RGB").save(
                    out, format="PNG"
                )
                return out.getvalue()
    element = page.locator(f'[data-pptx-shot="{item["shot"]}"]')
    if element.count() != 1:
        return None
    if not item.get("crop"):
        return element.screenshot(animations="disabled", timeout=30_000)
    # an equation: the formula and its number, without the empty width of its column
    element.scroll_into_view_if_needed(timeout=30_000)
    found = element.bounding_box()
    if found is None:
        return None
    x, y, w, h = item["crop"]
    left, top = max(0.0, found["x"] + x), max(0.0, found["y"] + y)
    right = min(float(SLIDE_PX[0]), found["x"] + x + w)
    bottom = min(float(SLIDE_PX[1]), found["y"] + y + h)
    if right - left < 1 or bottom - top < 1:
        return None
    clip = {"x": left, "y": top, "width": right - left, "height": bottom - top}
    return page.screenshot(clip=clip, animations="disabled", timeout=30_000)


def read_deck(page: Any, path: Path) -> tuple[list[dict[str, Any]], dict[int, bytes]]:
    """Open a built deck and return its slides (``pptx_extract.js``) and their pictures."""
    page.goto(path.as_uri() + "?print-pdf", wait_until="load")
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'", timeout=120_000)
    # scroll bars are the browser's, not the slide's: never in a picture
    page.add_style_tag(content="::-webkit-scrollbar { display: none !important; }")
    page.wait_for_timeout(300)
    slides = page.evaluate(EXTRACT_JS.read_text(encoding="utf-8"))
    pictures = {}
    for spec in slides:
        for item in spec["items"]:
            if item["kind"] == "picture":
                data = _picture(page, item)
                if data is not None:
                    pictures[item["shot"]] = data
    return slides, pictures


def deck_title(path: Path) -> str:
    match = re.search(r"<title>(.*?)</title>", path.read_text(encoding="utf-8"), re.S)
    return html.unescape(match.group(1)).strip() if match else path.stem


def export(slides_dir: Path, out: Path, stems: list[str] | None = None) -> list[Path]:
    """Every deck of ``slides_dir`` (or those named by ``stems``) as ``out/<deck>.pptx``."""
    from playwright.sync_api import sync_playwright

    from ropebook.headless_chromium import CHROMIUM, keep_offline
    from ropebook.page_layout import launch

    if not Path(CHROMIUM).exists():
        raise SystemExit(f"Chromium not found at {CHROMIUM}: make chromium")
    decks = sorted(p for p in slides_dir.glob("*.html") if p.name != "index.html")
    if stems:
        decks = [p for p in decks if p.stem in stems]
    if not decks:
        raise SystemExit(f"no deck in {slides_dir}: make slides")
    if not stems:
        shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as playwright:
        browser = launch(playwright)
        context = browser.new_context(
            viewport={"width": SLIDE_PX[0], "height": SLIDE_PX[1]},
            device_scale_factor=DEVICE_SCALE,
        )
        for deck in decks:
            started = time.perf_counter()
            page = context.new_page()
            keep_offline(page)
            page.emulate_media(media="screen")
            slides, pictures = read_deck(page, deck)
            page.close()
            notes = deck_notes(deck)
            if len(notes) != len(slides):
                raise SystemExit(
                    f"{deck.name}: {len(slides)} slides in the browser, {len(notes)} sections"
                )
            target = out / f"{deck.stem}.pptx"
            write_pptx(slides, notes, pictures, target, deck_title(deck))
            written.append(target)
            print(
                f"  {target.relative_to(slides_dir)}: {len(slides)} slides, "
                f"{len(pictures)} pictures, {target.stat().st_size / 1e6:.1f} MB "
                f"({time.perf_counter() - started:.0f} s)"
            )
        context.close()
        browser.close()
    return written


# --- the deck index --------------------------------------------------------------------------

INDEX_NOTE = (
    '<p class="pptx-note">Each deck is also a PPTX to edit in PowerPoint, Keynote, Google '
    "Slides or LibreOffice Impress: its titles and text are text boxes, its equations and "
    "figures pictures, its speaker notes kept.</p>"
)
#: The same for the Chinese decks' index (``slides/zh/index.html``).
INDEX_NOTE_ZH = (
    '<p class="pptx-note">每套幻灯片也有 PPTX，可在 PowerPoint、Keynote、Google 幻灯片或 '
    "LibreOffice Impress 中编辑：标题和文字是文本框，公式和图是图片，讲稿保留。</p>"
)


def link_from_index(slides_dir: Path, written: list[Path]) -> bool:
    """Add a "PPTX" link to each deck's line of ``slides/index.html`` (after its PDF link, in
    its ``<small>``), and a sentence about them above the first list of decks; idempotent.
    False when there is no index."""
    index = slides_dir / "index.html"
    if not index.is_file():
        return False
    page = index.read_text(encoding="utf-8")
    for path in written:
        relative = f"{PPTX_DIR}/{path.name}"
        line = re.compile(
            rf'(<li>(?:(?!</li>).)*?href="{re.escape(path.stem)}\.html"(?:(?!</li>).)*?)'
            r"(\)</small>)?(</li>)",
            re.S,
        )
        match = line.search(page)
        if match is None or relative in match.group(0):
            continue
        link = f' · <a href="{relative}">PPTX</a>'
        page = page[: match.end(1)] + link + page[match.end(1) :]
    note = INDEX_NOTE_ZH if '<html lang="zh' in page else INDEX_NOTE
    first_list = re.search(r"<(?:h2|ul)[\s>]", page)
    if note not in page and first_list is not None:
        # after the page's opening paragraphs, before its first heading or list of decks
        page = f"{page[: first_list.start()]}{note}\n{page[first_list.start() :]}"
    index.write_text(page, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("decks", nargs="*", help="deck names (default: every deck)")
    parser.add_argument("--slides", type=Path, default=DEFAULT_SLIDES, help="the built decks")
    parser.add_argument("--out", type=Path, help=f"default: <slides>/{PPTX_DIR}")
    args = parser.parse_args(argv)
    slides_dir = args.slides.resolve()
    out = (args.out or slides_dir / PPTX_DIR).resolve()
    started = time.perf_counter()
    written = export(slides_dir, out, [Path(d).stem for d in args.decks] or None)
    if out == slides_dir / PPTX_DIR:
        link_from_index(slides_dir, written)
    print(f"{len(written)} PPTX decks -> {out} ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
