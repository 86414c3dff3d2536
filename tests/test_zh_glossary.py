"""The Chinese glossary page as a term base (``tools/zh_glossary.py``, issue 34).

* the store's table and 中文→英文 index are what the tool writes from the glossary, its
  settings (``book/glossary_terms.json``) and the store's meanings;
* the table is sorted by the pinyin key of the canonical term (a planted swap fails), every
  canonical term has a key with one syllable per character, and shows the sources' spelling
  where the settings give one;
* one Chinese term per concept: no canonical Chinese is shared by two rows, and 解耦 names
  only decoupled RoPE.
"""

from __future__ import annotations

import re
from pathlib import Path

from ropebook import zh_glossary, zh_store
from ropebook.glossary import glossary_rows, glossary_settings

ROOT = Path(__file__).resolve().parents[1]


SETTINGS = glossary_settings()
ROWS = glossary_rows()
STORE = zh_store.read_store(zh_glossary.STORE)


def test_the_store_is_what_the_tool_writes():
    expected = zh_glossary.expected_units()
    for key, text in expected.items():
        assert STORE[key].text == text, f"{key}: run tools/zh_glossary.py"


def _table_terms(text: str) -> list[str]:
    return re.findall(r"^\* - (.+)$", text, flags=re.M)[1:]


def _sorted(terms: list[str]) -> bool:
    keys = SETTINGS["pinyin"]
    ranks = [zh_glossary.pinyin_key(t.replace(" †", "").split(" / ")[0], keys) for t in terms]
    return ranks == sorted(ranks)


def test_the_table_is_sorted_by_pinyin():
    terms = _table_terms(STORE["b003"].text)
    assert len(terms) == len(ROWS)
    assert terms[0].startswith("阿贝尔求和")
    assert _sorted(terms)
    planted = [terms[1], terms[0], *terms[2:]]
    assert not _sorted(planted)


def test_every_canonical_term_has_a_pinyin_key_of_its_syllables():
    keys = SETTINGS["pinyin"]
    for row in ROWS:
        term = zh_glossary.canonical(row)
        if zh_glossary.CJK.match(term):
            assert term in keys, term
            assert zh_glossary.syllables_fit(term, keys[term]), (term, keys[term])
    assert zh_glossary.syllables_fit("哈达玛积", "ha da ma ji")
    assert not zh_glossary.syllables_fit("哈达玛积", "ha da ma")
    assert not zh_glossary.syllables_fit("解耦 RoPE", "jie ou")


def test_the_sources_spelling_stands_beside_the_canonical_term():
    table = STORE["b003"].text
    for canonical, source in SETTINGS["source_spelling"].items():
        assert canonical != source
        assert re.search(
            rf"^\* - {re.escape(canonical)}[^\n]*\n  - {re.escape(source)}$", table, re.M
        ), canonical
    assert {"哈达玛积", "临界底数", "辐角", "支持长度"} <= set(SETTINGS["source_spelling"])


def test_one_chinese_term_per_concept():
    seen: dict[str, str] = {}
    for row in ROWS:
        for term in row.chinese_terms:
            assert term not in seen, f"{term}: {seen.get(term)} and {row.term}"
            seen[term] = row.term
    jieou = [row.term for row in ROWS if any("解耦" in t for t in row.chinese_terms)]
    assert jieou == ["decoupled RoPE"]
    assert {"cos/sin 表", "长度外推"} <= set(seen)


def test_the_index_lists_every_term_once_by_initial():
    index = STORE["zh-index"].text
    for row in ROWS:
        assert f"{' / '.join(row.chinese_terms)} → " in index, row.term
    letters = re.findall(r"^- \*\*([A-Z]|西文)\*\*", index, flags=re.M)
    assert letters[:-1] == sorted(letters[:-1]) and letters[-1] == "西文"
