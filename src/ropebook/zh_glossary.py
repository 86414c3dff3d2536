"""The Chinese glossary page (issue 34): the term base as a Chinese lecturer reads it.

``book/glossary.md`` (English) is the term base: each row's English, its canonical Chinese
(规范译名), its chapter and meaning. ``book/glossary_terms.json`` adds what a Chinese reader
needs: the sources' own spelling where it differs (原文写法: 哈达码积 for 哈达玛积, 临界base for
临界底数), the renderings this book retired, the rows never glossed, and a pinyin key for every
canonical term (one syllable per character, a Latin word as itself; no pinyin library is
needed, so the order is the same on every machine).

This tool writes, into the translation store ``book/zh/glossary.md``:

* unit ``b003``, the table, with the columns 规范译名 | 原文写法 | 英文 | 章节 | 含义, sorted by
  the pinyin key of the canonical term (terms that start with a Latin letter, KV 缓存, YaRN,
  after the others, by their letters); each row keeps its Chinese meaning from the store;
* unit ``zh-index``, a Chinese-only 中文→英文 index: the canonical terms by pinyin initial,
  each with its English.

Run it after editing the glossary (a row, a Chinese term, a setting)::

    .venv/bin/python tools/zh_glossary.py          # rewrite the two units
    .venv/bin/python tools/zh_glossary.py --check  # exit 1 when the store differs

``tests/test_zh_glossary.py`` fails when the store is not what this tool writes.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ropebook import zh_store
from ropebook.glossary import GLOSSARY, Row, glossary_rows, glossary_settings

STORE = zh_store.STORE / "glossary.md"
TABLE_KEY = "b003"
INDEX_KEY = "zh-index"
HEADER = ("规范译名", "原文写法", "英文", "章节", "含义")
WIDTHS = "16 14 22 8 40"
CJK = re.compile(r"[\u3400-\u9fff]")


def canonical(row: Row) -> str:
    """The row's first canonical Chinese (the one its pinyin key is for)."""
    return row.chinese_terms[0]


def pinyin_key(term: str, keys: dict[str, str]) -> tuple[int, str]:
    """How the page orders a term: (0, its pinyin) for a term that starts with a Chinese
    character, (1, its letters) for one that starts with a Latin letter."""
    if CJK.match(term):
        if term not in keys:
            raise ValueError(f"glossary_terms.json: no pinyin for {term!r}")
        return (0, keys[term])
    return (1, term.lower())


def syllables_fit(term: str, key: str) -> bool:
    """A key has one syllable per Chinese character and each Latin word as itself."""
    expected = len(CJK.findall(term)) + len(re.findall(r"[A-Za-z]+", CJK.sub(" ", term)))
    return bool(re.fullmatch(r"[a-z]+( [a-z]+)*", key)) and len(key.split()) == expected


def _cells(block: str) -> list[str]:
    return [" ".join(c.split()) for c in re.split(r"^  - ", block, flags=re.M)]


def chinese_meanings(table: str) -> dict[str, str]:
    """``{English term: Chinese meaning}`` from the store's table (either column order)."""
    body = table.split("```{list-table}", 1)[1].rsplit("```", 1)[0]
    rows = re.split(r"^\* - ", body, flags=re.M)[1:]
    header, *rows = (_cells(r) for r in rows)
    english_at = header.index("英文") if "英文" in header else header.index("英文术语")
    return {cells[english_at]: cells[-1] for cells in rows}


def _chapter(row: Row) -> str:
    rel = Path("..") / row.page.relative_to(zh_store.ROOT) if row.page.suffix == ".ipynb" else None
    target = rel.as_posix() if rel else row.page.relative_to(GLOSSARY.parent).as_posix()
    label = "引言" if row.chapter == "intro" else row.chapter
    return f"[{label}]({target})"


def ordered_rows(rows: list[Row], keys: dict[str, str]) -> list[Row]:
    return sorted(rows, key=lambda r: (*pinyin_key(canonical(r), keys), canonical(r)))


def table(rows: list[Row], meanings: dict[str, str], settings: dict) -> str:
    spelling = settings.get("source_spelling", {})
    lines = ["```{list-table}", ":header-rows: 1", f":widths: {WIDTHS}", ":class: glossary", ""]
    lines.append("* - " + "\n  - ".join(HEADER))
    for row in ordered_rows(rows, settings.get("pinyin", {})):
        chinese = row.chinese + ("" if row.from_sources else " †")
        source = " / ".join(spelling[t] for t in row.chinese_terms if t in spelling) or "—"
        meaning = meanings.get(row.term)
        if meaning is None:
            raise ValueError(f"zh glossary: no Chinese meaning for {row.term!r}")
        lines.append("* - " + "\n  - ".join((chinese, source, row.term, _chapter(row), meaning)))
    lines.append("```")
    return "\n".join(lines)


def index(rows: list[Row], settings: dict) -> str:
    """The 中文→英文 index: canonical terms by pinyin initial (Latin-letter terms last)."""
    keys = settings.get("pinyin", {})
    groups: dict[str, list[str]] = {}
    for row in ordered_rows(rows, keys):
        rank, key = pinyin_key(canonical(row), keys)
        letter = key[0].upper() if rank == 0 else "西文"
        english = re.sub(r"\s*\([^)]*\)", "", row.term)
        groups.setdefault(letter, []).append(f"{' / '.join(row.chinese_terms)} → {english}")
    lines = [
        "## 中文→英文索引",
        "",
        "按规范译名的拼音排序，以西文字母开头的术语排在最后；上表给出每个术语的原文写法、章节和含义。",
        "",
    ]
    lines += [f"- **{letter}**：{'；'.join(items)}" for letter, items in groups.items()]
    return "\n".join(lines)


def expected_units() -> dict[str, str]:
    """The two units this tool writes, from the glossary, its settings and the store."""
    settings = glossary_settings()
    rows = glossary_rows()
    have = zh_store.read_store(STORE)
    meanings = chinese_meanings(have[TABLE_KEY].text)
    return {TABLE_KEY: table(rows, meanings, settings), INDEX_KEY: index(rows, settings)}


def write() -> bool:
    """Rewrite the two units (the table stamped with its current English); True if changed."""
    have = zh_store.read_store(STORE)
    units = {u.key: u for u in zh_store.english_units(GLOSSARY)}
    new = expected_units()
    out: list[zh_store.Translation] = []
    for key, tr in have.items():
        if key == INDEX_KEY:
            continue
        if key == TABLE_KEY:
            out.append(zh_store.Translation(key, units[key].sha, new[key]))
            out.append(zh_store.Translation(INDEX_KEY, "0" * 12, new[INDEX_KEY]))
        else:
            out.append(tr)
    before = STORE.read_text(encoding="utf-8")
    zh_store.write_store(STORE, GLOSSARY, out)
    return STORE.read_text(encoding="utf-8") != before


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    if args.check:
        have = zh_store.read_store(STORE)
        stale = [k for k, text in expected_units().items() if k not in have or have[k].text != text]
        print(f"{STORE.relative_to(zh_store.ROOT)}: " + (f"stale {stale}" if stale else "current"))
        return 1 if stale else 0
    changed = write()
    print(f"{STORE.relative_to(zh_store.ROOT)}: {'written' if changed else 'unchanged'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
