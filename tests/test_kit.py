"""The lecturer's kit in the built site (issue 18), read from the files (the browser tests open
the slides and the student edition in Chromium: tests/browser/test_slides.py, test_student.py).

``make book`` builds the kit into ``_build/kit`` (``make kit``) and the site into
``_build/html``, which the kit is copied into. The tests fail, never skip, when a part is missing.

* **Figures**: the archive holds every figure of every chapter as SVG, PDF and PNG, named
  ``fig-<chapter>-<number>-<slug>``, with the caption the chapter gives it; each SVG parses,
  has the shape and the number of axes of the chapter's committed PNG, each PDF is a PDF, and
  the PNG of the same drawing looks like the book's (thumbnails within 2.5 %).
* **Slides**: one deck per chapter, with a slide per cell the chapter tags ``slide``, in order,
  after the title slide; every image a deck shows is there, and nothing is fetched from outside
  (reveal.js, MathJax and the explorables' script are copied next to the decks); each deck is
  also a PDF with a 16:9 page per slide (issue 28); the index links each deck's HTML, PDF and
  PPTX (issue 33; the PPTX themselves: tests/test_pptx.py).
* **Links**: every page of the book, in both editions, links to its edition's PDF, and every
  chapter page to its slides; the introduction links to every part of the kit.
* **Student edition**: no solution anywhere; the same exercises, with the same numbers, as the
  instructor edition.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import zipfile
from pathlib import Path
from urllib.parse import unquote

import nbformat
import pytest
from bs4 import BeautifulSoup

from ropebook.book_toc import toc_docnames, toc_notebooks
from ropebook.export_figures import (
    ARCHIVE_FOLDER,
    MAX_PIXEL_DIFFERENCE,
    book_figures,
    pixel_difference,
    png_size,
)
from ropebook.kit import (
    FIGURES_ARCHIVE,
    REMEMBER_CLASS,
    SLIDE_TAG,
    SLIDES_DIR,
    STUDENT_DIR,
    pdf_name,
)
from tests import notebook_solutions

ROOT = Path(__file__).resolve().parents[1]


KIT = Path(os.environ.get("ROPELAB_KIT", ROOT / "_build" / "kit")).resolve()
SITE = Path(os.environ.get("ROPELAB_SITE", ROOT / "_build" / "html")).resolve()
CHAPTERS = toc_notebooks()


def need(path: Path, how: str = "make book") -> Path:
    if not path.exists():
        pytest.fail(f"{path} is missing: run `{how}`")
    return path


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def link_target(page: Path, href: str) -> Path:
    return (page.parent / unquote(href.split("#")[0])).resolve()


# --- figures ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def archive() -> zipfile.ZipFile:
    return zipfile.ZipFile(need(KIT / FIGURES_ARCHIVE, "make figures"))


def test_figure_archive_lists_every_figure_of_the_book(archive):
    index = json.loads(archive.read(f"{ARCHIVE_FOLDER}/index.json"))
    expected = [f for path in CHAPTERS for f in book_figures(path)]
    assert [e["stem"] for e in index] == [f.stem for f in expected]
    for entry, figure in zip(index, expected, strict=True):
        assert (entry["number"], entry["name"], entry["caption"]) == (
            figure.number,
            figure.name,
            figure.caption,
        )
        if figure.number:
            chapter, n = figure.number.split(".")
            assert entry["stem"].startswith(f"fig-{chapter.lower()}-{n}-")
    names = set(archive.namelist())
    for name in ("index.html", "README.txt"):
        assert f"{ARCHIVE_FOLDER}/{name}" in names


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_exported_figures_are_the_chapters_figures(archive, path):
    from xml.etree import ElementTree

    committed = nbformat.read(path, as_version=4)
    for figure in book_figures(path):
        svg = archive.read(f"{ARCHIVE_FOLDER}/svg/{figure.stem}.svg").decode("utf-8")
        root = ElementTree.fromstring(svg)
        assert root.tag.endswith("svg"), figure.stem
        width = float(root.get("width").removesuffix("pt"))
        height = float(root.get("height").removesuffix("pt"))
        png = committed.cells[figure.cell].outputs[figure.output]["data"]["image/png"]
        png_w, png_h = png_size(png)
        assert abs(width / height - png_w / png_h) < 0.02 * png_w / png_h, (
            f"{figure.stem}: SVG {width}x{height} pt, PNG {png_w}x{png_h} px"
        )
        pdf = archive.read(f"{ARCHIVE_FOLDER}/pdf/{figure.stem}.pdf")
        assert pdf.startswith(b"%PDF-") and b"%%EOF" in pdf[-1024:], figure.stem
        # The same drawing as the SVG and PDF, as PNG, looks like the book's figure.
        fresh = archive.read(f"{ARCHIVE_FOLDER}/png/{figure.stem}.png")
        difference = pixel_difference(fresh, base64.b64decode(png))
        assert difference <= MAX_PIXEL_DIFFERENCE, f"{figure.stem}: differs by {difference:.4f}"
        # As many axes as the book's figure ("<Figure size 700x370 with 3 Axes>").
        text = "".join(committed.cells[figure.cell].outputs[figure.output]["data"]["text/plain"])
        axes = int(re.search(r"with (\d+) Axes", text).group(1))
        assert len(set(re.findall(r'id="axes_\d+"', svg))) == axes, figure.stem


def test_the_site_serves_the_archive():
    need(SITE / FIGURES_ARCHIVE)
    assert (SITE / FIGURES_ARCHIVE).read_bytes() == (KIT / FIGURES_ARCHIVE).read_bytes()


# --- slides ----------------------------------------------------------------------------------


def expected_slide_cells(path: Path) -> list[int] | None:
    """The cells a chapter tags for slides, in order, a cell once per slide it makes (a list in
    its ``slide`` metadata makes several; issue 33), None when it tags none yet."""
    notebook = nbformat.read(path, as_version=4)
    tagged = [
        i
        for i, c in enumerate(notebook.cells)
        if SLIDE_TAG in c.metadata.get("tags", [])
        for _ in (c.metadata["slide"] if isinstance(c.metadata.get("slide"), list) else [0])
    ]
    if not tagged:
        return None
    remember = [
        i
        for i, c in enumerate(notebook.cells)
        if c.cell_type == "markdown"
        and re.search(rf"^:class:.*\b{REMEMBER_CLASS}\b", c.source, re.M)
        and i not in tagged
    ]
    return tagged + remember[:1]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_each_chapter_has_a_deck_of_its_slide_cells(path):
    deck = need(SITE / SLIDES_DIR / f"{path.stem}.html")
    page = soup(deck)
    sections = page.select("div.slides > section")
    assert "title-slide" in sections[0].get("class", [])
    cells = [int(s["data-cell"]) for s in sections[1:]]
    expected = expected_slide_cells(path)
    if expected is not None:
        assert cells == expected
    else:
        assert len(cells) >= 2, f"{path.stem}: the default deck has {len(cells)} slides"
    for image in page.select("img"):
        assert link_target(deck, image["src"]).is_file(), f"{path.stem}: {image['src']}"
    for tag in page.select("[src], link[href]"):
        url = tag.get("src") or tag.get("href")
        assert not re.match(r"^(https?:)?//", url), f"{path.stem} fetches {url}"
        assert link_target(deck, url).is_file(), f"{path.stem}: {url} is missing"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_each_deck_is_also_a_pdf_of_its_slides(path):
    """Issue 28: every deck printed through reveal.js's print layout, one 16:9 page a slide,
    with each slide's title on its page, collected in the kit next to the decks."""
    from ropebook.pdf_checks import page_count, page_texts

    deck = soup(need(SITE / SLIDES_DIR / f"{path.stem}.html"))
    sections = deck.select("div.slides > section")
    pdf = need(SITE / SLIDES_DIR / "pdf" / f"{path.stem}.pdf")
    assert page_count(pdf) == len(sections), f"{path.stem}: {page_count(pdf)} pages"
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    width, height = map(float, re.search(r"Page size:\s+([\d.]+) x ([\d.]+)", info.stdout).groups())
    assert abs(width / height - 16 / 9) < 0.01, f"{path.stem}: pages of {width} x {height} pt"
    for number, (section, text) in enumerate(zip(sections, page_texts(pdf), strict=True), 1):
        title = " ".join(section.select_one(".slide-title").get_text(" ").split())[:25]
        words = [w for w in re.findall(r"[A-Za-z]{4,}", title)][:2]
        flat = " ".join(text.split())
        assert all(w in flat for w in words), f"{path.stem}: page {number} lacks {title!r}"


def test_slides_index_lists_every_deck():
    page = soup(need(SITE / SLIDES_DIR / "index.html"))
    # (the Chinese decks' list, ul.chapters-zh: tests/test_kit_zh.py)
    linked = [a["href"] for a in page.select("ul.lectures li a, ul.chapters li a")]
    # the two lectures' decks first (issue 33), then one per chapter
    stems = ["lecture-1", "lecture-2", *(p.stem for p in CHAPTERS)]
    assert linked == [n for s in stems for n in (f"{s}.html", f"pdf/{s}.pdf", f"pptx/{s}.pptx")]


# --- links -----------------------------------------------------------------------------------


def kit_link(page: Path, label: str) -> Path | None:
    anchor = soup(page).select_one(f"a.btn-kit-{label}-button")
    return link_target(page, anchor["href"]) if anchor else None


@pytest.mark.parametrize("edition", ["instructor", "student"])
def test_every_page_links_to_its_editions_pdf(edition):
    site = SITE if edition == "instructor" else SITE / STUDENT_DIR
    pdf = need(site / pdf_name(edition), "make book")
    problems = []
    for docname in toc_docnames():
        page = need(site / f"{docname}.html")
        if kit_link(page, "pdf") != pdf:
            problems.append(f"{docname}: PDF link {kit_link(page, 'pdf')}")
        if docname.startswith("notebooks/"):
            deck = site / SLIDES_DIR / f"{Path(docname).name}.html"
            if kit_link(page, "slides") != deck or not deck.is_file():
                problems.append(f"{docname}: slides link {kit_link(page, 'slides')}")
    assert problems == [], "\n".join(problems)


def test_the_kit_menu_links_the_teaching_page():
    """The course paths (issue 31) are one click from every page of the instructor site, and
    not a part of the student edition's menu."""
    teaching = need(SITE / "book" / "teaching.html").resolve()
    for docname in toc_docnames():
        page = need(SITE / f"{docname}.html")
        assert kit_link(page, "teaching") == teaching, docname
    student = need(SITE / STUDENT_DIR / "book" / "intro.html")
    assert kit_link(student, "teaching") is None


def test_the_introduction_links_to_every_part_of_the_kit():
    page = need(SITE / "book" / "intro.html")
    targets = {link_target(page, a["href"]) for a in soup(page).select("article a[href]")}
    for part in (
        pdf_name("instructor"),
        f"{SLIDES_DIR}/index.html",
        FIGURES_ARCHIVE,
        f"{STUDENT_DIR}/index.html",
        "book/cheatsheet.html",
        "book/glossary.html",
    ):
        assert (SITE / part).resolve() in targets, f"the introduction does not link to {part}"
        assert (SITE / part).is_file(), part


# --- the student edition ---------------------------------------------------------------------


def exercise_numbers(page: Path) -> list[str]:
    titles = soup(page).select("div.exercise p.admonition-title, div.exercise .admonition-title")
    return [
        m.group(0) for t in titles if (m := re.search(r"Exercise \d+[A-Z]?\.\d+", t.get_text()))
    ]


@pytest.mark.parametrize("docname", toc_docnames(), ids=lambda d: Path(d).name)
def test_student_pages_have_the_exercises_without_solutions(docname):
    student = need(SITE / STUDENT_DIR / f"{docname}.html")
    instructor = need(SITE / f"{docname}.html")
    page = soup(student)
    assert page.select("div.solution") == [], f"{docname}: a solution in the student edition"
    assert "Solution to" not in page.get_text()
    assert exercise_numbers(student) == exercise_numbers(instructor)
    if docname.startswith("notebooks/"):
        assert exercise_numbers(instructor), f"{docname}: no exercises found"
        assert soup(instructor).select("div.solution"), f"{docname}: instructor has no solution"


def solution_code_lines(docname: str) -> list[str]:
    """The code of each cell inside a gated solution of the page's notebook, whitespace
    collapsed (a single line may also occur in the chapter; a whole cell may not)."""
    path = ROOT / f"{docname}.ipynb"
    if not path.exists():
        return []
    cells = json.loads(path.read_text())["cells"]
    return [
        collapse(notebook_solutions.cell_source(cell))
        for _, cell in notebook_solutions.solution_code_cells(cells)
    ]


def collapse(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(
    "docname", [d for d in toc_docnames() if solution_code_lines(d)], ids=lambda d: Path(d).name
)
def test_solution_code_runs_inside_the_instructor_solutions_and_is_absent_for_students(docname):
    """Issue 21: a solution's code cells (and their outputs) sit inside the collapsed solution
    of the instructor page, and the student page holds none of them."""
    lines = solution_code_lines(docname)
    instructor = soup(need(SITE / f"{docname}.html"))
    inside = collapse(" ".join(div.get_text() for div in instructor.select("div.solution")))
    for line in lines:
        assert line in inside, f"{docname}: solution code {line[:60]!r} is not inside a solution"
    cells = [div for div in instructor.select("div.solution div.cell")]
    assert cells and all(div.select(".cell_output") for div in cells), (
        f"{docname}: a solution's code cell shows no output"
    )
    assert all("dropdown" in div["class"] for div in instructor.select("div.solution")), (
        f"{docname}: a solution is not collapsed"
    )
    student = collapse(soup(need(SITE / STUDENT_DIR / f"{docname}.html")).get_text())
    leaked = [line[:60] for line in lines if line in student]
    assert leaked == [], f"{docname}: solution code in the student edition: {leaked}"
