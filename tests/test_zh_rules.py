"""The Chinese edition's style rules (``src/ropebook/zh_rules.py``, issue 34), each with a planted
failure: a bad unit is reported under its rule and the edition's own units pass.

* ``heading-gloss``: no English gloss in a heading, a caption or a table cell;
* ``nested-parentheses``: no parenthesis inside a parenthesis;
* ``bei-reduction``: no reduction written with 倍 (the message suggests 为…的 1/N);
* ``link-text``: role and link text in a Chinese unit contains Chinese;
* ``number-format``: the one number convention, and numbers compared by value;
* ``long-sentence``: no sentence of running prose over 90 Chinese characters (formulas, code
  and URLs do not count; a list item, heading or table cell ends a sentence);
* ``first-mention``, ``gloss-repeated``, ``gloss-basic``: a gloss once a page, at the first
  mention in running prose, never on basic mathematics (``book/glossary_terms.json``);
* the ratchet of pages other authors hold: its counts are exact.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from ropebook import zh_rules, zh_store

ROOT = Path(__file__).resolve().parents[1]


PAGES = zh_store.pages()


def _rules(problems: list[str]) -> list[str]:
    return [zh_rules.rule_of(p) for p in problems]


# --- each rule: a planted bad unit fails, its fix passes ------------------------------------


@pytest.mark.parametrize(
    ("key", "bad", "good"),
    [
        ("u1", "## 绝对位置编码（absolute position encoding）", "## 绝对位置编码"),
        ("u1", "# 6. RoPE 外推（extrapolation）的缩放法则", "# 6. RoPE 外推的缩放法则"),
        ("u1:caption", "每个子空间（plane）的周期。", "每个子空间的周期。"),
        (
            "u1",
            "| 符号 | 含义 |\n|---|---|\n| $q$ | 查询（query） |",
            "| 符号 | 含义 |\n|---|---|\n| $q$ | 查询 |",
        ),
        (
            "u1",
            "```{list-table}\n* - 底数（base）\n  - 1\n```",
            "```{list-table}\n* - 底数\n  - 1\n```",
        ),
    ],
)
def test_heading_gloss(key, bad, good):
    assert _rules(zh_rules.unit_problems("00_x", key, bad)) == ["heading-gloss"]
    assert zh_rules.unit_problems("00_x", key, good) == []


def test_a_value_in_a_heading_or_caption_is_no_gloss():
    for text in ("## 取 d = 64 时（d = 64）", "## 对（True）", "## YaRN（YaRN ×8）"):
        assert zh_rules.unit_problems("00_x", "u1", text) == []
    # in prose a gloss is the first mention's business, not this rule's
    assert zh_rules.unit_problems("00_x", "u1", "外推（extrapolation）很难。") == []


@pytest.mark.parametrize(
    ("bad", "good"),
    [
        ("需要线性代数（矩阵、点积（dot product）、旋转）。", "需要线性代数（矩阵、点积、旋转）。"),
        ("第 1 章（旋转矩阵（rotation matrix））。", "第 1 章（旋转矩阵）。"),
        ("见上文（在单个子空间（plane）上）。", "见上文（在单个子空间上）。"),
    ],
)
def test_nested_parentheses(bad, good):
    assert _rules(zh_rules.unit_problems("00_x", "u1", bad)) == ["nested-parentheses"]
    assert zh_rules.unit_problems("00_x", "u1", good) == []


def test_an_equation_number_or_an_ascii_formula_is_not_nesting():
    for text in ("（RoFormer 式 (16)）。", "（式 (12) 和 (13)）。", "(1 - (ln r + gamma)/ln beta)"):
        assert zh_rules.unit_problems("00_x", "u1", text) == []


@pytest.mark.parametrize(
    "bad",
    [
        "只用了 10B token，比 Meta 的做法少 80 倍。",
        "比它们小三倍的底数。",
        "所以 MLA 只小 7.1 倍。",
        "频率在两处相差 1.7 倍。",
        "最多慢 $s$ 倍。",
        "在按 64 倍缩小的玩具模型上。",
        "小多少倍。",
    ],
)
def test_bei_reduction(bad):
    problems = zh_rules.unit_problems("00_x", "u1", bad)
    assert _rules(problems) == ["bei-reduction"] and "1/N" in problems[0]


@pytest.mark.parametrize(
    "good",
    [
        "只用了 10B token，仅为 Meta 做法用量的 1/80。",
        "周期拉长近十倍。",  # an increase
        "大 4 倍，多 3 倍。",
        "至少四倍。",
        "相差 $2\\pi$ 的整数倍。",
        "每个子空间都比前一个慢同样的倍数。",
        "每翻一倍下降 $c$。",
    ],
)
def test_increases_and_multiples_are_fine(good):
    assert zh_rules.unit_problems("00_x", "u1", good) == []


@pytest.mark.parametrize(
    ("bad", "good"),
    [
        (
            "见 {doc}`Chapter 8 <../notebooks/08_rope_in_practice>`。",
            "见 {doc}`第 8 章 <../notebooks/08_rope_in_practice>`。",
        ),
        (
            "（{doc}`RoPE in code <03a_rope_in_code>`）",
            "（{doc}`代码中的 RoPE <03a_rope_in_code>`）",
        ),
        (
            "报告于 [issue 25681](https://example.org/25681)。",
            "报告于 [第 25681 号 issue](https://example.org/25681)。",
        ),
        ("见 {ref}`the box <ch3-box>`。", "见 {ref}`这个框 <ch3-box>`。"),
    ],
)
def test_link_text(bad, good):
    assert _rules(zh_rules.unit_problems("00_x", "u1", bad)) == ["link-text"]
    assert zh_rules.unit_problems("00_x", "u1", good) == []
    # a number alone is fine, and so are the cited titles of the references page
    assert zh_rules.unit_problems("00_x", "u1", "见 [#40320](https://example.org/1)。") == []
    assert zh_rules.unit_problems("references", "b002", bad) == []


@pytest.mark.parametrize(
    ("bad", "good"),
    [
        ("最后一个子空间超过 2.6 百万个 token。", "最后一个子空间超过 260 万个 token。"),
        ("前 4 M 个字符。", "前 400 万个字符。"),
        ("模型有 0.4M 个参数。", "模型有 40 万个参数。"),
        ("保留了 95 % 的性能。", "保留了 95% 的性能。"),
        ("底数 10 000。", "底数 10,000。"),
        ("底数 10000。", "底数 10,000。"),
        ("位置 1 048 575，", "位置 1,048,575，"),
    ],
)
def test_number_format(bad, good):
    assert set(_rules(zh_rules.unit_problems("00_x", "u1", bad))) == {"number-format"}
    assert zh_rules.unit_problems("00_x", "u1", good) == []


def test_identifiers_are_not_numbers():
    for text in ("见 #40320。", "commit a458664f。", "第 25681 号 issue。", "4096 个 token。"):
        assert zh_rules.unit_problems("00_x", "u1", text) == []


# 46 字 each: two of them joined with a comma make one sentence of 92, over the limit.
HALF = (
    "低频子空间在训练长度内从未转满一圈，所以它们在更长的位置上给出的角度是注意力权重从未见过的输入"
)


def test_long_sentence():
    assert zh_rules.sentence_length(HALF) == 46
    bad = HALF + "，" + HALF + "。"
    assert _rules(zh_rules.unit_problems("00_x", "u1", bad)) == ["long-sentence"]
    good = HALF + "。" + HALF + "。"
    assert zh_rules.unit_problems("00_x", "u1", good) == []
    # a paragraph wrapped over two lines is still one sentence
    wrapped = HALF + "，\n" + HALF + "。"
    assert _rules(zh_rules.unit_problems("00_x", "u1", wrapped)) == ["long-sentence"]


def test_formulas_code_and_blocks_do_not_make_a_sentence_long():
    text = (
        "角度 $\\text{很长的公式里的汉字不算}\\theta$ 与 `代码里的汉字也不算` 并列，" + HALF + "。"
    )
    assert zh_rules.unit_problems("00_x", "u1", text) == []
    items = "- " + HALF + "\n- " + HALF
    assert zh_rules.unit_problems("00_x", "u1", items) == []
    table = "| 含义 | 说明 |\n|---|---|\n| " + HALF + " | " + HALF + " |"
    assert zh_rules.unit_problems("00_x", "u1", table) == []
    assert zh_rules.unit_problems("00_x", "u1", "## " + HALF + "\n" + HALF + "。") == []


@pytest.mark.parametrize(
    ("english", "chinese", "missing"),
    [
        ("over 2.6 million tokens", "超过 260 万个 token", []),
        ("the first 4 M characters", "前 400 万个字符", []),
        ("0.4 M parameters", "40 万个参数", []),
        ("base 10,000", "底数 10,000", []),
        ("base 10,000", "底数 10000", []),
        ("base 10,000", "底数 1 万", []),
        ("base 10 000", "底数 10,000", []),
        ("position 1 048 575, then", "位置 1,048,575，然后", []),
        ("over 2.6 million tokens", "超过 2.6 万个 token", ["2.6"]),  # a different value
        ("base 10,000", "底数 100,000", ["10,000"]),
        ("the first 4 M characters", "前 40 万个字符", ["4"]),
    ],
)
def test_numbers_are_compared_by_value(english, chinese, missing):
    problems = zh_store.fidelity_problems(english, chinese)
    assert [p.removeprefix("number missing: ") for p in problems] == missing


# --- glosses: once a page, at the first mention in running prose, never on basic mathematics -


def _pairs(*units: tuple[str, str, str]) -> list[tuple[zh_store.Unit, zh_store.Translation]]:
    return [
        (zh_store.Unit(key, en), zh_store.Translation(key, "0" * 12, zh)) for key, en, zh in units
    ]


def test_the_first_mention_is_in_running_prose_not_in_a_heading():
    title = ("t", "# Extrapolation", "# 外推")
    body = ("b", "Extrapolation is hard.", "外推（extrapolation）很难。")
    assert zh_store.first_mention_problems(_pairs(title, body)) == []
    bare = ("b", body[1], "外推很难。")
    problems = zh_store.first_mention_problems(_pairs(title, bare))
    assert _rules(problems) == ["first-mention"] and problems[0].startswith("unit b:")


def test_a_mention_inside_a_parenthesis_or_a_caption_is_not_the_first():
    inside = ("p", "Needs (extrapolation, scaling).", "需要（外推、缩放）。")
    caption = ("c:caption", "Extrapolation fails.", "外推失败。")
    body = ("b", "Extrapolation is hard.", "外推（extrapolation）很难。")
    assert zh_store.first_mention_problems(_pairs(inside, caption, body)) == []
    problems = zh_store.first_mention_problems(
        _pairs(inside, caption, ("b", body[1], "外推很难。"))
    )
    assert _rules(problems) == ["first-mention"]


def test_a_second_gloss_is_reported():
    first = ("a", "Extrapolation is hard.", "外推（extrapolation）很难。")
    again = ("b", "Extrapolation again.", "又是外推（extrapolation）。")
    problems = zh_store.first_mention_problems(_pairs(first, again))
    assert _rules(problems) == ["gloss-repeated"] and problems[0].startswith("unit b:")
    assert zh_store.first_mention_problems(_pairs(first, ("b", again[1], "又是外推。"))) == []


def test_basic_mathematics_is_never_glossed():
    settings = zh_store.glossary_settings(ROOT / "book" / "glossary_terms.json")
    assert {"complex number", "dot product / inner product", "frequency"} <= set(
        settings["no_gloss"]
    )
    bad = ("a", "A complex number and a dot product.", "复数（complex number）与点积。")
    problems = zh_store.first_mention_problems(_pairs(bad))
    assert _rules(problems) == ["gloss-basic"]
    good = ("a", bad[1], "复数与点积。")
    assert zh_store.first_mention_problems(_pairs(good)) == []


def test_query_key_and_value_are_three_terms_each_glossed_once():
    unit = ("a", "The query, the key and the value.", "查询（query）、键（key）和值（value）。")
    assert zh_store.first_mention_problems(_pairs(unit)) == []


def test_a_parenthesis_that_is_not_a_gloss_is_not_a_second_gloss():
    first = ("a", "RoPE rotates.", "旋转位置编码（Rotary Position Embedding，RoPE）旋转。")
    later = ("b", "RoPE fields (rope type).", "决定了旋转位置编码（旋转部分、rope 类型）。")
    assert zh_store.first_mention_problems(_pairs(first, later)) == []


# --- the edition and the ratchet -------------------------------------------------------------


def _style_counts(page: Path) -> Counter:
    """Every rule's problems on a page before the ratchet."""
    saved = zh_rules.RATCHET
    zh_rules.RATCHET = {}
    try:
        problems = zh_store.check_page(page)
    finally:
        zh_rules.RATCHET = saved
    return Counter(r for r in _rules(problems) if r)


def test_the_ratchet_counts_are_exact():
    """A page of :data:`zh_rules.RATCHET` has exactly the problems it allows: one more fails
    ``check_page``; one fewer fails here, until the count is lowered (0: delete the entry)."""
    by_stem = {p.stem: p for p in PAGES}
    for stem, allowed in zh_rules.RATCHET.items():
        counts = _style_counts(by_stem[stem])
        assert {r: counts.get(r, 0) for r in allowed} == allowed, stem
        assert not set(counts) - set(allowed), (stem, counts)
        assert all(n > 0 for n in allowed.values()), f"{stem}: delete the rules at 0"


def test_the_ratchet_lets_no_new_problem_pass(tmp_path, monkeypatch):
    allowed = {"bei-reduction": 1}
    monkeypatch.setattr(zh_rules, "RATCHET", {"06_x": allowed})
    one = ["u: [bei-reduction] a", "u: [link-text] b"]
    assert zh_rules.ratcheted("06_x", one) == ["u: [link-text] b"]
    two = ["u: [bei-reduction] a", "v: [bei-reduction] c"]
    assert zh_rules.ratcheted("06_x", two) == two
    assert zh_rules.ratcheted("07_x", one) == one


@pytest.mark.parametrize("page", [p for p in PAGES if p.stem not in zh_rules.RATCHET],
                         ids=lambda p: p.stem)  # fmt: skip
def test_every_other_page_follows_every_rule(page):
    counts = _style_counts(page)
    assert not counts, f"{page.stem}: {dict(counts)}"


@pytest.mark.parametrize(
    ("bad", "good"),
    [
        ("以 $\\odot$ 表示逐位相乘（哈达码积）。", "以 $\\odot$ 表示逐位相乘（哈达玛积）。"),
        ("临界base 为 71,738。", "临界底数为 71,738。"),
        ("复数的幅角。", "复数的辐角。"),
        ("只构建一次 cos/sin 缓存。", "只构建一次 cos/sin 表。"),
        ("最大支持的上下文长度为 4,096。", "支持长度为 4,096。"),
        ("DeBERTa 的解耦注意力。", "DeBERTa 的解缠注意力。"),
    ],
)
def test_term_spelling(bad, good):
    """The glossary's canonical Chinese, never the sources' spelling or a retired one; the
    glossary page itself shows the sources' spellings."""
    assert _rules(zh_rules.unit_problems("00_x", "u1", bad)) == ["term-spelling"]
    assert zh_rules.unit_problems("00_x", "u1", good) == []
    assert zh_rules.unit_problems("glossary", "b003", bad) == []


def test_a_source_spelling_still_renders_its_term():
    """So a page that still writes the sources' spelling fails one rule, term-spelling, and
    not the term check as well."""
    english = "The critical base and the Hadamard elementwise form."
    assert zh_store.term_problems(english, "临界base 与哈达码积。") == []
    assert zh_store.term_problems(english, "临界底数与哈达玛积。") == []


def test_book_terms_are_enforced_like_any_row():
    """The glossary's "Book terms" (test-time, checkpoint, loss, explorable, kernel): one
    Chinese each, never glossed; a unit whose English means something else declares it."""
    from ropebook.glossary import book_term_rows

    assert {r.term for r in book_term_rows()} >= {
        "test-time",
        "checkpoint",
        "loss",
        "explorable",
        "kernel",
    }
    english = "The loss falls at test time; the explorable needs no kernel."
    bad = "损失在推理期下降；这个交互图不需要内核。"
    problems = zh_store.term_problems(english, bad)
    assert problems == ["[book-term] term 'kernel' not rendered as kernel or kernel"]
    declared = bad + "<!-- term kernel: 内核 -->"
    assert zh_store.term_problems(english, declared) == []
    assert _rules(zh_rules.unit_problems("00_x", "u1", declared)) == ["term-spelling"]  # 推理期
    good = "损失在测试阶段下降；这个交互图不需要内核。<!-- term kernel: 内核 -->"
    assert zh_store.term_problems(english, good) == []
    assert zh_rules.unit_problems("00_x", "u1", good) == []
    assert zh_store.term_problems("The loss falls.", "loss 下降。") == [
        "[book-term] term 'loss' not rendered as 损失"
    ]
    # a book term is never glossed
    problems = zh_store.first_mention_problems(_pairs(("a", english, "交互图（explorable）。")))
    assert _rules(problems) == ["gloss-basic"]


# --- the introduction names each chapter by the chapter's own title --------------------------

ITEM = re.compile(r"^ *(\d+[A-Z]?)\. \*\*([^*]+)\*\*", re.M)
#: Chapter titles still waiting for their page (held by another author): chapter -> the
#: title the chapter has now. Delete a line when the chapter's title matches the introduction.
PENDING_TITLES: dict[str, str] = {}


def _title_text(text: str) -> str:
    """A title as read: glosses and spaces dropped, $\\theta_i$ as θᵢ."""
    text = text.replace("$\\theta_i$", "θᵢ")
    text = re.sub(r"[（(][A-Za-z][A-Za-z' /,-]*[)）]", "", text)
    return re.sub(r"\s+", "", text)


def _chapter_titles(source: bool) -> dict[str, str]:
    """Chapter number -> its title, in English (``source``) or from the translation store."""
    titles = {}
    for page in PAGES:
        if page.suffix != ".ipynb" or not page.parent.name == "notebooks":
            continue
        english = next(u for u in zh_store.english_units(page) if u.text.lstrip().startswith("# "))
        text = (
            english.text
            if source
            else zh_store.read_store(zh_store.store_path(page))[english.key].text
        )
        number, title = re.match(r"#\s+(\d+[A-Z]?)\.\s+(.+)", text.strip().splitlines()[0]).groups()
        titles[number] = title
    return titles


def test_the_introduction_names_each_chapter_by_its_own_title():
    """Issue 34: where the English introduction names a chapter by its title, the Chinese
    introduction uses the chapter's own Chinese title (8A and 9 were translated twice)."""
    intro = ROOT / "book" / "intro.md"
    english_titles, chinese_titles = _chapter_titles(True), _chapter_titles(False)
    english_items = {n: t for u in zh_store.english_units(intro) for n, t in ITEM.findall(u.text)}
    store = zh_store.read_store(zh_store.store_path(intro))
    chinese_items = {n: t for tr in store.values() for n, t in ITEM.findall(tr.text)}
    same = [n for n, t in english_items.items() if _title_text(t) == _title_text(english_titles[n])]
    assert {"0", "1", "2", "3A", "4", "5", "8", "8A", "9"} <= set(same)
    differ = {
        n: _title_text(chinese_titles[n])
        for n in same
        if _title_text(chinese_items[n]) != _title_text(chinese_titles[n])
    }
    pending = {n: _title_text(t) for n, t in PENDING_TITLES.items() if n in same}
    assert differ == pending, "the introduction's Chinese names a chapter otherwise than its title"
