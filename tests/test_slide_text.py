"""The text of the slides, read without a browser (issue 33): sentences are split where a
sentence ends (never at "eq." or inside brackets or math), captions and the sentences under
equations are whole, and the speaker notes name each display equation in words inside its
sentence. The browser test ``tests/browser/test_slides.py`` checks the same decks as drawn."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from ropebook import build_slides
from ropebook.book_toc import toc_notebooks

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "RoFormer (eqs. 12 and 13, after Su's blog) proposes this. It works.",
            ["RoFormer (eqs. 12 and 13, after Su's blog) proposes this.", "It works."],
        ),
        (
            "As in RoFormer eq. 16, the score is relative. Next.",
            ["As in RoFormer eq. 16, the score is relative.", "Next."],
        ),
        (
            "Bases differ, e.g. Llama uses 500,000. Done!",
            ["Bases differ, e.g. Llama uses 500,000.", "Done!"],
        ),
        ("Su et al. (2024) prove it. Yes?", ["Su et al. (2024) prove it.", "Yes?"]),
        ("The angle is $m\\theta. 5$ here. Then", ["The angle is $m\\theta. 5$ here.", "Then"]),
        (
            "A caption (see the left panel. Right panel.) ends here.",
            ["A caption (see the left panel. Right panel.) ends here."],
        ),
    ],
)
def test_sentences_end_only_where_a_sentence_ends(text, expected):
    assert build_slides.sentences(text) == expected


def test_a_long_first_sentence_is_cut_at_its_colon_or_kept_whole():
    caption = (
        "The wavelength of every plane of LLaMA 2 (d = 128, base 10,000) against its training "
        "length: planes above the line never complete a turn within 4,096 tokens, which is "
        "why they cannot extrapolate."
    )
    assert build_slides.first_sentence(caption) == (
        "The wavelength of every plane of LLaMA 2 (d = 128, base 10,000) against its training "
        "length."
    )
    long = "A sentence " + "that goes on " * 20 + "and ends."
    assert build_slides.first_sentence(long) == " ".join(long.split())
    assert "…" not in build_slides.first_sentence(long)


def test_ends_sentence_refuses_abbreviations_and_open_ends():
    assert build_slides.ends_sentence("The score depends on m - n only.")
    assert build_slides.ends_sentence("It keeps every length (chapter 1).")
    assert not build_slides.ends_sentence("(RoFormer eq.")
    assert not build_slides.ends_sentence("as chapter 2 derived it")
    assert not build_slides.ends_sentence("so the score")


def notes_of(deck: build_slides.Deck, number: int) -> str:
    slide = deck.slides[number - 1]
    notes = re.search(r'<aside class="notes">(.*?)</aside>', slide, re.S).group(1)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", notes)).split())


@pytest.fixture(scope="module")
def decks(tmp_path_factory) -> dict[str, build_slides.Deck]:
    out = tmp_path_factory.mktemp("slides")
    return {
        path.stem: build_slides.ChapterDeck(path, out, build_slides.load_citations()).build()
        for path in toc_notebooks()
    }


def test_notes_name_the_equations_in_their_sentences(decks):
    """Chapter 2's solution slide: its notes say which equations are on the slide where the
    prose shows them ("proposes ... where the bar is"), never the prose with a hole in it."""
    notes = notes_of(decks["02_complex_derivation"], 3)
    assert "proposes equations (2.2) on the slide, where the bar is the complex conjugate" in notes
    assert "the equation on the slide." in notes
    for stem, deck in decks.items():
        for number in range(1, len(deck.slides) + 1):
            text = notes_of(deck, number)
            assert "$$" not in text and "\\[" not in text, (stem, number)
            assert not re.search(r"\b(proposes|is|gives|reads|apply)\s*$", text), (stem, number)


def test_chapter_2_shows_every_step_of_the_derivation(decks):
    titles = [
        re.search(r'class="slide-title">(.*?)</h[12]>', s, re.S).group(1)
        for s in decks["02_complex_derivation"].slides
    ]
    steps = [t.split(":")[0] for t in titles if t.startswith("Step ")]
    assert steps == ["Step 0", "Step 1", "Step 2", "Step 3", "Step 4"]


def test_the_code_chapter_shows_code_with_highlighted_lines(decks):
    code = [s for s in decks["03a_rope_in_code"].slides if 'class="slide-code"' in s]
    assert len(code) >= 4
    for slide in code:
        body = slide.split('<aside class="notes">')[0]
        lines = re.search(r'<pre class="code-slide"><code>(.*?)</code></pre>', body, re.S)
        assert lines is not None
        assert 3 <= lines.group(1).count("\n") <= 22
        assert '<span class="hll">' in lines.group(1)


def test_captions_are_short_whole_sentences(decks):
    for stem, deck in decks.items():
        for number, slide in enumerate(deck.slides, start=1):
            body = slide.split('<aside class="notes">')[0]
            for caption in re.findall(r"<figcaption>(.*?)</figcaption>", body, re.S):
                text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", caption)).split())
                assert not text.endswith(("…", "...")), (stem, number, text)
                assert build_slides.ends_sentence(text), (stem, number, text)
                # its number and one sentence: short enough for one or two lines under a figure
                assert len(text) <= 200, (stem, number, len(text), text)


def test_an_equation_number_in_brackets_is_printed_once():
    renderer = build_slides.Renderer({"eq-1a-polar": "(1A.1)"}, {})
    assert renderer.inline("a point of the circle ({eq}`eq-1a-polar`).") == (
        "a point of the circle (1A.1)."
    )


# --- the Chinese decks (issue 34) ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "分数只依赖于 $m - n$。它是相对的！对吗？",
            ["分数只依赖于 $m - n$。", "它是相对的！", "对吗？"],
        ),
        # a semicolon ends a sentence; a full stop inside a formula or brackets does not
        ("角度相加；模长相乘。", ["角度相加；", "模长相乘。"]),
        ("取 $x = 1。5$ 时成立。然后", ["取 $x = 1。5$ 时成立。", "然后"]),
        ("图注（左图。右图。）到此为止。", ["图注（左图。右图。）到此为止。"]),
        ("它写作“旋转。”下一句。", ["它写作“旋转。”", "下一句。"]),
    ],
)
def test_chinese_sentences_end_at_full_stops_and_semicolons(text, expected):
    assert build_slides.sentences(text) == expected


def test_a_chinese_first_sentence_is_whole_and_never_cut_with_an_ellipsis():
    assert build_slides.first_sentence("角度相加；模长相乘。") == "角度相加。"
    caption = (
        "LLaMA 2 每个子空间的周期与训练长度 4,096 的对比："
        + "线以上的子空间走不完一圈，" * 12
        + "所以不能外推。"
    )
    cut = build_slides.first_sentence(caption)
    assert cut == "LLaMA 2 每个子空间的周期与训练长度 4,096 的对比。"
    assert "…" not in build_slides.first_sentence("很长的一句" * 60 + "。")
    assert build_slides.ends_sentence("分数只依赖于 $m - n$。")
    assert build_slides.ends_sentence("它保持每个模长（第 1 章）。")
    assert not build_slides.ends_sentence("所以分数")


@pytest.fixture(scope="module")
def zh_decks(tmp_path_factory) -> dict[str, build_slides.Deck]:
    out = tmp_path_factory.mktemp("slides-zh")
    work = ROOT / "_build" / "zh-slides-test"  # (inside the repository, as export_figures reads)
    cites = build_slides.load_citations()
    return {
        path.stem: build_slides.ChapterDeck(
            build_slides.zh_notebook_file(path, work), out, cites, "zh"
        ).build()
        for path in toc_notebooks()
    }


def test_the_chinese_decks_have_the_english_decks_slides(decks, zh_decks):
    """The same slides from the same cells, in Chinese: the same count and cell of every slide,
    Chinese titles, the slides' metadata from book/zh/slides (chapter 2's steps), code as is."""
    cell = re.compile(r'data-cell="(\d+)"')
    for stem, deck in decks.items():
        chinese = zh_decks[stem]
        assert len(chinese.slides) == len(deck.slides), stem
        assert [cell.findall(s) for s in chinese.slides] == [cell.findall(s) for s in deck.slides]
    titles = [
        re.search(r'class="slide-title">(.*?)</h[12]>', s, re.S).group(1)
        for s in zh_decks["02_complex_derivation"].slides
    ]
    assert [t.split("：")[0] for t in titles if t.startswith("第 ")] == [
        "第 0 步",
        "第 1 步",
        "第 2 步",
        "第 3 步",
        "第 4 步",
    ]
    assert "第 2 章" in zh_decks["02_complex_derivation"].slides[0]
    leads = zh_decks["02_complex_derivation"].slides
    assert any("模长相乘、角度相加" in s for s in leads)  # a lead from book/zh/slides
    code = [s for s in zh_decks["03a_rope_in_code"].slides if 'class="slide-code"' in s]
    english = [s for s in decks["03a_rope_in_code"].slides if 'class="slide-code"' in s]
    pre = re.compile(r'<pre class="code-slide">.*?</pre>', re.S)
    assert [pre.findall(s) for s in code] == [pre.findall(s) for s in english]


def test_chinese_captions_and_leads_are_whole_chinese_sentences(zh_decks):
    for stem, deck in zh_decks.items():
        for number, slide in enumerate(deck.slides, start=1):
            body = slide.split('<aside class="notes">')[0]
            for caption in re.findall(r"<figcaption>(.*?)</figcaption>", body, re.S):
                text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", caption)).split())
                assert text.startswith("图 "), (stem, number, text)
                assert not text.endswith(("…", "...")), (stem, number, text)
                assert build_slides.ends_sentence(text), (stem, number, text)
            for lead in re.findall(r'<p class="meaning">(.*?)</p>', body, re.S):
                text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", lead)).split())
                assert build_slides.ends_sentence(text), (stem, number, text)
            assert "<!--" not in body, (stem, number)
