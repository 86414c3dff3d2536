"""The Chinese edition's build (issue 27): its source tree, and the language switch in the site.

``tools/build_zh.py`` writes the Chinese edition's source tree from the English sources and the
translation store (``tools/zh_store.py``). Checked here, without a browser:

* every notebook of the tree has the English notebook's code cells, outputs included, byte for
  byte (the JSON of each code cell, its figure caption aside, which is prose);
* every markdown cell and figure caption with a current translation in the store is that
  translation, and every other one is the English text; ``.md`` pages block by block likewise;
* Chinese-only units (``zh-…``) land right after the unit before them (a made-up page and
  store, so that the placement is checked whatever the translators have written so far);
* in the built site (``_build/html``, or ``ROPELAB_SITE``; ``make book`` builds it with the
  kit's ``zh/``) every page of both editions links to the same page in the other language,
  and the link's target exists; the Chinese pages number their figures "图 4.2" and their
  exercises "练习 3A.1".
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from ropebook import build_zh, zh_store
from ropebook.book_toc import toc_docnames

ROOT = Path(__file__).resolve().parents[1]


SITE = Path(os.environ.get("ROPELAB_SITE", ROOT / "_build" / "html")).resolve()
ZH = "zh"
NOTEBOOKS = [p for p in build_zh.book_sources() if p.suffix == ".ipynb"]
MD_PAGES = [p for p in build_zh.book_sources() if p.suffix == ".md"]


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    tree = tmp_path_factory.mktemp("zh") / "src"
    build_zh.write_tree(tree)
    return tree


def _source(cell: dict) -> str:
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else src


def _without_caption(cell: dict) -> str:
    """A code cell's JSON (as the notebook file holds it) with its figure caption and the
    labels of its collapsed form (``code_prompt_show``/``hide``, translated) taken out."""
    cell = json.loads(json.dumps(cell))
    mystnb = cell.get("metadata", {}).get("mystnb", {})
    figure = mystnb.get("figure")
    if isinstance(figure, dict):
        figure.pop("caption", None)
    for prompt in ("code_prompt_show", "code_prompt_hide"):
        mystnb.pop(prompt, None)
    return json.dumps(cell, indent=1, ensure_ascii=False)


@pytest.mark.parametrize("page", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_labels_of_collapsed_cells_are_chinese(tree, page):
    """Issue 34: "Run it live…", "Show the helpers…" were left in English. Every label of a
    collapsed code cell has its Chinese in ``build_zh.CODE_PROMPTS`` and the tree uses it."""
    english = json.loads(page.read_text(encoding="utf-8"))
    chinese = json.loads((tree / page.relative_to(ROOT)).read_text(encoding="utf-8"))
    zh_code = {c["id"]: c for c in chinese["cells"] if c["cell_type"] == "code"}
    for cell in english["cells"]:
        mystnb = cell.get("metadata", {}).get("mystnb", {})
        for prompt in ("code_prompt_show", "code_prompt_hide"):
            label = mystnb.get(prompt)
            if label is None:
                continue
            assert label in build_zh.CODE_PROMPTS, f"{page.name}: no Chinese for {label!r}"
            zh_label = zh_code[cell["id"]]["metadata"]["mystnb"][prompt]
            assert zh_label == build_zh.CODE_PROMPTS[label] and zh_store.CJK.search(zh_label)


def _expected(page: Path) -> dict[str, str]:
    """What each English unit of ``page`` must read in Chinese: its translation when the store
    has one written from the English as it is now and with Chinese in it, else the English."""
    store = zh_store.read_store(zh_store.store_path(page))
    expected = {}
    for unit in zh_store.english_units(page):
        tr = store.get(unit.key)
        current = tr is not None and tr.sha == zh_store.unit_sha(unit.text)
        if current and not zh_store.untranslated(unit.text, tr.text):
            expected[unit.key] = tr.text.strip("\n")
        else:
            expected[unit.key] = unit.text
    return expected


@pytest.mark.parametrize("page", NOTEBOOKS, ids=lambda p: p.stem)
def test_code_cells_and_outputs_are_the_english_ones(tree, page):
    english = json.loads(page.read_text(encoding="utf-8"))
    chinese = json.loads((tree / page.relative_to(ROOT)).read_text(encoding="utf-8"))
    en_code = [c for c in english["cells"] if c["cell_type"] == "code"]
    zh_code = [c for c in chinese["cells"] if c["cell_type"] == "code"]
    assert len(zh_code) == len(en_code), (
        f"{page.name}: {len(zh_code)} code cells, not {len(en_code)}"
    )
    commented = 0
    for en, zh in zip(en_code, zh_code, strict=True):
        if _source(zh) != _source(en):  # an exercise cell whose comments are translated
            commented += 1
            assert zh_store.code_tokens(_source(zh)) == zh_store.code_tokens(_source(en)), (
                f"{page.name}: code cell {en['id']} differs beyond its comments"
            )
            assert zh_store.CJK.search(_source(zh)), f"{page.name}: {en['id']}"
            zh = {**zh, "source": en["source"]}
        assert _without_caption(zh) == _without_caption(en), f"{page.name}: code cell {en['id']}"
    units = [u for u in zh_store.english_units(page) if u.key.endswith(zh_store.COMMENTS)]
    assert commented == len(units), f"{page.name}: {commented} cells with Chinese comments"


@pytest.mark.parametrize("page", NOTEBOOKS, ids=lambda p: p.stem)
def test_markdown_cells_and_captions_are_translated_where_the_store_has_it(tree, page):
    expected = _expected(page)
    chinese = json.loads((tree / page.relative_to(ROOT)).read_text(encoding="utf-8"))
    found = {}
    for cell in chinese["cells"]:
        if cell["cell_type"] == "markdown" and not str(cell["id"]).startswith(zh_store.ZH_ONLY):
            found[str(cell["id"])] = _source(cell)
        caption = zh_store.figure_caption(cell)
        if caption:
            found[f"{cell['id']}{zh_store.CAPTION}"] = caption
        if f"{cell['id']}{zh_store.COMMENTS}" in expected:
            found[f"{cell['id']}{zh_store.COMMENTS}"] = _source(cell)
    assert set(found) == set(expected), f"{page.name}: units {set(found) ^ set(expected)}"
    wrong = [key for key in expected if found[key].strip("\n") != expected[key].strip("\n")]
    assert wrong == [], f"{page.name}: units not as the store says: {wrong}"


@pytest.mark.parametrize("page", MD_PAGES, ids=lambda p: p.stem)
def test_md_pages_are_rebuilt_block_by_block(tree, page):
    expected = _expected(page)
    text = (tree / page.relative_to(ROOT)).read_text(encoding="utf-8")
    # Each unit's text in the English order (a translated block may hold blank lines of its
    # own, so the page is searched, not split).
    at = 0
    for unit in zh_store.english_units(page):
        found = text.find(expected[unit.key].strip("\n"), at)
        assert found >= 0, f"{page.name}: block {unit.key} missing or out of order"
        at = found + 1
    for key, tr in zh_store.read_store(zh_store.store_path(page)).items():
        if key.startswith(zh_store.ZH_ONLY):
            assert tr.text.strip("\n") in text, f"{page.name}: Chinese-only unit {key} missing"


def _store(path: Path, units: list[tuple[str, str, str]]) -> None:
    body = "<!-- a made-up store -->\n" + "".join(
        f"<!-- unit {key} en:{sha} -->\n{text}\n\n" for key, sha, text in units
    )
    path.write_text(body, encoding="utf-8")


def test_chinese_only_units_are_placed_after_the_unit_before_them(tmp_path, monkeypatch):
    monkeypatch.setattr(zh_store, "STORE", tmp_path / "store")
    (tmp_path / "store").mkdir()
    page = tmp_path / "99_made_up.ipynb"
    figure = {"mystnb": {"figure": {"caption": "A sine wave.", "name": "fig-99-sine"}}}
    cells = [
        {"cell_type": "markdown", "id": "title", "metadata": {}, "source": ["# 99. Made up\n"]},
        {"cell_type": "code", "id": "plot", "metadata": figure, "execution_count": 1,
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["1.0\n"]}],
         "source": ["print(1.0)"]},
        {"cell_type": "markdown", "id": "stale", "metadata": {}, "source": ["Old words."]},
    ]  # fmt: skip
    page.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                "nbformat_minor": 5}), encoding="utf-8")  # fmt: skip
    sha = zh_store.unit_sha
    zero = "000000000000"
    _store(
        zh_store.store_path(page),
        [
            ("zh-first", zero, "译者按：开头。"),
            ("title", sha("# 99. Made up\n"), "# 99. 虚构的一章"),
            ("zh-after-title", zero, "标题之后。"),
            ("plot:caption", sha("A sine wave."), "正弦波。"),
            ("zh-after-plot", zero, "图之后。"),
            ("stale", sha("Older words."), "旧的话。"),
        ],
    )
    nb, missing = build_zh.zh_notebook(page)
    order = [(c["cell_type"], c["id"], _source(c)) for c in nb["cells"]]
    assert order == [
        ("markdown", "zh-first", "译者按：开头。"),
        ("markdown", "title", "# 99. 虚构的一章"),
        ("markdown", "zh-after-title", "标题之后。"),
        ("code", "plot", "print(1.0)"),
        ("markdown", "zh-after-plot", "图之后。"),
        ("markdown", "stale", "Old words."),  # stale translation: the English stays
    ]
    assert nb["cells"][3]["metadata"]["mystnb"]["figure"]["caption"] == "正弦波。"
    assert nb["cells"][3]["outputs"] == cells[1]["outputs"]
    assert nb["metadata"]["ropelab"]["chapter"] == "99"
    assert missing == 1

    md = tmp_path / "made_up.md"
    md.write_text("# Made up\n\nFirst block.\n\n```{note}\nKept whole.\n\nStill.\n```\n")
    _store(
        zh_store.store_path(md),
        [
            ("b001", sha("# Made up"), "# 虚构"),
            ("zh-note", zero, "按：说明。"),
            (
                "b003",
                sha("```{note}\nKept whole.\n\nStill.\n```"),
                "```{note}\n整块。\n\n仍是。\n```",
            ),
        ],
    )
    text, missing = build_zh.zh_markdown(md)
    assert text == "# 虚构\n\n按：说明。\n\nFirst block.\n\n```{note}\n整块。\n\n仍是。\n```\n"
    assert missing == 1


# --- the built site ---------------------------------------------------------------------

LINK = re.compile(
    r'<a class="reference external ropelab-language-link" href="([^"]+)"[^>]*>([^<]+)</a>'
)


def _pages() -> list[str]:
    return [f"{name}.html" for name in toc_docnames()]


def _switch(path: Path) -> tuple[str, str]:
    if not path.is_file():
        pytest.fail(f"{path} is missing: make book builds both editions (make kit: the zh one)")
    found = LINK.findall(path.read_text(encoding="utf-8"))
    assert len(found) == 1, f"{path}: {len(found)} language links"
    return found[0]


@pytest.mark.parametrize("relative", _pages())
def test_every_page_links_to_itself_in_the_other_language(relative):
    for edition, text, other in (("", "中文", f"{ZH}/"), (f"{ZH}/", "English", "")):
        page = SITE / edition / relative
        href, shown = _switch(page)
        assert shown == text, f"{page}: the switch reads {shown!r}"
        target = (page.parent / href).resolve()
        assert target == (SITE / other / relative).resolve(), f"{page} -> {href}"
        assert target.is_file(), f"{page} links to a missing {target}"
    # The student edition (issue 31): between student/ and student/zh/, never the full zh/.
    student = SITE / "student"
    for edition, other in (("", f"{ZH}/"), (f"{ZH}/", "")):
        page = student / edition / relative
        href, _ = _switch(page)
        target = (page.parent / href).resolve()
        assert target == (student / other / relative).resolve(), f"{page} -> {href}"
        assert target.is_file(), f"{page} links to a missing {target}"


def test_chinese_pages_number_in_chinese():
    page = SITE / ZH / "notebooks" / "03a_rope_in_code.html"
    if not page.is_file():
        pytest.fail(f"{page} is missing: make book builds the Chinese edition")
    html = page.read_text(encoding="utf-8")
    numbers = re.findall(r'<span class="caption-number">([^<]*)</span>', html)
    figures = [n for n in numbers if n.startswith("图")]
    exercises = [n.strip() for n in numbers if n.startswith("练习")]
    assert figures and all(re.fullmatch(r"图 3A\.\d+：", n) for n in figures), figures
    assert exercises and all(re.fullmatch(r"练习 3A\.\d+", n) for n in exercises), exercises
    assert not re.search(r">(Figure|Exercise|Table) \d", html), "English numbers on a zh page"
    assert 'lang="zh-CN"' in html
