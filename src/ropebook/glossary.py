"""The book's English–Chinese glossary (``book/glossary.md``, issue 18), read as data.

Each row of its list table: the English term (alternatives separated by " / "), the Chinese
term, canonical (规范译名; alternatives separated by " / "; a trailing "†" marks a usual
translation that the sources do not use; where the sources spell it otherwise, their spelling,
原文写法, is in ``book/glossary_terms.json``), the chapter that defines it (a link to the
chapter's notebook, or to the introduction) and a one-line meaning. ``tests/test_kit_glossary.py``
checks every row against the chapters and the sources, ``tests/test_pdf.py`` the PDF's CJK.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ropebook import ROOT

GLOSSARY = ROOT / "book" / "glossary.md"
LINK = re.compile(r"\[([^\]]+)\]\(([^)]+)\)")


@dataclass
class Row:
    term: str
    chinese: str  #: as printed, "†" removed
    from_sources: bool  #: False for a "†" term
    chapter: str  #: "4", "3A" or "intro"
    page: Path  #: the defining page's source file
    meaning: str

    @property
    def terms(self) -> list[str]:
        return [t.strip() for t in re.sub(r"\([^)]*\)", "", self.term).split(" / ") if t.strip()]

    @property
    def chinese_terms(self) -> list[str]:
        """The canonical Chinese (规范译名), alternatives in order."""
        return [t.strip() for t in self.chinese.split(" / ") if t.strip()]

    @property
    def source_terms(self) -> list[str]:
        """The Chinese as the sources write it (原文写法): a canonical term the sources spell
        otherwise (哈达玛积, the sources' 哈达码积) by that spelling, the others as they are."""
        spelling = glossary_settings().get("source_spelling", {})
        return [spelling.get(t, t) for t in self.chinese_terms]


#: The glossary's settings (``book/glossary_terms.json``): ``no_gloss`` (rows never glossed in
#: the Chinese edition), ``source_spelling`` (canonical Chinese -> the sources' spelling,
#: 哈达玛积 -> 哈达码积), ``retired`` (canonical Chinese -> earlier renderings of this book,
#: flagged wherever they remain) and ``pinyin`` (canonical Chinese -> its pinyin key, one
#: syllable per character and a Latin word as itself, which orders the Chinese page).
SETTINGS = ROOT / "book" / "glossary_terms.json"


def glossary_settings(path: Path = SETTINGS) -> dict:
    import json

    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def glossary_rows(path: Path = GLOSSARY) -> list[Row]:
    text = path.read_text(encoding="utf-8")
    table = text.split("```{list-table}", 1)[1].split("```", 1)[0]
    rows = []
    for block in re.split(r"^\* - ", table, flags=re.M)[2:]:  # [0] options, [1] header
        cells = [c.strip() for c in re.split(r"^  - ", block, flags=re.M)]
        term, chinese, chapter, meaning = (" ".join(c.split()) for c in cells[:4])
        link = LINK.fullmatch(chapter)
        if link is None:
            raise ValueError(f"glossary: the chapter of {term!r} is not a link: {chapter!r}")
        rows.append(
            Row(
                term=term,
                chinese=chinese.replace("†", "").strip(),
                from_sources="†" not in chinese,
                chapter=link.group(1),
                page=(path.parent / link.group(2)).resolve(),
                meaning=meaning,
            )
        )
    return rows


@dataclass
class BookTerm:
    """A row of the glossary's "Book terms" table: a word of the book's own prose and the
    one Chinese the edition gives it."""

    term: str
    chinese: str
    meaning: str

    @property
    def terms(self) -> list[str]:
        return [t.strip() for t in self.term.split(" / ") if t.strip()]

    @property
    def chinese_terms(self) -> list[str]:
        return [t.strip() for t in self.chinese.split(" / ") if t.strip()]


def book_term_rows(path: Path = GLOSSARY) -> list[BookTerm]:
    """The rows of the second table, under "## Book terms"."""
    text = path.read_text(encoding="utf-8")
    if "## Book terms" not in text:
        return []
    table = text.split("## Book terms", 1)[1].split("```{list-table}", 1)[1].split("```", 1)[0]
    rows = []
    for block in re.split(r"^\* - ", table, flags=re.M)[2:]:
        cells = [" ".join(c.split()) for c in re.split(r"^  - ", block, flags=re.M)]
        rows.append(BookTerm(*cells[:3]))
    return rows


#: Where each Chinese term of the glossary occurs in the source articles (``../shared/seeds``,
#: which live beside the repository, not in it): written by :func:`write_source_index` where
#: the sources are, read by the tests everywhere.
SOURCE_INDEX = ROOT / "book" / "glossary_sources.json"


def source_index(seeds: Path, rows: list[Row] | None = None) -> dict[str, list[str]]:
    """Chinese term -> the source articles (file stems' first three characters, ``"001"``)
    whose text contains it; ``[]`` for a term that none contains."""
    texts = {p.name[:3]: p.read_text(encoding="utf-8") for p in sorted(seeds.glob("*.txt"))}
    if not texts:
        raise ValueError(f"no source articles in {seeds}")
    rows = glossary_rows() if rows is None else rows
    terms = sorted({t for row in rows for t in row.source_terms})
    return {t: [name for name, text in texts.items() if t in text] for t in terms}


def write_source_index(seeds: Path, path: Path = SOURCE_INDEX) -> None:
    """Write :func:`source_index` as JSON (run after editing the glossary, where the sources
    are: ``python tools/glossary.py ../shared/seeds``)."""
    import json

    index = source_index(seeds)
    path.write_text(json.dumps(index, ensure_ascii=False, indent=1, sort_keys=True) + "\n")


def main(argv: list[str] | None = None) -> None:
    """``tools/glossary.py SEEDS``: rebuild ``book/glossary_sources.json`` from the seeds."""
    import sys

    write_source_index(Path((sys.argv[1:] if argv is None else argv)[0]))


if __name__ == "__main__":
    main()
