"""The editable decks (issue 33): ``slides/pptx/<deck>.pptx`` beside every deck of the kit, in
both editions (``tools/export_pptx.py``, ``make pptx``), read back with python-pptx and
converted to PDF by LibreOffice (``make libreoffice``: Debian's ``libreoffice-impress-nogui``).

For every deck (the HTML that ``tools/build_slides.py`` built, ``div.slides > section`` a slide):

* its PPTX opens, is 16:9 (13.333 x 7.5 in) and has a slide per section, in order;
* each slide's title holds the words of the section's title, and its text boxes the words of
  the section's paragraphs, list items and captions;
* each display equation, figure, table and explorable of the section is a picture on the slide,
  every picture lies inside the slide and overlaps no other picture or text box;
* a slide with speaker notes in the deck has the same notes (the same characters, math as its
  TeX), and a slide without has none;
* LibreOffice (headless, every deck of the suite in one run) converts it to a PDF with a page
  per slide, each page showing its slide's title.

A planted deck with a slide dropped and its notes cleared fails these checks. The tests fail,
never skip, when a part is missing (``make book`` builds the kit).
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE
from pptx.util import Emu

from ropebook.book_toc import toc_notebooks
from ropebook.export_pptx import PPTX_DIR, clip_box, fit_picture, notes_paragraphs
from ropebook.kit import SLIDES_DIR, STUDENT_DIR

ROOT = Path(__file__).resolve().parents[1]

KIT = Path(os.environ.get("ROPELAB_KIT", ROOT / "_build" / "kit")).resolve()
EDITIONS = {"instructor": KIT / SLIDES_DIR, "student": KIT / STUDENT_DIR / SLIDES_DIR}
STEMS = [path.stem for path in toc_notebooks()]


def deck_stems(slides: Path) -> list[str]:
    """The decks of a slides folder: every chapter's, then any other deck it holds (a deck
    made of several chapters)."""
    found = sorted(p.stem for p in slides.glob("*.html") if p.name != "index.html")
    return STEMS + [stem for stem in found if stem not in STEMS]


#: Each edition's own decks (the student edition copies the instructor's slides folder).
CASES = [(edition, stem) for edition, slides in EDITIONS.items() for stem in deck_stems(slides)]
#: 13.333 x 7.5 in, the decks' 1280 x 720 pixels at 96 an inch.
SLIDE_SIZE = (Emu(12_192_000), Emu(6_858_000))
#: Boxes may touch: two pixels of overlap are rounding.
TOLERANCE = 2 * 9525
#: What the deck shows as a picture (tools/pptx_extract.js).
PICTURES = "div.math, img, table, .ropelab-explorable"


def need(path: Path, how: str = "make book") -> Path:
    if not path.exists():
        pytest.fail(f"{path} is missing: run `{how}`")
    return path


def words(text: str) -> list[str]:
    """The words a reader would look for: four letters or more, outside math."""
    return re.findall(r"[A-Za-z]{4,}", text)


def prose(tag: Tag) -> str:
    """An element's text without its math (TeX in the HTML, text in the PPTX)."""
    copy = BeautifulSoup(str(tag), "html.parser")
    for math in copy.select(".math, mjx-container"):
        math.decompose()
    return " ".join(copy.get_text(" ").split())


def squeeze(text: str) -> str:
    """Notes compared character for character, without whitespace, TeX delimiters, dollars
    and the bullets or numbers the PPTX gives list items."""
    text = re.sub(r"(?m)^\s*(?:\u2022|\d+\.)\s", "", text)
    text = re.sub(r"\\[()\[\]]|\$", "", text)
    return re.sub(r"\s+", "", text)


def sections(deck: Path) -> list[Tag]:
    soup = BeautifulSoup(deck.read_text(encoding="utf-8"), "html.parser")
    return soup.select("div.slides > section")


def outermost(section: Tag) -> list[Tag]:
    """The section's pictures (``PICTURES``) outside its notes and outside one another."""
    found = [
        tag
        for tag in section.select(PICTURES)
        if tag.find_parent("aside") is None
        and not any(p in tag.parents for p in section.select(PICTURES) if p is not tag)
    ]
    return found


def box(shape: Any) -> tuple[int, int, int, int]:
    return shape.left, shape.top, shape.left + shape.width, shape.top + shape.height


def overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > TOLERANCE and (
        min(a[3], b[3]) - max(a[1], b[1]) > TOLERANCE
    )


def slide_text(slide: Any) -> str:
    return " ".join(
        shape.text_frame.text for shape in slide.shapes if shape.has_text_frame and shape.text_frame
    )


def pptx_problems(deck: Path, pptx: Path | io.BytesIO) -> list[str]:
    """Everything in which the PPTX of ``deck`` differs from the deck (empty when none)."""
    prs = Presentation(pptx)
    name = deck.stem
    problems = []
    if (prs.slide_width, prs.slide_height) != SLIDE_SIZE:
        problems.append(f"{name}: slide size {prs.slide_width} x {prs.slide_height}")
    html_slides = sections(deck)
    slides = list(prs.slides)
    if len(slides) != len(html_slides):
        problems.append(f"{name}: {len(slides)} slides in the PPTX, {len(html_slides)} in the deck")
    for number, (section, slide) in enumerate(zip(html_slides, slides, strict=False), 1):
        where = f"{name} slide {number}"
        heading = section.select_one(".slide-title") or section.find(["h1", "h2"])
        title = slide.shapes.title.text_frame.text if slide.shapes.title is not None else ""
        missing = [w for w in words(prose(heading)) if w not in title] if heading else []
        if missing:
            problems.append(f"{where}: title {title!r} lacks {missing}")
        text = slide_text(slide)
        for block in section.select("p, li, figcaption"):
            if block.find_parent("aside") is not None or block.find_parent("table") is not None:
                continue
            if block.find_parent(class_="ropelab-explorable") is not None:
                continue
            lost = [w for w in words(prose(block)) if w not in text]
            if lost:
                problems.append(f"{where}: text lacks {lost[:5]}")
        pictures = [s for s in slide.shapes if s.shape_type == MSO_SHAPE_TYPE.PICTURE]
        expected = len(outermost(section))
        if len(pictures) != expected:
            problems.append(f"{where}: {len(pictures)} pictures, the deck shows {expected}")
        for picture in pictures:
            left, top, right, bottom = box(picture)
            if left < 0 or top < 0 or right > SLIDE_SIZE[0] or bottom > SLIDE_SIZE[1]:
                problems.append(f"{where}: {picture.name} outside the slide {box(picture)}")
            for other in slide.shapes:
                if other.shape_id != picture.shape_id and overlap(box(picture), box(other)):
                    problems.append(f"{where}: {picture.name} overlaps {other.name}")
        aside = section.select_one(":scope > aside.notes")
        expected_notes = squeeze(aside.get_text()) if aside is not None else ""
        notes = slide.notes_slide.notes_text_frame.text if slide.has_notes_slide else ""
        if squeeze(notes) != expected_notes:
            problems.append(
                f"{where}: notes differ: {squeeze(notes)[:60]!r} against {expected_notes[:60]!r}"
            )
    return problems


def test_pictures_fit_their_box_and_boxes_are_clipped_to_the_slide():
    # a square picture in a 100 x 50 box: 50 x 50, centred across
    assert fit_picture((10.0, 20.0, 100.0, 50.0), 400, 400) == (35.0, 20.0, 50.0, 50.0)
    # a wide picture in a tall box: as wide as the box, centred down
    assert fit_picture((0.0, 0.0, 100.0, 300.0), 200, 100) == (0.0, 125.0, 100.0, 50.0)
    # boxes from a slide drawn at half size are doubled, then cut at the slide's edges
    assert clip_box([600.0, 300.0, 100.0, 100.0], 2.0) == (1200.0, 600.0, 80.0, 120.0)
    assert clip_box([-10.0, 5.0, 30.0, 10.0], 1.0) == (0.0, 5.0, 20.0, 10.0)
    assert clip_box([0.0, 720.0, 50.0, 50.0], 1.0) is None


def test_notes_keep_paragraphs_lists_and_math_as_tex():
    aside = BeautifulSoup(
        '<aside class="notes"><p>A query at <span class="math">\\(m\\)</span> and\n'
        "a <em>key</em>,</p>\n"
        '<div class="math">\\[a = b\n + c\\]</div>'
        "<ol><li>one</li><li>two <code>x</code></li></ol>"
        "<ul><li>left<ul><li>inner</li></ul></li></ul></aside>",
        "html.parser",
    ).aside
    assert notes_paragraphs(aside) == [
        "A query at $m$ and a key,",
        "$$a = b + c$$",
        "1. one",
        "2. two x",
        "\u2022 left",
        "  \u2022 inner",
    ]


def pptx_of(edition: str, stem: str) -> Path:
    return need(EDITIONS[edition] / PPTX_DIR / f"{stem}.pptx", "make book")


@pytest.mark.parametrize("edition", EDITIONS)
def test_every_deck_has_its_pptx(edition):
    slides = need(EDITIONS[edition], "make book")
    decks = deck_stems(slides)
    made = [p.stem for p in need(slides / PPTX_DIR).glob("*.pptx")]
    assert set(STEMS) <= set(decks)
    assert sorted(made) == sorted(decks)


@pytest.mark.parametrize(("edition", "stem"), CASES)
def test_pptx_keeps_every_slide_its_text_pictures_and_notes(edition, stem):
    deck = need(EDITIONS[edition] / f"{stem}.html")
    assert pptx_problems(deck, pptx_of(edition, stem)) == []


def test_student_pptx_is_made_from_the_student_deck():
    """The student folder's PPTX carries nothing its deck does not: where the decks are the
    same file, so is the PPTX; otherwise it was exported from the student deck (the test
    above holds it to that deck)."""
    for stem in deck_stems(EDITIONS["student"]):
        student, instructor = EDITIONS["student"], EDITIONS["instructor"]
        same_deck = (student / f"{stem}.html").read_bytes() == (
            instructor / f"{stem}.html"
        ).read_bytes()
        same_pptx = (
            pptx_of("student", stem).read_bytes() == pptx_of("instructor", stem).read_bytes()
        )
        assert same_pptx == same_deck, stem


def test_a_planted_deck_fails():
    """A PPTX with its last slide dropped and the notes of its second cleared is caught."""
    stem = STEMS[0]
    deck = need(EDITIONS["instructor"] / f"{stem}.html")
    prs = Presentation(pptx_of("instructor", stem))
    prs.slides[1].notes_slide.notes_text_frame.text = ""
    listing = prs.slides._sldIdLst
    listing.remove(listing[-1])
    planted = io.BytesIO()
    prs.save(planted)
    planted.seek(0)
    problems = pptx_problems(deck, planted)
    count = len(sections(deck))
    assert f"{stem}: {count - 1} slides in the PPTX, {count} in the deck" in problems
    assert any(p.startswith(f"{stem} slide 2: notes differ") for p in problems), problems


# --- LibreOffice -----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def libreoffice_pdfs(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, Path]:
    """Every PPTX of the kit converted to PDF by LibreOffice, headless, in one run per folder of
    distinct files (a student PPTX that is the instructor's is converted once)."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        pytest.fail("LibreOffice (soffice) is missing: run `make libreoffice`")
    files: dict[str, Path] = {}
    batches: list[list[Path]] = [[], []]
    owner: dict[Path, str] = {}
    for slides in EDITIONS.values():
        for stem in deck_stems(slides):
            path = slides / PPTX_DIR / f"{stem}.pptx"
            if not path.is_file():
                continue  # (its test fails on it)
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            owner[path] = digest
            if digest not in files:
                files[digest] = path
                batches[0 if all(p.stem != stem for p in batches[0]) else 1].append(path)
    profile = tmp_path_factory.mktemp("libreoffice-profile")
    converted: dict[str, Path] = {}
    started = time.perf_counter()
    for number, batch in enumerate(b for b in batches if b):
        out = tmp_path_factory.mktemp(f"pptx-pdf-{number}")
        subprocess.run(
            [
                soffice,
                f"-env:UserInstallation={profile.as_uri()}",
                "--headless",
                "--norestore",
                "--convert-to",
                "pdf",
                "--outdir",
                str(out),
                *map(str, batch),
            ],
            check=True,
            capture_output=True,
            timeout=900,
        )
        for path in batch:
            converted[owner[path]] = out / f"{path.stem}.pdf"
    print(f"LibreOffice: {len(files)} PPTX to PDF in {time.perf_counter() - started:.0f} s")
    return {path: converted[digest] for path, digest in owner.items()}


def pdf_pages(pdf: Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    return int(re.search(r"^Pages:\s+(\d+)", info.stdout, re.M).group(1))


@pytest.mark.parametrize(("edition", "stem"), CASES)
def test_libreoffice_converts_every_pptx_to_a_page_per_slide(libreoffice_pdfs, edition, stem):
    pptx = pptx_of(edition, stem)
    pdf = need(libreoffice_pdfs[pptx], "LibreOffice's conversion")
    slides = sections(need(EDITIONS[edition] / f"{stem}.html"))
    assert pdf_pages(pdf) == len(Presentation(pptx).slides) == len(slides)
    text = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    pages = text.split("\f")
    for number, section in enumerate(slides, 1):
        heading = section.select_one(".slide-title") or section.find(["h1", "h2"])
        wanted = words(prose(heading))[:2]
        flat = " ".join(pages[number - 1].split())
        assert all(w in flat for w in wanted), f"{stem}: PDF page {number} lacks {wanted}"
