"""The English–Chinese glossary (``book/glossary.md``, issue 18) against the book and its sources.

* every row names a page of the book that exists and is in the table of contents, and the
  term occurs in that page's prose (so "defined in chapter 6" points at a chapter that uses
  it); no term is listed twice;
* the chapter number printed is that page's own ("6" for notebooks/06_…);
* every Chinese term not marked † occurs in the source articles, and every † term does not
  (the mark says "not in the sources"), by ``book/glossary_sources.json``, the index of where
  each term occurs; the sources live beside the repository (``../shared/seeds``,
  ``ROPELAB_SEEDS``), and where they are, the index is checked against them;
* every chapter of the book defines at least one glossary term.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from ropebook.export_figures import toc_notebooks
from ropebook.glossary import SOURCE_INDEX, glossary_rows, source_index

ROOT = Path(__file__).resolve().parents[1]


SEEDS = Path(os.environ.get("ROPELAB_SEEDS", ROOT.parent / "shared" / "seeds"))
ROWS = glossary_rows()


def prose(page: Path) -> str:
    """A page's text as a reader reads it: markdown cells of a notebook, or the whole page,
    lower case, whitespace collapsed."""
    if page.suffix == ".ipynb":
        cells = json.loads(page.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    else:
        text = page.read_text(encoding="utf-8")
    return " ".join(text.replace("*", "").split()).lower()


def chapter_label(page: Path) -> str:
    if page.suffix != ".ipynb":
        return page.stem
    match = re.match(r"(\d+)([a-z]?)_", page.stem)
    return f"{int(match.group(1))}{match.group(2).upper()}"


def test_glossary_is_a_table_of_many_terms():
    assert len(ROWS) >= 50
    terms = [r.term.lower() for r in ROWS]
    assert len(terms) == len(set(terms)), "a term is listed twice"


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.term)
def test_term_is_used_where_the_glossary_says_it_is_defined(row):
    toc = {p.resolve() for p in toc_notebooks()} | {(ROOT / "book" / "intro.md").resolve()}
    assert row.page in toc, f"{row.term}: {row.page} is not a page of the book"
    assert row.chapter == chapter_label(row.page), (
        f"{row.term}: printed as chapter {row.chapter}, links to {row.page.name}"
    )
    text = prose(row.page)
    assert any(t.lower() in text for t in row.terms), (
        f"{row.term}: none of {row.terms} occurs in {row.page.name}"
    )


def test_every_chapter_defines_a_glossary_term():
    pages = {r.page for r in ROWS}
    missing = [p.name for p in toc_notebooks() if p.resolve() not in pages]
    assert missing == [], f"chapters without a glossary term: {missing}"


def test_chinese_terms_are_the_sources_own():
    """Against the committed index of where each term occurs in the sources (the articles
    are not part of the repository)."""
    index = json.loads(SOURCE_INDEX.read_text(encoding="utf-8"))
    wrong = []
    for row in ROWS:
        for term in row.source_terms:  # 原文写法: the sources' own spelling of each term
            if term not in index:
                wrong.append(
                    f"{row.term}: {term} is not in {SOURCE_INDEX.name}: rerun tools/glossary.py"
                )
                continue
            found = bool(index[term])
            if found != row.from_sources:
                mark = "is in the sources but marked †" if found else "is not in the sources"
                wrong.append(f"{row.term}: {term} {mark}")
    assert wrong == [], "\n".join(wrong)


def test_the_index_is_the_sources_own_where_they_are():
    """Where the source articles are (``../shared/seeds`` or ``ROPELAB_SEEDS``), the committed
    index is exactly what they contain; elsewhere (a fresh clone) there is nothing to read."""
    if not SEEDS.is_dir():
        assert SOURCE_INDEX.exists()
        return
    assert json.loads(SOURCE_INDEX.read_text(encoding="utf-8")) == source_index(SEEDS)
