"""No page and no PDF shows Markdown or TeX that was never rendered (issue 33).

A Markdown output of a cell is rendered by myst-nb as CommonMark unless the cell asks for MyST
(``"mystnb": {"markdown_format": "myst"}``): a pipe table then reaches the reader as lines of
``| key | … |`` and every ``$…$`` as a dollar sign and TeX. The layout probe skips cell outputs
(``tools/page_layout.py``), so this test reads the built HTML itself, outputs included:

* every page of the site, the Chinese and the student editions (``_build/html`` with the
  ``zh/``, ``student/`` and ``student/zh/`` folders ``make book`` copies in): outside code, math
  and scripts, no text line is a pipe-table row and no ``$`` is left;
* every PDF edition's LaTeX source (``_build/pdf/<edition>``): outside verbatim blocks, no line
  starts with a ``|`` of a table row and no escaped dollar ``\\$`` is printed; each finding is
  placed on its PDF page by the text layer.

Both fail, never skip, when the build is missing.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from ropebook import pdf_checks
from ropebook.kit import LATEX_TARGET

ROOT = Path(__file__).resolve().parents[1]


SITE = Path(os.environ.get("ROPELAB_SITE", ROOT / "_build" / "html")).resolve()
KIT = Path(os.environ.get("ROPELAB_KIT", ROOT / "_build" / "kit")).resolve()
WORK = Path(os.environ.get("ROPELAB_PDF_WORK", ROOT / "_build" / "pdf")).resolve()

#: The site's editions, by folder (the student and Chinese editions are copied into the site).
EDITION_FOLDERS = {"en": "", "zh": "zh/", "student": "student/", "student-zh": "student/zh/"}
#: What a reader never reads as prose: code, typeset math, scripts, the kit's decks.
NOT_PROSE = "script, style, pre, code, kbd, mjx-container, mjx-assistive-mml, svg, textarea, .math"
#: Elements that end a line of text.
BLOCKS = "p, div, li, dt, dd, tr, h1, h2, h3, h4, h5, h6, section, blockquote"
LEFT_OUT = ("_static/", "_sources/", "_images/", "slides/", "genindex", "search.html")
#: A line of a pipe table: starts and ends with "|" and has a cell between (smart quotes turn the
#: delimiter row's "---" into dashes, so any content counts).
PIPE_ROW = re.compile(r"^\s*\|[^\n|]*\|.*\|\s*$", re.M)
DOLLAR = re.compile(r"\$")
#: The PDF editions and the file of each.
PDF_EDITIONS = {"instructor": "", "student": "-student", "zh": "-zh"}
#: Code blocks (not ``sphinxVerbatimOutput``, which also wraps rendered Markdown outputs) and
#: display mathematics, where "|" and "$" belong.
SKIPPED_BEGIN = re.compile(r"\\begin\{sphinxVerbatim\}|" + pdf_checks.DISPLAY_BEGIN.pattern)
SKIPPED_END = re.compile(r"\\end\{sphinxVerbatim\}|" + pdf_checks.DISPLAY_END.pattern)


def raw_markup_in_html(html: str) -> list[str]:
    """The pipe-table rows and dollar signs a reader sees in a page's prose and outputs."""
    soup = BeautifulSoup(html, "html.parser")
    body = soup.select_one("article") or soup.body
    if body is None:
        return []
    for element in body.select(NOT_PROSE):
        element.decompose()
    for block in body.select(BLOCKS):
        block.append("\n")
    text = body.get_text("")
    found = [f"pipe-table row: {m.group(0).strip()[:90]}" for m in PIPE_ROW.finditer(text)]
    for match in DOLLAR.finditer(text):
        around = text[max(0, match.start() - 40) : match.end() + 40]
        found.append("dollar sign: " + " ".join(around.split()))
    return found


def raw_markup_in_latex(tex: str) -> list[tuple[int, str]]:
    """(line, text) of every table row or escaped dollar outside code blocks and display math."""
    found, skipped = [], False
    for number, line in enumerate(tex.splitlines(), start=1):
        if SKIPPED_BEGIN.search(line):
            skipped = True
        if not skipped and (line.lstrip().startswith("|") or "\\$" in line):
            found.append((number, line.strip()[:120]))
        if SKIPPED_END.search(line):
            skipped = False
    return found


def site_pages(folder: str) -> list[Path]:
    root = SITE / folder
    if not (root / "index.html").exists():
        pytest.fail(f"{root / 'index.html'} is missing: run `make book`")
    others = [f for f in EDITION_FOLDERS.values() if f and f != folder and f.startswith(folder)]
    pages = []
    for page in sorted(root.rglob("*.html")):
        relative = page.relative_to(root).as_posix()
        if relative.startswith(LEFT_OUT) or "/vendor/" in relative:
            continue
        if any(page.is_relative_to(SITE / other) for other in others):
            continue
        pages.append(page)
    return pages


@pytest.mark.parametrize("edition", sorted(EDITION_FOLDERS))
def test_no_page_shows_raw_markdown_or_tex(edition):
    pages = site_pages(EDITION_FOLDERS[edition])
    assert len(pages) > 20, f"only {len(pages)} pages in {edition}"
    problems = [
        f"{page.relative_to(SITE)}: {finding}"
        for page in pages
        for finding in raw_markup_in_html(page.read_text(encoding="utf-8"))
    ]
    assert problems == [], f"{len(problems)} raw markup:\n" + "\n".join(problems)


def pdf_page_of(pages: list[str], snippet: str) -> str:
    """The first PDF page whose text layer holds ``snippet``'s words, or '?'."""
    words = pdf_checks.letters(re.sub(r"\\[a-zA-Z]+|[{}]", " ", snippet))[:30]
    for number, page in enumerate(pages, start=1):
        if words and words in pdf_checks.letters(page):
            return str(number)
    return "?"


@pytest.mark.parametrize("edition", sorted(PDF_EDITIONS))
def test_no_pdf_page_shows_raw_markdown_or_tex(edition):
    folder = WORK / edition / "_build" / "latex"
    tex, pdf = (
        folder / f"{LATEX_TARGET}.tex",
        KIT / "kit" / f"{LATEX_TARGET}{PDF_EDITIONS[edition]}.pdf",
    )
    for path in (tex, pdf):
        if not path.exists():
            pytest.fail(f"{path} is missing: run `make pdf` (make test builds it)")
    found = raw_markup_in_latex(tex.read_text(encoding="utf-8"))
    if found:
        pages = pdf_checks.page_texts(pdf)
        lines = [
            f"PDF page {pdf_page_of(pages, text)} (.tex line {n}): {text}" for n, text in found
        ]
        pytest.fail(f"{len(found)} raw markup in the {edition} PDF:\n" + "\n".join(lines))


# --- the checks themselves, on planted input ------------------------------------------------


def test_the_html_check_finds_a_commonmark_table_and_dollars_but_not_code_or_math():
    planted = (
        "<article><p>| key | where |\n|—|—|\n| a | $x^2$ costs $5 |</p>"
        "<pre>echo $HOME | cat | sort |</pre><span class='math'>$y$</span>"
        "<mjx-container>$z$</mjx-container><p>a | b is a bitwise or</p></article>"
    )
    found = raw_markup_in_html(planted)
    assert sum(f.startswith("pipe-table row") for f in found) == 3
    assert sum(f.startswith("dollar sign") for f in found) == 3
    rendered = "<article><table><tr><td>key</td></tr></table><pre>$ ls | wc |</pre></article>"
    assert raw_markup_in_html(rendered) == []


def test_the_latex_check_skips_verbatim_blocks():
    tex = "\n".join(
        [
            "\\begin{sphinxVerbatim}[commandchars=\\\\\\{\\}]",
            "| a | b |",
            "price \\$5",
            "\\end{sphinxVerbatim}",
            "\\begin{equation*}\\begin{split}",
            "|z| &= r",
            "\\end{split}\\end{equation*}",
            "\\begin{sphinxVerbatimOutput}",
            "A sentence with \\$m\\$ in it.",
            "| \\sphinxcode{key} | where |",
            "\\end{sphinxVerbatimOutput}",
        ]
    )
    assert [n for n, _ in raw_markup_in_latex(tex)] == [9, 10]
