"""The Chinese edition's translation store (``book/zh/``, ``tools/zh_store.py``, issue 27).

* every page of the book is translated, unit by unit, from its current English, and each
  translation keeps the English's formulas, numbers, references, code spans and directives
  and the glossary's terms (``test_page_is_translated_and_faithful``: one test per page, which
  fails, naming the page and the units, until the translators have finished it);
* the term base: the glossary's rows read as terms, and the two term checks (a unit that uses
  a term renders it in the glossary's Chinese; a page's first mention gives the English in
  parentheses);
* planted drift on copies of the pages: a changed English paragraph, a deleted cell, a new
  cell and a translation that drops a formula, a number, a code span or a reference or
  changes a directive are each reported, naming the unit;
* ``markdown_blocks`` cuts every ``.md`` page into blocks that join back into the page.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from ropebook import zh_store

ROOT = Path(__file__).resolve().parents[1]


PAGES = zh_store.pages()


def _id(page: Path) -> str:
    return str(page.relative_to(ROOT))


# --- the book's translation ----------------------------------------------------------------


def test_every_page_of_the_book_is_a_page_of_the_edition():
    names = {p.relative_to(ROOT).as_posix() for p in PAGES}
    assert "book/intro.md" in names and "book/glossary.md" in names
    assert sum(n.startswith("notebooks/") for n in names) >= 12


@pytest.mark.parametrize("page", PAGES, ids=_id)
def test_page_is_translated_and_faithful(page):
    problems = zh_store.check_page(page)
    assert not problems, f"{len(problems)} problems in {_id(page)}:\n" + "\n".join(problems)


# --- the term base ---------------------------------------------------------------------------

TERMS = zh_store.glossary_terms()
BY_ENGLISH = {t.english: t for t in TERMS}


def test_glossary_rows_split_into_terms():
    # "query / key / value" - "查询 / 键 / 值": alternatives pair in order
    assert BY_ENGLISH["query"].chinese == ("查询",)
    assert BY_ENGLISH["key"].chinese == ("键",)
    assert BY_ENGLISH["value"].chinese == ("值",)
    # one English, two Chinese: either renders it
    assert set(BY_ENGLISH["fine-tuning"].chinese) == {"微调", "续训"}
    # an abbreviation in parentheses is one more alternative; a qualifier is dropped
    assert BY_ENGLISH["RoPE"].chinese == BY_ENGLISH["Rotary Position Embedding"].chinese
    assert BY_ENGLISH["OOD"].chinese == ("分布外",)
    assert "rope metadata" in BY_ENGLISH and "GGUF" not in BY_ENGLISH
    # "†" is not part of the Chinese
    assert BY_ENGLISH["KV cache"].chinese == ("KV 缓存",)
    # everyday words are not terms
    assert not {"length", "angle", "argument"} & {t.english.lower() for t in TERMS}


def test_terms_the_field_writes_in_latin_letters_may_stay_english():
    kept = {t.english for t in TERMS if t.keep_english}
    assert {"RoPE", "YaRN", "KV cache", "ALiBi", "NoPE", "mscale"} <= kept
    assert not {"extrapolation", "critical dimension", "long-range decay", "base"} & kept


def test_every_glossary_row_gives_a_term_unless_all_its_words_are_everyday():
    from ropebook.glossary import glossary_rows

    covered = {e for t in TERMS for e in t.row_english}
    for row in glossary_rows():
        words = [w.strip() for w in re.sub(r"\(.*?\)", "", row.term).split(" / ")]
        if all(w.lower() in zh_store.GENERIC_ENGLISH for w in words):
            continue
        assert covered & set(words), f"{row.term}: no term"


@pytest.mark.parametrize(
    ("term", "text", "found"),
    [
        ("scaling laws", "the scaling law of Liu et al.", True),
        ("scaling laws", "two Scaling Laws", True),
        ("query", "the queries and the keys", True),
        ("fine-tuning", "after fine tuning at 16k", True),
        ("base", "a larger base", True),
        ("base", "the bases of the two models", True),
        ("base", "the baseline and the database", False),
        ("RoPE", "RoPE-based extrapolation", True),
        ("RoPE", "the ropelab package", False),
        ("plane", "every plane, and the planes", True),
        ("position ids", "its position id", True),
        ("frequency", "the high frequencies", True),
    ],
)
def test_term_pattern(term, text, found):
    assert bool(zh_store.english_term_pattern(term).search(text)) is found


def test_longer_terms_hide_the_shorter_ones_they_contain():
    used = [t.english for t in zh_store.english_terms_used("the critical base and the base")]
    assert used == ["critical base", "base"]
    used = [t.english for t in zh_store.english_terms_used("Fine-tune at the critical base.")]
    assert used == ["critical base"]
    used = [t.english for t in zh_store.english_terms_used("A relative position encoding.")]
    assert used == ["relative position encoding"]


def test_terms_in_code_math_and_references_are_not_prose():
    english = "Set `base` to $base$ as in {ref}`base`; see [chapter 4](base.md).\n\n```python\nbase = 1\n```"
    assert zh_store.english_terms_used(english) == []


ENGLISH = "Extrapolation fails beyond the critical dimension, whatever the base."


@pytest.mark.parametrize(
    ("chinese", "missing"),
    [
        ("外推在临界维度之外失效，不论底数如何。", []),
        ("外推在临界 维度之外失效，不论底数如何。", []),  # spaces do not matter
        ("外推在临界维度之外失效，不论 base 如何。", ["base"]),
        ("外延在临界维度之外失效，不论底数如何。", ["extrapolation"]),
        ("外推失效，不论底数如何。", ["critical dimension"]),
        ("外推在 `临界维度` 之外失效，不论底数如何。", ["critical dimension"]),  # code, not prose
    ],
)
def test_a_unit_renders_the_glossary_terms_it_uses(chinese, missing):
    problems = zh_store.term_problems(ENGLISH, chinese)
    assert [re.search(r"'([^']+)'", p).group(1) for p in problems] == missing


def test_terms_kept_in_english_and_declared_exceptions():
    assert (
        zh_store.term_problems("RoPE with YaRN and a KV cache.", "用 YaRN 的 RoPE 与 KV cache。")
        == []
    )
    assert zh_store.term_problems("A key cache.", "KV 缓存。") == []
    english = "A complex number is a point of the plane."
    assert zh_store.term_problems(english, "复数是平面上的一点。") == [
        "term 'plane' not rendered as 子空间"
    ]
    declared = "复数是平面上的一点。<!-- term plane: 平面 -->"
    assert zh_store.term_problems(english, declared) == []
    wrong = "复数是一个点。<!-- term plane: 平面 -->"
    assert zh_store.term_problems(english, wrong) == [
        "term 'plane': the declared 平面 does not occur"
    ]


def _pairs(*units: tuple[str, str]) -> list[tuple[zh_store.Unit, zh_store.Translation]]:
    return [
        (zh_store.Unit(f"u{i}", en), zh_store.Translation(f"u{i}", "0" * 12, zh))
        for i, (en, zh) in enumerate(units)
    ]


def test_the_first_mention_gives_the_english_in_parentheses():
    first = ("Extrapolation is hard.", "外推很难。")
    later = ("Extrapolation again.", "又是外推。")
    problems = zh_store.first_mention_problems(_pairs(first, later))
    assert len(problems) == 1 and problems[0].startswith(
        "unit u0: [first-mention] first mention of 'extrapolation'"
    )
    for good in (
        "外推（extrapolation）很难。",
        "外推 (Extrapolation) 很难。",
        "**外推**（extrapolation，第 6 章）很难。",
    ):
        assert zh_store.first_mention_problems(_pairs((first[0], good), later)) == []
    # the English after a later mention does not make up for the first
    assert zh_store.first_mention_problems(
        _pairs(first, ("Extrapolation.", "外推（extrapolation）。"))
    )


def test_a_longer_term_is_not_a_mention_of_the_shorter():
    english = "A relative position encoding is a position encoding."
    chinese = "相对位置编码（relative position encoding）是一种位置编码（position encoding）。"
    assert zh_store.first_mention_problems(_pairs((english, chinese))) == []
    lacking = "相对位置编码（relative position encoding）是一种位置编码。"
    problems = zh_store.first_mention_problems(_pairs((english, lacking)))
    assert len(problems) == 1 and "'position encoding'" in problems[0]


def test_terms_rendered_in_english_need_no_parentheses():
    assert zh_store.first_mention_problems(_pairs(("RoPE and YaRN.", "RoPE 与 YaRN。"))) == []


# --- planted drift on copies -----------------------------------------------------------------


def _cell(kind: str, cell_id: str, source: str, caption: str | None = None) -> dict:
    cell = {"cell_type": kind, "id": cell_id, "metadata": {}, "source": source}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
        if caption:
            cell["metadata"] = {"mystnb": {"figure": {"caption": caption, "name": "fig-x"}}}
    return cell


CELLS = [
    _cell("markdown", "title", "# Extrapolation\n\nThe bound $T = 2\\pi\\beta$ holds."),
    _cell("markdown", "para", "At 4,096 tokens `rope_theta` gives {numref}`fig-x`."),
    _cell("code", "plot", "plot()", caption="The wavelength of each plane."),
    _cell("markdown", "note", "```{note}\nSee [chapter 4](04_theta_spectrum.ipynb).\n```"),
]
CHINESE = {
    "title": "# 外推\n\n上界 $T = 2\\pi\\beta$ 成立。",
    "para": "在 4,096 个 token 处，`rope_theta` 给出 {numref}`fig-x`。",
    "plot:caption": "每个子空间的周期。",
    "note": "```{note}\n见[第 4 章](04_theta_spectrum.ipynb)。\n```",
}


@pytest.fixture
def book(tmp_path, monkeypatch):
    """A book of one notebook and its faithful translation, under a temporary root."""
    (tmp_path / "book").mkdir()
    shutil.copy(ROOT / "book" / "glossary.md", tmp_path / "book" / "glossary.md")
    monkeypatch.setattr(zh_store, "ROOT", tmp_path)
    monkeypatch.setattr(zh_store, "STORE", tmp_path / "book" / "zh")
    page = tmp_path / "notebooks" / "06_x.ipynb"
    page.parent.mkdir()

    def write(cells: list[dict], chinese: dict[str, str] | None = None) -> None:
        nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        page.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
        if chinese is not None:
            units = zh_store.english_units(page)
            translated = [zh_store.Translation(u.key, u.sha, chinese[u.key]) for u in units]
            zh_store.write_store(zh_store.store_path(page), page, translated)

    write(CELLS, CHINESE)
    return page, write


def test_the_faithful_copy_passes(book):
    page, _ = book
    assert zh_store.check_page(page) == []


def test_a_changed_english_paragraph_is_reported_as_that_unit(book):
    page, write = book
    cells = [dict(c) for c in CELLS]
    cells[1]["source"] = "At 8,192 tokens `rope_theta` gives {numref}`fig-x`."
    write(cells)
    problems = zh_store.check_page(page)
    assert len(problems) == 1, problems
    assert problems[0].startswith("notebooks/06_x.ipynb: unit para: the English changed after")


def test_a_changed_caption_is_reported_as_that_unit(book):
    page, write = book
    cells = [dict(c) for c in CELLS]
    cells[2] = _cell("code", "plot", "plot()", caption="The wavelength of every plane.")
    write(cells)
    problems = zh_store.check_page(page)
    assert [p.split(": ")[1] for p in problems] == ["unit plot:caption"]


def test_a_deleted_english_cell_leaves_an_orphan(book):
    page, write = book
    write([c for c in CELLS if c["id"] != "note"])
    assert zh_store.check_page(page) == [
        "notebooks/06_x.ipynb: unit note: translation has no English unit left (orphan)"
    ]


def test_a_new_english_cell_is_missing(book):
    page, write = book
    write([*CELLS, _cell("markdown", "new", "A new paragraph.")])
    assert zh_store.check_page(page) == ["notebooks/06_x.ipynb: unit new: no translation"]


def test_an_english_unit_left_in_english_is_not_translated(book):
    page, write = book
    write(CELLS, {**CHINESE, "para": CELLS[1]["source"]})
    assert zh_store.check_page(page) == [
        "notebooks/06_x.ipynb: unit para: not translated (no Chinese text)"
    ]


def test_a_missing_store_is_reported(book):
    page, _ = book
    zh_store.store_path(page).unlink()
    assert zh_store.check_page(page) == [
        "notebooks/06_x.ipynb: no translation store book/zh/06_x.md"
    ]


@pytest.mark.parametrize(
    ("key", "before", "after", "kind"),
    [
        ("title", "$T = 2\\pi\\beta$", "$T = 2\\pi \\beta$", "formula"),
        ("para", "4,096", "4096 左右", None),  # the same number without its comma is kept
        ("para", "4,096", "四千", "number"),
        ("para", "`rope_theta`", "rope_theta", "code"),
        ("para", "{numref}`fig-x`", "图", "reference"),
        ("note", "(04_theta_spectrum.ipynb)", "(05_long_range_decay.ipynb)", "reference"),
        ("note", "```{note}", "```{warning}", "directive"),
        ("plot:caption", "周期", "波长", "term"),
    ],
)
def test_a_translation_that_drops_what_it_must_keep_is_reported(book, key, before, after, kind):
    page, write = book
    assert before in CHINESE[key]
    write(CELLS, {**CHINESE, key: CHINESE[key].replace(before, after)})
    problems = zh_store.check_page(page)
    if kind is None:
        assert problems == []
        return
    assert problems, f"{kind}: nothing reported"
    assert all(p.startswith(f"notebooks/06_x.ipynb: unit {key}: {kind}") for p in problems), (
        problems
    )


def test_a_changed_paragraph_of_a_real_page_is_reported_as_that_unit(tmp_path, monkeypatch):
    """On copies of the introduction and its store, as the translators left them: changing
    one English paragraph adds exactly one problem, that unit's drift."""
    for rel in ("book/intro.md", "book/zh/intro.md", "book/glossary.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / rel).exists():
            shutil.copy(ROOT / rel, tmp_path / rel)
    monkeypatch.setattr(zh_store, "ROOT", tmp_path)
    monkeypatch.setattr(zh_store, "STORE", tmp_path / "book" / "zh")
    page = tmp_path / "book" / "intro.md"
    if not zh_store.store_path(page).exists():
        zh_store.stub(page)
    before = set(zh_store.check_page(page))
    units = zh_store.english_units(page)
    prose_units = [u for u in units if len(u.text) > 200 and not u.text.startswith(("```", "#"))]
    target = prose_units[0]
    text = page.read_text(encoding="utf-8")
    assert text.count(target.text) == 1
    page.write_text(
        text.replace(target.text, target.text.replace(" ", "  ", 1) + " More."), "utf-8"
    )
    after = set(zh_store.check_page(page))
    new = after - before
    assert len(new) == 1, new
    assert next(iter(new)).startswith(f"book/intro.md: unit {target.key}: the English changed")
    assert before - after <= {p for p in before if f"unit {target.key}:" in p}


# --- the blocks of a .md page ----------------------------------------------------------------


@pytest.mark.parametrize("page", [p for p in PAGES if p.suffix == ".md"], ids=_id)
def test_markdown_blocks_join_back_into_the_page(page):
    text = page.read_text(encoding="utf-8")
    blocks = zh_store.markdown_blocks(text)
    assert blocks and all(b.strip() and b.strip("\n") == b for b in blocks)

    def nonblank(body: str) -> list[str]:
        return [line for line in body.splitlines() if line.strip()]

    assert nonblank("\n\n".join(blocks)) == nonblank(text)
    # a fenced block is never cut: each block opens and closes as many fences as it has
    for block in blocks:
        fences = [ln for ln in block.splitlines() if re.match(r"^\s*(`{3,}|:{3,})", ln)]
        assert len(fences) % 2 == 0, block[:200]


def test_markdown_blocks_keep_fences_and_display_math_whole():
    text = "A.\n\n```{note}\nOne.\n\nTwo.\n```\n\n$$\na\n\nb\n$$\nTail.\n\nB."
    assert zh_store.markdown_blocks(text) == [
        "A.",
        "```{note}\nOne.\n\nTwo.\n```",
        "$$\na\n\nb\n$$\nTail.",
        "B.",
    ]


def test_a_role_with_its_own_link_text_keeps_its_label_and_translates_the_text():
    english = "See {ref}`the ceiling box <ch6-ceiling>` and {numref}`fig-6-masks`."
    good = "见{ref}`关于上取整的说明框 <ch6-ceiling>`与{numref}`fig-6-masks`。"
    assert zh_store.fidelity_problems(english, good) == []
    lost = "见{ref}`关于上取整的说明框 <ch6-floor>`与{numref}`fig-6-masks`。"
    assert zh_store.fidelity_problems(english, lost) == ["reference missing: <ch6-ceiling>`"]
    untitled = "见{numref}`图 6.1 <fig-6-masks>`。"  # a role without link text stays whole
    assert "reference missing: {numref}`fig-6-masks`" in zh_store.fidelity_problems(
        "See {numref}`fig-6-masks`.", untitled
    )


# --- the slides' metadata (issue 34: book/zh/slides/) ---------------------------------------

SLIDE_EN = [
    {"part": "Step 1", "lead": "With $n = m$ the two lengths agree at 10,000 positions."},
    {"part": "Step 2", "lead": "The angle grows by `theta` each step."},
]
SLIDE_ZH = [
    {"part": "第 1 步", "lead": "取 $n = m$，两个模长在 10,000 个位置上一致。"},
    {"part": "第 2 步", "lead": "角度每一步增加 `theta`。"},
]


def _with_slide(spec: object) -> list[dict]:
    cells = [dict(c) for c in CELLS]
    cells[1] = {**cells[1], "metadata": {"slide": spec}}
    return cells


def _write_slides(page: Path, spec: object) -> None:
    unit = zh_store.slide_units(page)[0]
    zh_store.write_store(
        zh_store.slide_store_path(page),
        page,
        [zh_store.Translation(unit.key, unit.sha, zh_store.slide_json(spec))],
    )


def test_every_notebook_with_slide_metadata_has_its_slide_store():
    with_slides = [p for p in PAGES if zh_store.slide_units(p)]
    assert len(with_slides) >= 8
    for page in with_slides:
        assert zh_store.slide_store_path(page).is_file(), page
        assert set(zh_store.slide_translations(page)) == {
            u.key.removesuffix(zh_store.SLIDE) for u in zh_store.slide_units(page)
        }, page


def test_a_faithful_slide_translation_passes_and_the_decks_read_it(book):
    page, write = book
    write(_with_slide(SLIDE_EN))
    _write_slides(page, SLIDE_ZH)
    assert zh_store.check_page(page) == []
    assert zh_store.slide_translations(page) == {"para": SLIDE_ZH}


def test_slide_metadata_without_its_translation_is_missing(book):
    page, write = book
    write(_with_slide(SLIDE_EN))
    assert zh_store.check_page(page) == [
        "notebooks/06_x.ipynb: book/zh/slides/06_x.md: unit para:slide: no translation"
    ]


def test_a_changed_slide_metadata_makes_its_unit_stale(book):
    page, write = book
    write(_with_slide(SLIDE_EN))
    _write_slides(page, SLIDE_ZH)
    write(_with_slide([SLIDE_EN[0], {**SLIDE_EN[1], "lead": "The angle grows."}]))
    problems = zh_store.check_page(page)
    assert len(problems) == 1 and "unit para:slide: the English changed after" in problems[0]
    assert zh_store.slide_translations(page) == {}  # the deck keeps the English


def test_slide_metadata_removed_leaves_an_orphan(book):
    page, write = book
    write(_with_slide(SLIDE_EN))
    _write_slides(page, SLIDE_ZH)
    write(CELLS)
    assert zh_store.check_page(page) == [
        "notebooks/06_x.ipynb: book/zh/slides/06_x.md: unit para:slide: translation has no"
        " English unit left (orphan)"
    ]


@pytest.mark.parametrize(
    ("broken", "expected"),
    [
        ([SLIDE_ZH[0]], "not the same slides as the English"),
        ([SLIDE_ZH[0], {**SLIDE_ZH[1], "lead": "角度每一步增加。"}], "slide 2: lead: "),
        ([SLIDE_ZH[0], {**SLIDE_ZH[1], "lead": SLIDE_EN[1]["lead"]}], "not translated"),
        (
            [{**SLIDE_ZH[0], "lead": "取 $n = m$，两个模长在 10000 个位置上一致。"}, SLIDE_ZH[1]],
            "slide 1: lead: ",
        ),
        ([SLIDE_ZH[0], {"lead": SLIDE_ZH[1]["lead"]}], "slide 2: fields"),
    ],
    ids=["a-slide-dropped", "code-span-dropped", "left-in-english", "number-format", "part-gone"],
)
def test_an_unfaithful_slide_translation_is_reported(book, broken, expected):
    page, write = book
    write(_with_slide(SLIDE_EN))
    _write_slides(page, broken)
    problems = zh_store.check_page(page)
    assert problems and all("unit para:slide:" in p for p in problems), problems
    assert any(expected in p for p in problems), problems


@pytest.mark.parametrize(
    ("english", "chinese", "ok"),
    [
        # prose words in a formula are translated (issue 34)
        (r"so $a \quad \text{so} \quad b$.", r"所以 $a \quad \text{所以} \quad b$。", True),
        (r"$$x = y \qquad\text{for all } y$$", r"$$x = y \qquad\text{对所有 } y$$", True),
        (
            r"$\begin{cases}1 & \text{if } x\end{cases}$",
            r"$\begin{cases}1 & \text{若 } x\end{cases}$",
            True,
        ),
        # notation stays: a sub- or superscript label is a symbol
        (r"$T_\text{train}$ tokens", r"$T_\text{训练}$ 个 token", False),
        (r"$R^{d,\text{half}}_{\Theta,m}$", r"$R^{d,\text{对半}}_{\Theta,m}$", False),
        # the rest of the formula must still be there
        (r"$a \text{so} b$", r"$a \text{所以} c$", False),
    ],
)
def test_prose_words_in_formulas_are_translatable_notation_is_not(english, chinese, ok):
    problems = zh_store.fidelity_problems(english, chinese)
    assert (problems == []) is ok, problems


def test_exercise_code_comments_are_translated_and_nothing_else_changes():
    english = "x = 1  # the first value\ny = x + 1  # fmt: skip\n"
    ok = "x = 1  # 第一个值\ny = x + 1  # fmt: skip\n"
    assert zh_store.comment_problems(english, ok) == []
    assert zh_store.comment_problems(english, english) == [
        "comment not translated: # the first value"
    ]
    changed = "x = 2  # 第一个值\ny = x + 1  # fmt: skip\n"
    assert zh_store.comment_problems(english, changed) == [
        "the code differs from the English beyond its comments"
    ]
    assert zh_store.has_comment(english) and not zh_store.has_comment("y = 1  # m - n = 3\n")
    assert not zh_store.has_comment('s = "# not a comment at all"\n')


def test_every_exercise_cell_with_words_in_comments_has_its_chinese():
    units = [
        (page.stem, u.key)
        for page in zh_store.pages()
        if page.suffix == ".ipynb"
        for u in zh_store.english_units(page)
        if u.key.endswith(zh_store.COMMENTS)
    ]
    assert len(units) >= 5  # 00, 03, 03A (two), 09 today
    for stem, key in units:
        have = zh_store.read_store(zh_store.STORE / f"{stem}.md")
        assert key in have and zh_store.CJK.search(have[key].text), (stem, key)


def test_a_quotation_is_not_a_first_mention():
    """A source's own words in “…” take no gloss: the first mention is the next one outside."""
    first = ("Source 000 says it: extrapolation is hard.", "原文 000 说：“外推很难”。")
    later = ("Extrapolation again.", "又是外推（extrapolation）。")
    assert zh_store.first_mention_problems(_pairs(first, later)) == []
    unglossed = ("Extrapolation again.", "又是外推。")
    problems = zh_store.first_mention_problems(_pairs(first, unglossed))
    assert len(problems) == 1 and problems[0].startswith("unit u1: [first-mention]")
