"""The book as a PDF (issue 18): both editions, read back from their text layer and their log.

``make pdf`` (``tools/build_pdf.py``; ``make test`` runs it through ``make book``) writes the
PDFs into the kit and the LaTeX sources and XeLaTeX's log into ``_build/pdf/<edition>/``. The
tests below fail, never skip, when they are missing. For each edition:

* it built and has the pages of a book;
* every page of the table of contents is in it, by its title (the text layer, so a reader can
  search it), and the glossary's Chinese terms are typeset in a CJK font;
* every figure carries the number the site gives it ("Figure 5.2: <its caption>"), every
  exercise too ("Exercise 3A.1"); the instructor edition has every solution, the student
  edition none;
* no display equation (each logs its width) and no line holding mathematics (XeLaTeX's
  overfull boxes) is wider than the text block by more than 3 pt, and nothing at all is
  printed within 1 cm of the paper's edges (every page rendered small): an equation is never
  cut off;
* no explorable or widget left its text representation behind, and the bibliography lists
  every work a chapter cites.

``ROPELAB_KIT`` and ``ROPELAB_PDF_WORK`` point the tests at another build.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

import pytest

from ropebook import pdf_checks
from ropebook.book_toc import toc_docnames, toc_notebooks
from ropebook.export_figures import book_figures, chapter_of
from ropebook.kit import EDITIONS, LATEX_TARGET, pdf_name

ROOT = Path(__file__).resolve().parents[1]


KIT = Path(os.environ.get("ROPELAB_KIT", ROOT / "_build" / "kit")).resolve()
WORK = Path(os.environ.get("ROPELAB_PDF_WORK", ROOT / "_build" / "pdf")).resolve()
#: "a few pt": an overfull box this small is invisible.
TOLERANCE_PT = 3.0
EXERCISE = re.compile(r"^[`:]{3,}\{exercise\}", re.M)
SOLUTION = re.compile(r"^[`:]{3,}\{solution(?:-start)?\}\s*(\S+)", re.M)


def pdf_of(edition: str) -> Path:
    path = KIT / pdf_name(edition)
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make pdf` (make test builds it)")
    return path


@cache
def text_of(edition: str) -> str:
    return "\f".join(pdf_checks.page_texts(pdf_of(edition)))


@cache
def flat_text(edition: str) -> str:
    return pdf_checks.normalized(text_of(edition))


def toc_pages() -> list[Path]:
    pages = []
    for entry in toc_docnames():
        for suffix in (".ipynb", ".md"):
            if (ROOT / f"{entry}{suffix}").exists():
                pages.append(ROOT / f"{entry}{suffix}")
                break
    return pages


def page_title(path: Path) -> str:
    import nbformat

    if path.suffix == ".ipynb":
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown":
                for line in cell.source.splitlines():
                    if line.startswith("# "):
                        return line[2:].strip()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    raise AssertionError(f"{path} has no '# ' title")


def plain(markdown: str) -> str:
    """A title or caption as printed: without MyST's $…$, backticks and emphasis marks."""
    text = re.sub(r"\{[\w:]+\}`([^`]*)`", r"\1", markdown)
    text = re.sub(r"[$`*_\\]", "", text)
    return text


def prose_run(caption: str) -> str:
    """The longest stretch of a caption without math or code (typeset differently in the PDF)."""
    runs = re.split(r"\$[^$]*\$|`[^`]*`", caption)
    return max(runs, key=lambda run: len(pdf_checks.letters(run)))


def exercises(path: Path) -> tuple[str, int, set[str]]:
    """(chapter, number of exercises, labels of the exercises that have a solution)."""
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    chapter, _ = chapter_of(notebook)
    source = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    return chapter, len(EXERCISE.findall(source)), set(SOLUTION.findall(source))


@pytest.mark.parametrize("edition", EDITIONS)
def test_pdf_is_a_whole_book(edition):
    pages = pdf_checks.page_count(pdf_of(edition))
    assert pages >= 100, f"{edition}: {pages} pages"


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("page", toc_pages(), ids=lambda p: p.stem)
def test_every_page_of_the_toc_is_in_the_text_layer(edition, page):
    title = plain(page_title(page))
    assert pdf_checks.letters(title) in pdf_checks.letters(text_of(edition)), (
        f"{edition}: the title {title!r} of {page.name} is not in the PDF's text"
    )


@pytest.mark.parametrize("edition", EDITIONS)
def test_figures_have_the_numbers_and_captions_of_the_site(edition):
    text = flat_text(edition)
    words = pdf_checks.letters(text_of(edition))
    found = set(re.findall(r"figure(\d+[a-z]?\.\d+):", text))
    expected: set[str] = set()
    missing = []
    for path in toc_notebooks():
        for figure in book_figures(path):
            if figure.number is None:
                continue
            expected.add(figure.number.lower())
            number = pdf_checks.letters(f"Figure {figure.number}")
            head = pdf_checks.letters(plain(prose_run(figure.caption)))[:40]
            if number + head not in words and (head not in words or number not in words):
                missing.append(f"Figure {figure.number} ({figure.name}): {head!r}")
    assert found == expected, (
        f"{edition}: figure numbers only in the PDF {sorted(found - expected)}, "
        f"only in the book {sorted(expected - found)}"
    )
    assert missing == [], f"{edition}: captions not found:\n" + "\n".join(missing)


@pytest.mark.parametrize("edition", EDITIONS)
def test_exercises_are_numbered_as_on_the_site_and_solutions_follow_the_edition(edition):
    text = text_of(edition)
    problems = []
    for path in toc_notebooks():
        chapter, count, solved = exercises(path)
        numbers = {int(n) for n in re.findall(rf"Exercise {re.escape(chapter)}\.(\d+)\b", text)}
        if numbers != set(range(1, count + 1)):
            problems.append(f"chapter {chapter}: exercises {sorted(numbers)}, expected 1..{count}")
        solutions = re.findall(rf"Solution to Exercise {re.escape(chapter)}\.(\d+)", text)
        expected = len(solved) if edition == "instructor" else 0
        if len(set(solutions)) != expected:
            problems.append(
                f"chapter {chapter}: {len(set(solutions))} solutions, {expected} expected"
            )
    assert problems == [], f"{edition}:\n" + "\n".join(problems)


@pytest.mark.parametrize("edition", EDITIONS)
def test_no_equation_is_wider_than_the_text(edition):
    folder = WORK / edition / "_build" / "latex"
    log, tex = folder / f"{LATEX_TARGET}.log", folder / f"{LATEX_TARGET}.tex"
    if not log.exists():
        pytest.fail(f"{log} is missing: run `make pdf`")
    boxes = pdf_checks.overfull_boxes(log, tex)
    wide_math = [b.describe() for b in boxes if b.in_math and b.points > TOLERANCE_PT]
    displays = pdf_checks.math_widths(log)
    assert len(displays) >= 100, f"{edition}: {len(displays)} display equations measured"
    wide_math += [
        f"display equation at .tex line {d.line}: {d.shown:.1f} pt shown in {d.available:.1f} pt"
        for d in displays
        if d.shown > d.available + TOLERANCE_PT
    ]
    assert wide_math == [], f"{edition}: mathematics wider than the text block:\n" + "\n".join(
        wide_math
    )


@pytest.mark.parametrize("edition", EDITIONS)
def test_nothing_is_printed_near_the_paper_edges(edition):
    pages = pdf_checks.pages_with_ink_outside(pdf_of(edition))
    assert pages == [], f"{edition}: ink within 1 cm of the paper's edge on pages {pages}"


@pytest.mark.parametrize("edition", EDITIONS)
def test_no_explorable_or_widget_representation_is_printed(edition):
    text = text_of(edition)
    leftovers = [w for w in ("Explorable(", "HBox(", "VBox(", "interactive(") if w in text]
    assert leftovers == [], f"{edition}: {leftovers} in the PDF"


@pytest.mark.parametrize("edition", EDITIONS)
def test_bibliography_lists_every_cited_work(edition):
    from pybtex.database import parse_file

    entries = parse_file(str(ROOT / "book" / "references.bib")).entries
    cited = set()
    for path in toc_notebooks():
        source = path.read_text(encoding="utf-8")
        for group in re.findall(r"\{cite(?::\w+)?\}`([^`]+)`", source):
            cited.update(k.strip() for k in group.split(","))
    text = flat_text(edition)
    words = pdf_checks.letters(text_of(edition))
    assert "bibliography" in text
    missing = []
    for key in sorted(cited):
        title = re.sub(r"[{}\\]", "", entries[key].fields.get("title", ""))
        if pdf_checks.letters(title)[:35] not in words:
            missing.append(f"{key}: {title}")
    assert cited and missing == [], f"{edition}: cited works not in the PDF:\n" + "\n".join(missing)


@pytest.mark.parametrize("edition", EDITIONS)
def test_chinese_terms_are_typeset_in_a_cjk_font(edition):
    from ropebook.glossary import glossary_rows

    text = flat_text(edition)  # a term may break across the lines of a table cell
    absent = [
        row.chinese for row in glossary_rows() if pdf_checks.normalized(row.chinese) not in text
    ]
    assert absent == [], f"{edition}: Chinese terms missing from the text layer: {absent}"
    # Noto's collections share one CFF font ("NotoSerifCJKjp") between their regional faces;
    # the simplified-Chinese face (FontIndex=2 in src/ropebook/ext/lecturer_kit.py) is a cmap of it.
    cjk = [name for name in pdf_checks.fonts(pdf_of(edition)) if "NotoSerifCJK" in name]
    assert cjk, f"{edition}: no Noto CJK font embedded: {pdf_checks.fonts(pdf_of(edition))}"
