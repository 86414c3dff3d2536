"""The lecturer's kit in Chinese (issue 34), read from the built site's files.

* **Chinese decks**: ``slides/zh/`` holds a deck per chapter and the two lecture decks, each
  with its PDF, in Chinese (``<html lang="zh-CN">``), with the English deck's slides (the same
  cells); the English index lists them and the Chinese index links each one.
* **The kit menu in Chinese**: every page of the Chinese edition (``zh/``) carries the
  "讲师工具包" menu with Chinese labels: the Chinese PDF, the chapter's Chinese deck, the figures,
  the Chinese student edition and the teaching page; a chapter's "开始之前" box links its
  Chinese deck. The Chinese student edition (``student/zh/``) has the menu too, with the student
  PDF, the Chinese decks and the figures copied into ``student/``, and nothing from the
  instructor kit (no teaching page, no link out of ``student/``; ``tests/test_student_leaks.py``
  crawls it all).

The tests fail, never skip, when a part is missing (``make book`` builds it all).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from ropebook.book_toc import toc_docnames
from ropebook.kit import FIGURES_ARCHIVE, SLIDES_DIR, STUDENT_DIR, ZH_DIR, pdf_name

ROOT = Path(__file__).resolve().parents[1]


from tests.test_kit import link_target as target  # noqa: E402
from tests.test_kit import need, soup  # noqa: E402

SITE = Path(os.environ.get("ROPELAB_SITE", ROOT / "_build" / "html")).resolve()
DOCNAMES = toc_docnames()
CHAPTERS = [d for d in DOCNAMES if d.startswith("notebooks/")]
#: The menu's labels on a Chinese page, by item.
LABELS = {"pdf": "全书 PDF", "slides": "幻灯片", "figures": "全部图片", "student": "学生版"}
CJK = re.compile(r"[\u3400-\u9fff]")


def menu(page: Path) -> dict[str, tuple[str, Path]]:
    """The kit menu's items of a page: ``{item: (label, target file)}``."""
    found = {}
    for anchor in soup(page).select("a[class*='btn-kit-']"):
        name = re.search(r"btn-kit-([\w-]+)-button", " ".join(anchor["class"])).group(1)
        found[name] = (anchor.get_text(" ", strip=True), target(page, anchor["href"]))
    return found


# --- the Chinese decks ---------------------------------------------------------------------------


@pytest.mark.parametrize("docname", CHAPTERS, ids=lambda d: Path(d).name)
def test_each_chapter_has_a_chinese_deck_with_the_english_decks_slides(docname):
    stem = Path(docname).name
    english = need(SITE / SLIDES_DIR / f"{stem}.html").read_text(encoding="utf-8")
    deck = need(SITE / SLIDES_DIR / ZH_DIR / f"{stem}.html")
    chinese = deck.read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in chinese
    cells = re.compile(r'<section data-cell="(\d+)"')
    assert cells.findall(chinese) == cells.findall(english), stem
    titles = re.findall(r'class="slide-title">(.*?)</h[12]>', chinese, re.S)
    assert sum(bool(CJK.search(t)) for t in titles) >= len(titles) - 1, titles
    need(SITE / SLIDES_DIR / ZH_DIR / "pdf" / f"{stem}.pdf")
    for src in re.findall(r'<(?:img|script)[^>]+src="([^"]+)"', chinese):
        assert target(deck, src).is_file(), f"{stem}: {src} is missing"


def test_the_deck_indexes_list_the_chinese_decks():
    english = need(SITE / SLIDES_DIR / "index.html")
    chinese = need(SITE / SLIDES_DIR / ZH_DIR / "index.html")
    listed = {a["href"] for a in soup(english).select("ul.chapters-zh a")}
    own = {a["href"] for a in soup(chinese).select("li a")}
    for docname in CHAPTERS:
        stem = Path(docname).name
        assert f"{ZH_DIR}/{stem}.html" in listed and f"{stem}.html" in own, stem
    for n in (1, 2):
        assert f"lecture-{n}.html" in own
    for href in own:
        assert target(chinese, href).is_file(), href


# --- the kit menu in Chinese ---------------------------------------------------------------------


@pytest.mark.parametrize("docname", DOCNAMES, ids=lambda d: d.replace("/", "-"))
def test_every_chinese_page_has_the_kit_menu_in_chinese(docname):
    page = need(SITE / ZH_DIR / f"{docname}.html")
    items = menu(page)
    expected = {
        "pdf": SITE / pdf_name(ZH_DIR),
        "figures": SITE / FIGURES_ARCHIVE,
        "student": SITE / STUDENT_DIR / ZH_DIR / "index.html",
        "teaching": SITE / ZH_DIR / "book" / "teaching.html",
    }
    if docname in CHAPTERS:
        expected["slides"] = SITE / SLIDES_DIR / ZH_DIR / f"{Path(docname).name}.html"
    assert {k: v[1] for k, v in items.items()} == {k: v.resolve() for k, v in expected.items()}
    for name, (label, path) in items.items():
        assert path.is_file(), f"{docname}: {name} -> {path}"
        assert CJK.search(label), f"{docname}: the {name} item reads {label!r}"
        assert label.startswith(LABELS.get(name, "用本书授课")), (name, label)
    assert "讲师工具包" in page.read_text(encoding="utf-8")
    assert "Lecturer's kit" not in page.read_text(encoding="utf-8")


@pytest.mark.parametrize("docname", CHAPTERS, ids=lambda d: Path(d).name)
def test_a_chinese_chapter_box_links_its_chinese_deck(docname):
    page = need(SITE / ZH_DIR / f"{docname}.html")
    links = soup(page).select(".kit-slides-link a")
    assert len(links) == 1 and links[0].get_text(strip=True) == "本章幻灯片", docname
    deck = SITE / SLIDES_DIR / ZH_DIR / f"{Path(docname).name}.html"
    assert target(page, links[0]["href"]) == deck.resolve()


@pytest.mark.parametrize("docname", DOCNAMES, ids=lambda d: d.replace("/", "-"))
def test_the_chinese_student_pages_menu_stays_inside_the_student_edition(docname):
    student = SITE / STUDENT_DIR
    page = need(student / ZH_DIR / f"{docname}.html")
    items = menu(page)
    expected = {"pdf": student / pdf_name("student"), "figures": student / FIGURES_ARCHIVE}
    if docname in CHAPTERS:
        expected["slides"] = student / SLIDES_DIR / ZH_DIR / f"{Path(docname).name}.html"
    assert {k: v[1] for k, v in items.items()} == {k: v.resolve() for k, v in expected.items()}
    for name, (label, path) in items.items():
        assert path.is_file() and path.is_relative_to(student.resolve()), (name, path)
        assert CJK.search(label), (name, label)


# --- the Chinese decks as PPTX (make pptx; LibreOffice converts the English ones only) -------


def test_every_chinese_deck_has_its_pptx_with_every_slide_text_and_notes():
    from ropebook.export_pptx import PPTX_DIR
    from tests.test_pptx import KIT, pptx_problems

    slides = need(KIT / SLIDES_DIR / ZH_DIR)
    decks = sorted(p for p in slides.glob("*.html") if p.name != "index.html")
    assert len(decks) >= len(CHAPTERS) + 2
    problems = []
    for deck in decks:
        pptx = need(slides / PPTX_DIR / f"{deck.stem}.pptx")
        problems += [f"{deck.stem}: {p}" for p in pptx_problems(deck, pptx)]
    assert problems == [], "\n".join(problems)
    index = (slides / "index.html").read_text(encoding="utf-8")
    assert "每套幻灯片也有 PPTX" in index and f'href="{PPTX_DIR}/lecture-1.pptx"' in index
