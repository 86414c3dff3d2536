"""A reveal.js deck per chapter, from the cells the chapter tags ``slide`` (issues 18 and 28).

The deck of a chapter is a title slide, one slide per cell tagged ``slide`` in notebook order,
and the chapter's "What to remember" box when it did not tag it. Each is a slide a lecturer
shows as it is, on a 16:9 screen (1280 x 720):

* **a title**: the cell's ``slide-title`` metadata, else its own heading, else the heading of
  the section it sits in (the title slide: the chapter's number and title);
* **a figure** fills the slide's free area (``ropelab-slides.css``: the image takes every pixel
  the title and a one-line caption leave) with the first sentence of its numbered caption; the
  whole caption goes to the notes;
* **an equation** (a markdown cell whose display math carries it) is shown large, with the
  sentence that says what it means; the rest of its prose goes to the notes;
* **text** keeps its first paragraphs, up to what a slide holds (``TEXT_BUDGET`` characters);
  the rest goes to the notes;
* **speaker notes** (reveal.js's ``<aside class="notes">``, the S key) on every slide: the
  chapter's prose next to the tagged cell (the paragraphs just before it and the one just
  after), what was moved off the slide, and the code of a figure; each display equation is
  named in words inside its sentence ("proposes equations (2.2) on the slide, where ...");
* **whole sentences** (issue 33): a caption or a lead-in is cut at a sentence's end, never at
  an abbreviation ("eq.", "e.g."), inside brackets or math, or with "…"; where the chapter's
  prose does not make a good slide, the tagged cell's ``slide`` metadata says what to show
  (:data:`SLIDE_KEY`: a title, a lead sentence, notes, one slide per step of a derivation,
  short code with the lines that matter highlighted), so the notebook stays the one source;
* **one explorable per deck**, live (``ropelab-explore.js``): the first tagged one; a later one
  shows its static twin (the ``print-only`` figure after it) instead.

A chapter that tags no cell yet gets a deck made of its learning objectives, its captioned
figures, its first explorable and its summary. The two lectures of the teaching page's
two-lecture path get a deck each (``lecture-1.html``, ``lecture-2.html``;
:func:`lecture_decks`), made of the chapters' slides of the core sections they take. Every
deck is also printed to PDF (``slides/pdf/<chapter>.pdf``, reveal.js's print layout, one page
per slide, through headless Chromium: ``--pdf``, which ``make slides`` passes), and then
checked slide by slide as a lecturer would (``tools/slide_checks.py``: ``checks.json``) and
drawn into a contact sheet (``slides/contact/<deck>.png``).

Everything a deck needs is copied next to it, so the folder works offline and on its own
(opened from the site, from a file manager or from a USB stick)::

    slides/index.html                       the list of decks (and their PDFs)
    slides/05_long_range_decay.html         one deck per chapter of _toc.yml
    slides/lecture-1.html, lecture-2.html   the two-lecture path's decks
    slides/pdf/05_long_range_decay.pdf      the same deck as a PDF
    slides/img/05_long_range_decay-9.png    the figures (cell 9)
    slides/vendor/reveal/                   reveal.js (npm, the committed package-lock.json)
    slides/vendor/mathjax/                  MathJax (make assets: vendor/mathjax)
    slides/vendor/ropelab-explore.js        the explorables' script (ropelab.explorables)
    slides/ropelab-slides.css, .js          the decks' style; fit-to-slide and start-up
    slides/contact/05_long_range_decay.png  every slide of the deck on one sheet (--pdf)
    slides/checks.json                      what tools/slide_checks.py found (--pdf)

    .venv/bin/python tools/build_slides.py --pdf               # -> _build/kit/slides/
    .venv/bin/python tools/build_slides.py --out /tmp/slides notebooks/05_long_range_decay.ipynb

``make slides`` runs it (after ``make assets``); the site build copies the folder into the site
(``src/ropebook/ext/lecturer_kit.py``) and each chapter page links to its deck.
"""

from __future__ import annotations

import argparse
import base64
import html
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
from markdown_it import MarkdownIt
from mdit_py_plugins.amsmath import amsmath_plugin
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.myst_role import myst_role_plugin

from ropebook import ROOT
from ropebook.book_toc import toc_notebooks
from ropebook.export_figures import book_figures, chapter_of, png_size
from ropebook.kit import META_CLASS, REMEMBER_CLASS, SLIDE_TAG

DEFAULT_OUT = ROOT / "_build" / "kit" / "slides"
REVEAL = ROOT / "node_modules" / "reveal.js" / "dist"
MATHJAX = ROOT / "vendor" / "mathjax"
ASSETS = ROOT / "book" / "slides"
BIB = ROOT / "book" / "references.bib"
BOOK_TITLE = "RoPE, derived and run"
#: The slide, in reveal.js's layout pixels (16:9); ropelab-slides.js and .css use the same.
SLIDE_WIDTH, SLIDE_HEIGHT = 1280, 720
#: Characters of prose a text slide keeps on screen; what follows goes to the notes.
TEXT_BUDGET = 650
#: Characters of the chapter's prose the notes take from around a slide's cell.
NOTES_BUDGET = 2400
#: A figure narrower than this (width / height) puts its caption beside it, not under it:
#: drawn under the title, it keeps the slide's whole height.
SIDE_CAPTION_ASPECT = 1.45
#: Cell metadata that names a slide (else its heading, else its section's).
SLIDE_TITLE_KEY = "slide-title"
#: Cell metadata written for the slides, where text made from the chapter's prose does not
#: read well on a projector: a dict (or a list of dicts, one slide each) with
#: ``title``; ``lead`` (markdown: the sentence under an equation, a text slide's text, a
#: figure's short caption, the line above code); ``notes`` (markdown, the speaker notes);
#: ``part`` (the slide shows the part of the cell under the heading that starts so: one slide
#: a derivation step); ``code`` (``{"cell": <cell id>, "lines": [first, last],
#: "highlight": [line, ...]}``: that cell's code, lines numbered from 1, the ones that matter
#: highlighted).
SLIDE_KEY = "slide"
SLIDE_FIELDS = {"title", "lead", "notes", "part", "code"}
HEADING = re.compile(r"^(#{1,4})\s+(.+?)\s*#*\s*$", re.M)
SECTION_HEADING = re.compile(r"^##\s+(.+?)\s*#*\s*$", re.M)
#: The course marker of a section (issue 31): the metadata of the cell that opens the ``##``
#: section, ``{"ropelab": {"course": "core" | "optional"}}``, which tools/course_path.py reads too.
COURSE_KEY = "ropelab"

#: ```{directive} argument  and  :::{directive} argument
DIRECTIVE = re.compile(r"^\{([\w:-]+)\}\s*(.*)$")
LABELLED_DMATH = re.compile(r"\$\$\s*\(([^)\s]+)\)")
MATH_LABEL_OPTION = re.compile(r"```\{math\}[^\n]*\n(?::[\w-]+:[^\n]*\n)*?:label:\s*(\S+)")
EXERCISE_LABEL = re.compile(r"[`:]{3,}\{exercise\}[^\n]*\n(?::[\w-]+:[^\n]*\n)*?:label:\s*(\S+)")
#: An equation's number inside the prose's own brackets.
EQUATION_IN_BRACKETS = re.compile(r"\(\((\d+[A-Z]?\.\d+)\)\)")
#: In a deck printed to PDF, every link into the site loses its target (the text stays).
UNLINK_RELATIVE = """() => document.querySelectorAll('a[href]').forEach((a) => {
  const href = a.getAttribute('href');
  if (!/^([a-z][a-z0-9+.-]*:|#)/i.test(href)) a.removeAttribute('href');
})"""

ADMONITIONS = {"note", "tip", "hint", "important", "warning", "caution", "attention", "seealso"}

#: The Chinese decks (issue 34): ``slides/zh/`` beside the English ones, made from the same
#: cells with the Chinese edition's text (``tools/build_zh.py``'s notebooks: every markdown
#: cell and caption from the store ``book/zh/``) and the slides' metadata from
#: ``book/zh/slides/<page stem>.md`` (``tools/zh_store.py``); code, outputs and figures as
#: they are.
ZH_DIR = "zh"
#: Everything a deck writes in its own words, by language.
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "html_lang": "en",
        "figure": "Figure {n}",
        "exercise": "Exercise {n}",
        "exercise_bare": "Exercise",
        "figure_label": "<strong>Figure {n}:</strong> ",
        "chapter": "Chapter {n}",
        "in_session": "In this session",
        "chapter_link": "The chapter in the book",
        "remember": "What to remember",
        "objectives": "learning objectives",
        "summary": "summary",
        "optional_note": "Optional section ({section}): the one- and two-lecture paths of the"
        " teaching page leave it out.",
        "eq_one": "equation {n}",
        "eq_many": "equations {n}",
        "eq_bare_one": "the equation",
        "eq_bare_many": "the equations",
        "on_slide": "{what} on the slide",
        "in_chapter": "{what} in the chapter",
        "see": "See {name}.",
        "slides": "slides",
        "page_title": "{title}: slides",
    },
    "zh": {
        "html_lang": "zh-CN",
        "figure": "图 {n}",
        "exercise": "练习 {n}",
        "exercise_bare": "练习",
        "figure_label": "<strong>图 {n}：</strong>",
        "chapter": "第 {n} 章",
        "in_session": "本讲内容",
        "chapter_link": "书中的这一章",
        "remember": "要点回顾",
        "objectives": "学习目标",
        "summary": "小结",
        "optional_note": "选讲小节（{section}）：教学页的一次课和两次课方案不讲这一节。",
        "eq_one": "式 {n}",
        "eq_many": "式 {n}",
        "eq_bare_one": "公式",
        "eq_bare_many": "这组公式",
        "on_slide": "幻灯片上的{what}",
        "in_chapter": "书中的{what}",
        "see": "见{name}。",
        "slides": "幻灯片",
        "page_title": "{title}：幻灯片",
    },
}
#: The admonitions' titles in Chinese (as the Chinese site shows them).
ADMONITIONS_ZH = {
    "note": "备注",
    "tip": "提示",
    "hint": "提示",
    "important": "重要",
    "warning": "警告",
    "caution": "小心",
    "attention": "注意",
    "seealso": "参见",
}
#: A block that is only an HTML comment.
COMMENT = re.compile(r"<!--.*?-->", re.S)
#: A Chinese character (the Chinese decks' sentences end at 。！？；).
CJK = re.compile(r"[\u3400-\u9fff]")
#: A term's English in parentheses after its Chinese, 外推（extrapolation）: the deck's titles
#: drop it (a gloss belongs in the prose, not on a slide's title).
GLOSS = re.compile(r"（[A-Za-z][A-Za-z' /,，、-]*）")


def book_title(lang: str = "en") -> str:
    """The book's title in the deck's language (the Chinese edition's: ``build_zh.zh_title``)."""
    if lang == "en":
        return BOOK_TITLE
    from ropebook.build_zh import zh_title

    return zh_title()


# --- labels, numbers and citations --------------------------------------------------------


def chapter_labels(
    notebook: nbformat.NotebookNode, chapter: str, lang: str = "en"
) -> dict[str, str]:
    """What ``{numref}``/``{ref}``/``{eq}`` print for the chapter's labels: "Figure 5.2",
    "Exercise 5.1", "(5.3)" (the book's per-chapter numbers, in notebook order; "图 5.2",
    "练习 5.1" in Chinese)."""
    words = WORDS[lang]
    labels: dict[str, str] = {}
    equations = exercises = figures = 0
    for cell in notebook.cells:
        if cell.cell_type == "code":
            meta = (cell.metadata.get("mystnb") or {}).get("figure") or {}
            if meta.get("caption"):
                figures += 1
                if meta.get("name"):
                    labels[meta["name"]] = words["figure"].format(n=f"{chapter}.{figures}")
            continue
        source = cell.source
        for match in sorted(
            [*LABELLED_DMATH.finditer(source), *MATH_LABEL_OPTION.finditer(source)],
            key=lambda m: m.start(),
        ):
            equations += 1
            labels[match.group(1)] = f"({chapter}.{equations})"
        for match in EXERCISE_LABEL.finditer(source):
            exercises += 1
            labels[match.group(1)] = words["exercise"].format(n=f"{chapter}.{exercises}")
    return labels


def load_citations(path: Path = BIB) -> dict[str, tuple[str, str]]:
    """``key -> ("Su et al.", "2024")`` from the book's BibTeX file."""
    from pybtex.database import parse_file

    cites: dict[str, tuple[str, str]] = {}
    for key, entry in parse_file(str(path)).entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        if not people:
            who = entry.fields.get("organization") or entry.fields.get("title", key)
        else:
            last = " ".join(people[0].last_names).replace("{", "").replace("}", "")
            who = (
                last
                if len(people) == 1
                else (
                    f"{last} and {' '.join(people[1].last_names)}"
                    if len(people) == 2
                    else f"{last} et al."
                )
            )
        cites[key] = (who.replace("{", "").replace("}", ""), entry.fields.get("year", ""))
    return cites


# --- markdown to HTML ---------------------------------------------------------------------


@dataclass
class Renderer:
    """MyST markdown of one chapter to HTML for a slide (math left to MathJax)."""

    labels: dict[str, str]
    cites: dict[str, tuple[str, str]]
    lang: str = "en"
    #: The site's root seen from the deck (the English decks: ``../``; the Chinese decks,
    #: ``slides/zh/``, link the Chinese pages: ``../../zh/``).
    site: str = "../"
    md: MarkdownIt = field(init=False)

    def __post_init__(self) -> None:
        md = (
            MarkdownIt("commonmark", {"html": True})
            .enable("table")
            .enable("strikethrough")
            .use(dollarmath_plugin, allow_labels=True, allow_space=True, double_inline=True)
            .use(amsmath_plugin)
            .use(myst_role_plugin)
            .use(colon_fence_plugin)
        )
        md.renderer.rules["math_inline"] = self._math_inline
        md.renderer.rules["math_inline_double"] = self._math_block
        md.renderer.rules["math_block"] = self._math_block
        md.renderer.rules["math_block_label"] = self._math_block
        md.renderer.rules["amsmath"] = self._amsmath
        md.renderer.rules["myst_role"] = self._role
        md.renderer.rules["fence"] = self._fence
        md.renderer.rules["colon_fence"] = self._fence
        md.renderer.rules["link_open"] = self._link_open
        self.md = md

    def render(self, text: str) -> str:
        # (a translation's comments, <!-- term plane: 平面 -->, are for the checks: not shown)
        return single_brackets(self.md.render(COMMENT.sub("", text)))

    def inline(self, text: str) -> str:
        return single_brackets(self.md.renderInline(COMMENT.sub("", text)))

    def _link_open(self, tokens: Any, idx: int, options: Any, env: Any) -> str:
        """A link to a page of the book (``../book/notation.md``, ``04_theta_spectrum.ipynb``)
        goes to its HTML page, which the deck reaches as the notebook did: ``slides/`` and
        ``notebooks/`` are siblings in the site."""
        token = tokens[idx]
        href = token.attrGet("href") or ""
        if not re.match(r"^[a-z][a-z0-9+.-]*:|^#", href, re.I):
            page, _, anchor = href.partition("#")
            page = re.sub(r"\.(md|ipynb)$", ".html", page)
            if page and "/" not in page:
                page = f"{self.site}notebooks/{page}"
            elif page.startswith("../"):
                page = self.site + page[3:]
            token.attrSet("href", page + (f"#{anchor}" if anchor else ""))
        return self.md.renderer.renderToken(tokens, idx, options, env)

    # math: the delimiters MathJax is configured for, inside elements of class "math"
    def _math_inline(self, tokens: Any, idx: int, options: Any, env: Any) -> str:
        return f'<span class="math">\\({html.escape(tokens[idx].content)}\\)</span>'

    def _math_block(self, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        number = self.labels.get(token.info, "") if token.info else ""
        tag = f'<span class="eqno">{number}</span>' if number else ""
        return f'<div class="math">\\[{html.escape(token.content.strip())}\\]{tag}</div>\n'

    def _amsmath(self, tokens: Any, idx: int, options: Any, env: Any) -> str:
        return f'<div class="math">{html.escape(tokens[idx].content)}</div>\n'

    def _role(self, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        name, content = token.meta.get("name", ""), token.content
        explicit = re.match(r"^(.*?)\s*<([^>]+)>$", content, re.S)
        text, target = (explicit.group(1), explicit.group(2)) if explicit else ("", content)
        if name == "math":
            return f'<span class="math">\\({html.escape(content)}\\)</span>'
        if name in ("numref", "ref", "eq", "numref:figure"):
            shown = text or self.labels.get(target, "")
            if name == "numref" and text and "%s" in text:
                shown = text.replace("%s", self.labels.get(target, "?").split(" ")[-1])
            return html.escape(shown or target)
        if name.startswith("cite"):
            keys = [k.strip() for k in content.split(",")]
            found = [self.cites.get(k, (k, "")) for k in keys]
            if name in ("cite:t", "cite:ts"):
                return html.escape("; ".join(f"{who} ({year})" for who, year in found))
            return html.escape("(" + "; ".join(f"{who}, {year}" for who, year in found) + ")")
        if name in ("doc", "download", "term", "abbr", "sub", "sup"):
            return html.escape(text or target)
        return f"<code>{html.escape(content)}</code>"

    def _fence(self, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        match = DIRECTIVE.match(token.info.strip())
        if not match:
            return f"<pre><code>{html.escape(token.content)}</code></pre>\n"
        name, argument = match.group(1), match.group(2).strip()
        options_, body = parse_options(token.content)
        classes = options_.get("class", "").split()
        if name == "math":
            number = self.labels.get(options_.get("label", ""), "")
            tag = f'<span class="eqno">{number}</span>' if number else ""
            return f'<div class="math">\\[{html.escape(body.strip())}\\]{tag}</div>\n'
        if name in ("code-cell", "code-block", "code", "sourcecode"):
            return f"<pre><code>{html.escape(body)}</code></pre>\n"
        if name in ("solution", "margin", "only", "bibliography", "toctree"):
            return ""
        if name == "exercise":
            label = options_.get("label", "")
            number = self.labels.get(label, WORDS[self.lang]["exercise_bare"])
            title = f"{number} ({self.inline(argument)})" if argument else number
            return self._box(["exercise", *classes], title, body)
        if name == "admonition" or name in ADMONITIONS:
            title = (
                self.inline(argument)
                if name == "admonition"
                else (ADMONITIONS_ZH[name] if self.lang == "zh" else name.capitalize())
            )
            return self._box([name, *classes], title, body)
        return f'<div class="directive-{html.escape(name)}">{self.render(body)}</div>\n'

    def _box(self, classes: list[str], title: str, body: str) -> str:
        names = " ".join(html.escape(c) for c in ["admonition", *classes])
        return (
            f'<div class="{names}"><p class="admonition-title">{title}</p>'
            f"{self.render(body)}</div>\n"
        )


def single_brackets(rendered: str) -> str:
    """An equation number the prose puts in brackets, "({eq}`…`)", printed once: "(1A.1)",
    not "((1A.1))"."""
    return EQUATION_IN_BRACKETS.sub(r"(\1)", rendered)


def parse_options(content: str) -> tuple[dict[str, str], str]:
    """``:key: value`` lines at the start of a directive's body, and the rest."""
    options: dict[str, str] = {}
    lines = content.splitlines()
    index = 0
    while index < len(lines) and lines[index].startswith(":"):
        match = re.match(r"^:([\w-]+):\s*(.*)$", lines[index])
        if not match:
            break
        options[match.group(1)] = match.group(2)
        index += 1
    return options, "\n".join(lines[index:])


# --- cells to slides ----------------------------------------------------------------------


def source_text(value: Any) -> str:
    return value if isinstance(value, str) else "".join(value)


def is_explorable(cell: nbformat.NotebookNode) -> bool:
    return any(
        "ropelab-explorable" in source_text(o.get("data", {}).get("text/html", ""))
        for o in cell.get("outputs", [])
    )


def admonition_cell(cell: nbformat.NotebookNode, css_class: str) -> bool:
    return (
        cell.cell_type == "markdown"
        and re.search(rf"^:class:\s*.*\b{re.escape(css_class)}\b", cell.source, re.M) is not None
    )


def slide_specs(cell: nbformat.NotebookNode) -> list[dict[str, Any]]:
    """What the cell's ``slide`` metadata asks of its slides: one dict a slide (a list makes
    one cell several slides), ``[{}]`` when it has none (:data:`SLIDE_KEY`)."""
    given = cell.metadata.get(SLIDE_KEY)
    if given is None:
        return [{}]
    specs = given if isinstance(given, list) else [given]
    for spec in specs:
        unknown = set(spec) - SLIDE_FIELDS
        if unknown:
            raise ValueError(
                f"slide metadata: unknown keys {sorted(unknown)} (allowed: {sorted(SLIDE_FIELDS)})"
            )
    return specs


def part_of(source: str, part: str) -> tuple[str, str]:
    """The heading that starts with ``part`` in a markdown cell, and the text under it up to
    the next heading."""
    lines = source.splitlines()
    for i, line in enumerate(lines):
        found = HEADING.match(line)
        if found and found.group(2).startswith(part):
            end = next((j for j in range(i + 1, len(lines)) if HEADING.match(lines[j])), None)
            return found.group(2), "\n".join(lines[i + 1 : end]).strip("\n")
    raise ValueError(f"slide metadata: no heading starting {part!r} in the cell")


def heading_of(cell: nbformat.NotebookNode) -> str | None:
    match = re.match(r"\s*#{1,3}\s+([^\n]+)", cell.source)
    return match.group(1).strip() if match else None


def split_blocks(markdown: str) -> list[str]:
    """A markdown cell's blocks (paragraphs, lists, tables, display math, directives), split at
    blank lines outside fenced blocks (``` ::: $$)."""
    blocks: list[list[str]] = [[]]
    fence: str | None = None
    for line in markdown.splitlines():
        stripped = line.strip()
        if fence is None:
            if not stripped:
                if blocks[-1]:
                    blocks.append([])
                continue
            blocks[-1].append(line)
            opener = re.match(r"^(`{3,}|:{3,}|\$\$)", stripped)
            if opener and not (opener.group(1) == "$$" and stripped.count("$$") >= 2):
                fence = opener.group(1)
        else:
            blocks[-1].append(line)
            if stripped.startswith(fence):
                fence = None
    return ["\n".join(b) for b in blocks if b]


def is_display_math(block: str) -> bool:
    stripped = block.strip()
    return stripped.startswith("$$") or stripped.startswith("```{math}")


def prose_length(block: str) -> int:
    """How much a block fills a slide: its characters, display math counted as two lines."""
    return 160 if is_display_math(block) else len(block)


#: Words an abbreviation's full stop follows: no sentence ends there ("RoFormer eq. 16",
#: "e.g. Llama", "Su et al. (2024)").
ABBREVIATIONS = re.compile(r"\b(?:[Ee]qs?|e\.g|i\.e|cf|[Ff]igs?|vs|resp|approx|ch|[Ss]ec|al)\.$")
#: What hides a full stop from sentence splitting: math, code, a role's target.
OPAQUE = re.compile(r"\$\$.+?\$\$|\$[^$]+\$|`[^`]*`|\{[\w:-]+\}`[^`]*`")


#: Where a Chinese sentence ends (outside brackets and math): 。！？ and the semicolon ；.
ZH_STOPS = "。！？；"


def sentences(text: str) -> list[str]:
    """``text`` split into its sentences: at ``.``, ``!`` or ``?`` followed by a space or the
    end, outside brackets, math and code, and not after an abbreviation (:data:`ABBREVIATIONS`);
    in Chinese at 。！？； (:data:`ZH_STOPS`), outside brackets (（）too), math and code.
    """
    flat = " ".join(text.split())
    masked = OPAQUE.sub(lambda m: "x" * len(m.group(0)), flat)
    found, start, depth = [], 0, 0
    for i, ch in enumerate(masked):
        if ch in "([（【":
            depth += 1
        elif ch in ")]）】":
            depth = max(0, depth - 1)
        elif ch in ZH_STOPS and depth == 0:
            end = i + 1
            while end < len(masked) and masked[end] in "”’」*":
                end += 1
            found.append(flat[start:end].strip())
            start = end
        elif ch in ".!?" and depth == 0 and (i + 1 == len(masked) or masked[i + 1] == " "):
            if ch == "." and ABBREVIATIONS.search(masked[start : i + 1]):
                continue
            end = i + 1
            while end < len(masked) and masked[end] in "\"'”’*":
                end += 1
            found.append(flat[start:end].strip())
            start = end
    if flat[start:].strip():
        found.append(flat[start:].strip())
    return found


def ends_sentence(text: str) -> bool:
    """Whether ``text`` ends where a sentence ends (a full stop that no abbreviation took)."""
    core = re.sub(r"[\"'”’」*)\]]+$", "", " ".join(text.split()))
    if re.search(r"[。！？]$", core):
        return True
    return bool(re.search(r"[.!?]$", core)) and not ABBREVIATIONS.search(core)


def first_sentence(text: str, limit: int = 150) -> str:
    """The first sentence of ``text`` (a caption, a paragraph), whole. One longer than
    ``limit`` characters that opens with a clause ended by a colon ("The wavelength of every
    plane against its training length: ...") gives that clause, as a sentence of its own;
    otherwise it is kept whole (a slide never shows a sentence cut at a word)."""
    found = sentences(text)
    sentence = found[0] if found else ""
    chinese = CJK.search(sentence) is not None
    if chinese and sentence.endswith("；"):
        # a Chinese sentence cut at its semicolon is shown as the sentence it is
        sentence = sentence[:-1] + "。"
    if len(sentence) > limit:
        masked = OPAQUE.sub(lambda m: "x" * len(m.group(0)), sentence)
        clause = (
            re.match(r"(.{20,}?)：", masked) if chinese else re.match(r"(.{40,}?):(\s|$)", masked)
        )
        if clause and clause.group(1).count("(") == clause.group(1).count(")"):
            end = "。" if chinese else "."
            sentence = sentence[: len(clause.group(1))].rstrip(",;，；") + end
    return sentence


@dataclass
class Slide:
    """One slide: the cell it comes from, its title, body and notes (HTML)."""

    cell: int
    title: str
    body: str
    notes: str
    kind: str  #: "text", "equation", "figure", "output", "explorable", "closing"
    course: str = ""  #: its section's marker, "core" or "optional" ("" outside a section)
    section: str = ""  #: the title of the ``##`` section it belongs to

    def html(self) -> str:
        course = (
            f' data-course="{self.course}" data-section="{html.escape(self.section)}"'
            if self.course
            else ""
        )
        return (
            f'<section data-cell="{self.cell}"{course} class="slide-{self.kind}">\n'
            f'<h2 class="slide-title">{self.title}</h2>\n'
            f'<div class="slide-body">\n{self.body}\n</div>\n'
            f'<aside class="notes">{self.notes}</aside>\n</section>'
        )


@dataclass
class Deck:
    stem: str
    chapter: str
    title: str
    slides: list[str]
    explorables: int
    figures: int
    tagged: int
    meta_html: str = ""


class ChapterDeck:
    """The slides of one chapter notebook."""

    def __init__(self, path: Path, out: Path, cites: dict[str, tuple[str, str]], lang: str = "en"):
        self.path = path
        self.out = out
        self.lang = lang
        self.words = WORDS[lang]
        self.notebook = nbformat.read(path, as_version=4)
        self.chapter, self.title = chapter_of(self.notebook)
        if lang != "en":
            self.title = GLOSS.sub("", self.title)
        self.labels = chapter_labels(self.notebook, self.chapter, lang)
        self.site = "../" if lang == "en" else f"../../{ZH_DIR}/"
        self.renderer = Renderer(self.labels, cites, lang, self.site)
        every_figure = book_figures(path)
        self.figures = {f.cell: f for f in every_figure if f.number}
        self.figure_cells = {f.cell for f in every_figure}
        self.live_explorables = 0

    def tagged_cells(self) -> list[int]:
        return [
            i
            for i, cell in enumerate(self.notebook.cells)
            if SLIDE_TAG in cell.metadata.get("tags", [])
        ]

    def default_cells(self) -> list[int]:
        """A chapter that tags nothing yet: objectives, captioned figures, one explorable,
        summary (in notebook order)."""
        chosen: list[int] = []
        explorable_seen = False
        for i, cell in enumerate(self.notebook.cells):
            heading = (heading_of(cell) or "").lower() if cell.cell_type == "markdown" else ""
            if heading in (self.words["objectives"], self.words["summary"]):
                chosen.append(i)
            elif cell.cell_type == "code" and i in self.figure_cells and len(chosen) < 12:
                chosen.append(i)
            elif cell.cell_type == "code" and is_explorable(cell) and not explorable_seen:
                chosen.append(i)
                explorable_seen = True
        return chosen

    # --- titles and notes

    def section_marker(self, index: int) -> tuple[str, str]:
        """The ``##`` section cell ``index`` sits in: its title (plain text) and its course
        marker, ``("", "")`` before the first section."""
        for i in range(index, -1, -1):
            cell = self.notebook.cells[i]
            if cell.cell_type != "markdown":
                continue
            headings = SECTION_HEADING.findall(cell.source)
            if headings:
                course = cell.metadata.get(COURSE_KEY, {}).get("course", "")
                return headings[-1], str(course)
        return "", ""

    def marked(self, slide: Slide) -> Slide:
        """The slide with its section's course marker; an optional section's slide says so in
        its notes (the deck shows a tag, and ``?core`` leaves it out)."""
        slide.section, slide.course = self.section_marker(slide.cell)
        if slide.course == "optional":
            note = self.words["optional_note"].format(section=html.escape(slide.section))
            slide.notes = f'<p class="course-note"><em>{note}</em></p>\n' + slide.notes
        return slide

    def section_title(self, index: int) -> str:
        """The heading of the section cell ``index`` sits in (its own first, when it starts
        with one), as HTML."""
        cell = self.notebook.cells[index]
        given = cell.metadata.get(SLIDE_TITLE_KEY)
        if given:
            return self.renderer.inline(str(given))
        for i in range(index, -1, -1):
            candidate = self.notebook.cells[i]
            if candidate.cell_type != "markdown":
                continue
            headings = [m.group(2) for m in HEADING.finditer(candidate.source)]
            if i == index:
                own = HEADING.match(candidate.source.lstrip())
                if own:
                    return self.renderer.inline(own.group(2))
                continue
            if headings:
                level_one = re.match(r"^#\s", candidate.source.lstrip())
                if level_one and len(headings) == 1:
                    break  # the chapter's title: a slide needs a more specific one
                return self.renderer.inline(headings[-1])
        return html.escape(f"{self.chapter}. ") + self.renderer.inline(self.title)

    def is_prose(self, index: int) -> bool:
        if not 0 <= index < len(self.notebook.cells):
            return False
        cell = self.notebook.cells[index]
        tags = cell.metadata.get("tags", [])
        return (
            cell.cell_type == "markdown"
            and SLIDE_TAG not in tags
            and not admonition_cell(cell, META_CLASS)
            and not admonition_cell(cell, REMEMBER_CLASS)
            and "{exercise}" not in cell.source
            and "{solution" not in cell.source
        )

    def nearby_prose(self, index: int) -> list[str]:
        """The chapter's prose next to cell ``index``: the markdown cells just before it (up
        to the previous code cell or heading) and the one just after it."""
        before: list[str] = []
        i = index - 1
        while self.is_prose(i) and len(before) < 2:
            before.insert(0, self.notebook.cells[i].source)
            if HEADING.match(self.notebook.cells[i].source.lstrip()):
                break
            i -= 1
        after = []
        if self.is_prose(index + 1) and not HEADING.match(
            self.notebook.cells[index + 1].source.lstrip()
        ):
            after.append(self.notebook.cells[index + 1].source)
        return before + after

    def notes(
        self,
        index: int,
        moved: list[str],
        extra_html: str = "",
        shown: tuple[str, ...] = (),
        spec: dict[str, Any] | None = None,
    ) -> str:
        """Speaker notes: the cell's ``slide`` metadata's notes when it has them, else what
        the slide left out, then the prose around its cell (a markdown slide with neither: its
        own text, to read from). Display equations are named in words (:meth:`spoken`):
        those in ``shown`` are on the slide."""
        parts, used = [], 0
        if spec and spec.get("notes"):
            return self.renderer.render(spec["notes"]) + extra_html
        # the blocks a slide left out are one text: an equation joins its sentence
        sources = ["\n\n".join(moved)] if moved else []
        sources += self.nearby_prose(index)
        cell = self.notebook.cells[index]
        if not sources and cell.cell_type == "markdown":
            sources = [cell.source]
        for source in sources:
            text = HEADING.sub("", source).strip()
            if not text or used > NOTES_BUDGET:
                continue
            used += len(text)
            parts.append(self.renderer.render(self.spoken(text, shown)))
        return "\n".join(parts) + extra_html

    def equation_name(self, block: str, on_slide: bool) -> str:
        """How the notes say a display equation: "equation (2.2) on the slide", "the
        equations in the chapter" (a formula cannot be read aloud from the notes)."""
        label = LABELLED_DMATH.search(block) or MATH_LABEL_OPTION.search(block)
        number = self.labels.get(label.group(1), "") if label else ""
        several = "\\\\" in block
        words = self.words
        where = words["on_slide"] if on_slide else words["in_chapter"]
        if number:
            return where.format(what=words["eq_many" if several else "eq_one"].format(n=number))
        return where.format(what=words["eq_bare_many" if several else "eq_bare_one"])

    def spoken(self, text: str, shown: tuple[str, ...] = ()) -> str:
        """``text`` with each display equation replaced by its name in words, run into the
        sentence around it ("RoFormer proposes equations (2.2) on the slide, where the bar is
        ..."), so the notes read as sentences."""
        on_slide = {" ".join(b.split()) for b in shown}
        out: list[str] = []
        joined = False
        for block in split_blocks(text):
            if is_display_math(block):
                name = self.equation_name(block, " ".join(block.split()) in on_slide)
                tex = re.sub(r"\$\$\s*(\([^)]*\))?\s*$|```\s*$", "", block.strip()).rstrip()
                tex = re.sub(r"\\end\{\w+\}\s*$", "", tex).rstrip()
                tail = tex[-1] if tex and tex[-1] in ",.;" else ""
                space, stop = ("", "。") if self.lang == "zh" else (" ", ".")
                if self.lang == "zh":
                    tail = {",": "，", ".": "。", ";": "；"}.get(tail, tail)
                if out and out[-1].rstrip().endswith((":", "：")):
                    # "... where the initial conditions apply: the equation on the slide."
                    out[-1] = f"{out[-1].rstrip()}{space}{name}{stop}"
                    joined = False
                elif out and not ends_sentence(out[-1]):
                    out[-1] = f"{out[-1].rstrip()}{space}{name}{tail}"
                    joined = not tail or tail in ",，"
                else:
                    out.append(self.words["see"].format(name=name))
                    joined = False
                continue
            if joined and out and re.match(r"^[a-z,;]", block.strip()):
                out[-1] = f"{out[-1]} {block.strip()}"
            else:
                if joined and out and not ends_sentence(out[-1]):
                    out[-1] += self.stop
                out.append(block)
            joined = False
        if joined and out and not ends_sentence(out[-1]):
            out[-1] += self.stop
        if out and out[-1].rstrip().endswith((":", "：")):
            # the code or output it introduced is not in the notes
            out[-1] = out[-1].rstrip()[:-1] + self.stop
        return "\n\n".join(out)

    @property
    def stop(self) -> str:
        """A sentence's full stop in the deck's language."""
        return "。" if self.lang == "zh" else "."

    # --- slides

    def markdown_slide(
        self,
        index: int,
        cell: nbformat.NotebookNode,
        kind: str = "",
        spec: dict[str, Any] | None = None,
    ) -> Slide:
        spec = spec or {}
        source = cell.source
        title = self.section_title(index)
        if spec.get("part"):
            heading, source = part_of(source, spec["part"])
            title = self.renderer.inline(heading)
        own = HEADING.match(source.lstrip())
        if own:
            source = source.lstrip()[own.end() :].lstrip("\n")
        if spec.get("title"):
            title = self.renderer.inline(spec["title"])
        # (a translation's comments, <!-- term plane: 平面 -->, are for the checks: not shown)
        blocks = [b for b in split_blocks(source) if not COMMENT.fullmatch(b.strip())]
        math = [b for b in blocks if is_display_math(b)]
        prose = [b for b in blocks if not is_display_math(b)]
        lead = spec.get("lead", "")
        if spec.get("code"):
            # a code slide: the line that says what to look at, then the code
            body = (self.renderer.render(lead) if lead else "") + self.code_block(spec["code"])
            notes = self.notes(index, blocks, spec=spec)
            return Slide(index, title, body, notes, "code")
        if kind != "closing" and math and sum(len(b) for b in prose) < 900 and len(math) <= 3:
            # an equation slide: the display math large, one sentence of what it means
            meaning = lead or self.meaning(index, blocks)
            body = "".join(self.renderer.render(b) for b in math)
            if meaning:
                body += f'<p class="meaning">{self.renderer.inline(meaning)}</p>'
            notes = self.notes(index, blocks, shown=tuple(math), spec=spec)
            return Slide(index, title, body, notes, "equation")
        if lead:
            body = self.renderer.render(lead)
            return Slide(index, title, body, self.notes(index, blocks, spec=spec), kind or "text")
        kept, moved, used = [], [], 0
        for block in blocks:
            if kind == "closing" or not kept or used + prose_length(block) <= TEXT_BUDGET:
                kept.append(block)
                used += prose_length(block)
            else:
                moved.append(block)

        # a lead-in ("... the fix its measurements point to:") goes with what it introduces,
        # to the notes; a slide's only paragraph ends as the sentence it is
        def lead_in(block: str) -> bool:
            return block.rstrip().endswith((":", "："))

        while len(kept) > 1 and not is_display_math(kept[-1]) and lead_in(kept[-1]):
            moved.insert(0, kept.pop())
        if len(kept) == 1 and lead_in(kept[0]) and kind != "closing":
            kept[0] = kept[0].rstrip()[:-1] + self.stop
        body = self.renderer.render("\n\n".join(kept))
        notes = self.notes(index, moved, shown=tuple(b for b in kept if is_display_math(b)))
        return Slide(index, title, body, notes, kind or "text")

    def code_block(self, code: dict[str, Any]) -> str:
        """Lines of a code cell (by its id), the lines that matter highlighted (Pygments)."""
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer

        cell = next((c for c in self.notebook.cells if c.get("id") == code.get("cell")), None)
        if cell is None or cell.cell_type != "code":
            raise ValueError(f"{self.path.name}: slide code: no code cell {code.get('cell')!r}")
        lines = cell.source.splitlines()
        first, last = code.get("lines", [1, len(lines)])
        shown = "\n".join(lines[first - 1 : last])
        marked = [n - first + 1 for n in code.get("highlight", []) if first <= n <= last]
        formatter = HtmlFormatter(nowrap=True, hl_lines=marked)
        return f'<pre class="code-slide"><code>{highlight(shown, PythonLexer(), formatter)}</code></pre>'

    def meaning(self, index: int, blocks: list[str]) -> str:
        """The sentence an equation slide shows under its equation: the first one after the
        display math, else before it, else the start of the next paragraph of the chapter;
        a sentence, not a fragment ("(the two sines cancel), and ...")."""
        first_math = next(i for i, b in enumerate(blocks) if is_display_math(b))
        after = [b for b in blocks[first_math:] if not is_display_math(b)]
        before = [b for b in blocks[:first_math] if not is_display_math(b)]
        following = (
            split_blocks(self.notebook.cells[index + 1].source) if self.is_prose(index + 1) else []
        )
        for block in [*after, *before, *following]:
            text = re.sub(r"^\s*(?:[-*+]|\d+\.)\s+", "", block.strip())
            if is_display_math(text) or HEADING.match(text):
                continue
            sentence = first_sentence(text, 220)
            starts = re.match(r"^(\*\*|[A-Z$\\{`]|\d)", sentence) or CJK.match(sentence)
            if starts and ends_sentence(sentence):
                return sentence
        return ""

    def image(self, index: int, k: int, data: dict[str, Any]) -> str:
        name = f"img/{self.path.stem}-{index}-{k}.png"
        target = self.out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(base64.b64decode(source_text(data["image/png"])))
        return f'<img src="{name}" alt="">'

    def figure_body(
        self, index: int, cell: nbformat.NotebookNode, lead: str = ""
    ) -> tuple[str, str]:
        """A figure cell's image with the first sentence of its numbered caption (or the
        ``lead`` of the slide's metadata, written for the slide); the notes get the whole
        caption."""
        figure = self.figures.get(index)
        for k, output in enumerate(cell.get("outputs", [])):
            data = output.get("data", {})
            if "image/png" not in data:
                continue
            image = self.image(index, k, data)
            width, height = png_size(source_text(data["image/png"]))
            side = ' class="side"' if width < SIDE_CAPTION_ASPECT * height else ""
            if figure is None or figure.output != k:
                return f"<figure>{image}</figure>", ""
            short = self.renderer.inline(lead or first_sentence(figure.caption))
            full = self.renderer.inline(figure.caption)
            label = self.words["figure_label"].format(n=figure.number)
            return (
                f"<figure{side}>{image}<figcaption>{label}{short}</figcaption></figure>",
                f"<p>{label}{full}</p>",
            )
        return "", ""

    def static_twin(self, index: int) -> int | None:
        """The print-only figure that follows an explorable (its static view)."""
        for i in range(index + 1, min(index + 4, len(self.notebook.cells))):
            cell = self.notebook.cells[i]
            if cell.cell_type == "code" and i in self.figure_cells:
                return i
        return None

    def code_slide(
        self, index: int, cell: nbformat.NotebookNode, spec: dict[str, Any] | None = None
    ) -> Slide:
        spec = spec or {}
        title = self.renderer.inline(spec["title"]) if spec.get("title") else None
        title = title or self.section_title(index)
        lead = spec.get("lead", "")
        code_notes = f'<pre class="code">{html.escape(cell.source)}</pre>'
        if spec.get("code"):
            body = (self.renderer.render(lead) if lead else "") + self.code_block(spec["code"])
            return Slide(index, title, body, self.notes(index, [], spec=spec), "code")
        if is_explorable(cell):
            twin = self.static_twin(index)
            if self.live_explorables >= 1 and twin is not None:
                # one live explorable a deck: a later one shows its static figure
                body, caption = self.figure_body(twin, self.notebook.cells[twin], lead)
                notes = self.notes(index, [], spec=spec) + caption
                return Slide(index, title, body, notes, "figure")
            self.live_explorables += 1
            parts = [
                source_text(o["data"]["text/html"])
                for o in cell.get("outputs", [])
                if "text/html" in o.get("data", {})
            ]
            notes = self.notes(index, [], spec=spec)
            return Slide(index, title, "\n".join(parts), notes, "explorable")
        if index in self.figure_cells:
            body, caption = self.figure_body(index, cell, lead)
            notes = caption + self.notes(index, [], spec=spec) + code_notes
            return Slide(index, title, body, notes, "figure")
        parts: list[str] = []
        for k, output in enumerate(cell.get("outputs", [])):
            kind = output.get("output_type")
            if kind == "stream":
                parts.append(
                    f'<pre class="output">{html.escape(source_text(output["text"]))}</pre>'
                )
                continue
            if kind not in ("display_data", "execute_result"):
                continue
            data = output.get("data", {})
            if "text/html" in data:
                parts.append(source_text(data["text/html"]))
            elif "image/png" in data:
                parts.append(f"<figure>{self.image(index, k, data)}</figure>")
            elif "text/latex" in data:
                tex = source_text(data["text/latex"]).strip().strip("$").strip()
                parts.append(f'<div class="math">\\[{html.escape(tex)}\\]</div>')
            elif "text/markdown" in data:
                parts.append(self.renderer.render(source_text(data["text/markdown"])))
            elif "text/plain" in data:
                parts.append(
                    f'<pre class="output">{html.escape(source_text(data["text/plain"]))}</pre>'
                )
        if lead:
            parts.insert(0, self.renderer.render(lead))
        notes = self.notes(index, [], spec=spec) + code_notes
        return Slide(index, title, "\n".join(parts), notes, "output")

    def build(self) -> Deck:
        tagged = self.tagged_cells()
        indices = tagged or self.default_cells()
        slides = [self.title_slide()]
        explorables = figures = 0
        for index in indices:
            cell = self.notebook.cells[index]
            for spec in slide_specs(cell) if tagged else [{}]:
                if cell.cell_type == "markdown":
                    slide = self.markdown_slide(index, cell, spec=spec)
                else:
                    slide = self.code_slide(index, cell, spec)
                    explorables += slide.kind == "explorable"
                    figures += slide.kind == "figure"
                slides.append(self.marked(slide).html())
        remember = [
            i
            for i, c in enumerate(self.notebook.cells)
            if admonition_cell(c, REMEMBER_CLASS) and i not in indices
        ]
        for index in remember[:1]:
            slide = self.markdown_slide(index, self.notebook.cells[index], kind="closing")
            slide.title = self.words["remember"]
            slide.notes = self.summary_notes() or slide.notes
            slides.append(slide.html())
        return Deck(
            stem=self.path.stem,
            chapter=self.chapter,
            title=self.title,
            slides=slides,
            explorables=explorables,
            figures=figures,
            tagged=len(tagged),
        )

    def section_cells(self, heading: str) -> list[nbformat.NotebookNode]:
        """The markdown cells of the section called ``heading`` (its heading cell first)."""
        cells, inside = [], False
        for cell in self.notebook.cells:
            found = (heading_of(cell) or "").lower() if cell.cell_type == "markdown" else None
            if found is not None and HEADING.match(cell.source.lstrip()):
                if inside:
                    break
                inside = found == heading
            if inside and cell.cell_type == "markdown":
                cells.append(cell)
        return cells

    def summary_notes(self) -> str:
        cells = self.section_cells(self.words["summary"])
        return "".join(self.renderer.render(self.spoken(HEADING.sub("", c.source))) for c in cells)

    def title_slide(self) -> str:
        """The chapter's number and title, what to know first and how long it takes (the
        "Before you start" box) and the learning objectives; the notes: its opening."""
        meta = next((c for c in self.notebook.cells if admonition_cell(c, META_CLASS)), None)
        meta_html = ""
        if meta is not None:
            _, body = parse_options(re.sub(r"^```\{admonition\}[^\n]*\n", "", meta.source))
            meta_html = self.renderer.render(body.replace("```", ""))
        objectives = self.section_cells(self.words["objectives"])
        goals = "".join(self.renderer.render(HEADING.sub("", c.source)) for c in objectives)
        opening = next(
            (
                c.source
                for i, c in enumerate(self.notebook.cells)
                if i > 0 and self.is_prose(i) and not HEADING.match(c.source.lstrip())
            ),
            "",
        )
        page = f"{self.site}notebooks/{self.path.stem}.html"
        chapter = html.escape(self.chapter)
        words = self.words
        book = html.escape(book_title(self.lang))
        return (
            '<section class="title-slide">\n'
            f'<p class="book">{book} · {words["chapter"].format(n=chapter)}</p>\n'
            f'<h1 class="slide-title">{chapter}. {self.renderer.inline(self.title)}</h1>\n'
            '<div class="slide-body">\n'
            f'<div class="goals"><p class="label">{words["in_session"]}</p>{goals}</div>\n'
            f'<div class="meta">{meta_html}'
            f'<p class="chapter-link"><a href="{page}">{words["chapter_link"]}</a></p></div>\n'
            "</div>\n"
            f'<aside class="notes">{self.renderer.render(self.spoken(opening))}</aside>\n'
            "</section>"
        )


# --- the deck's page ----------------------------------------------------------------------


MATHJAX_CONFIG = {
    "tex": {
        "inlineMath": [["\\(", "\\)"]],
        "displayMath": [["\\[", "\\]"]],
        "processEscapes": True,
        "processEnvironments": True,
        "tags": "none",
    },
    "options": {"processHtmlClass": "math", "ignoreHtmlClass": "slides-root"},
    "startup": {"typeset": True},
}


def deck_page(deck: Deck, lang: str = "en") -> str:
    """A deck's HTML page; a Chinese deck (``slides/zh/``) uses the English decks' copies of
    reveal.js, MathJax and the style, one folder up (``../vendor/``)."""
    title = f"{deck.chapter}. {re.sub(r'<[^>]+>', '', deck.title)}"
    sections = "\n".join(deck.slides)
    config = json.dumps(MATHJAX_CONFIG)
    up = "" if lang == "en" else "../"
    words = WORDS[lang]
    return f"""<!DOCTYPE html>
<html lang="{words["html_lang"]}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{html.escape(words["page_title"].format(title=title))}</title>
<link rel="stylesheet" href="{up}vendor/reveal/reset.css">
<link rel="stylesheet" href="{up}vendor/reveal/reveal.css">
<link rel="stylesheet" href="{up}vendor/reveal/theme/white.css">
<link rel="stylesheet" href="{up}ropelab-slides.css">
<script>window.MathJax = {config};</script>
<script defer src="{up}vendor/mathjax/tex-chtml-full.js"></script>
</head>
<body>
<div class="reveal"><div class="slides slides-root">
{sections}
</div></div>
<script src="{up}vendor/reveal/reveal.js"></script>
<script src="{up}vendor/reveal/plugin/notes.js"></script>
<script src="{up}vendor/ropelab-explore.js"></script>
<script src="{up}ropelab-slides.js"></script>
</body>
</html>
"""


# --- the two-lecture decks ---------------------------------------------------------------


#: The lecture decks' files: ``lecture-1.html``, ``lecture-2.html`` (and their PDFs).
LECTURE_STEM = "lecture-{n}"


#: The lecture decks' own words, by language.
LECTURE_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "part": "<li>Chapter {n}, {title} ({minutes} min).</li>",
        "read": "<li>Chapter {n}, {title} ({minutes} min of reading).</li>",
        "of": "Lecture {n} of {total}",
        "heading": "Lecture {n}. {title}",
        "in_lecture": "In this lecture ({total} minutes)",
        "before": "Read before the first lecture",
        "notes": "This is lecture {n} of the two-lecture path of the book's teaching page. It "
        "takes the core sections listed on this slide, in this order, in {total} minutes; "
        "each chapter opens with its own title slide.",
        "chapter": "Lecture {n}",
    },
    "zh": {
        "part": "<li>第 {n} 章，{title}（{minutes} 分钟）。</li>",
        "read": "<li>第 {n} 章，{title}（阅读 {minutes} 分钟）。</li>",
        "of": "第 {n} 次课，共 {total} 次",
        "heading": "第 {n} 次课：{title}",
        "in_lecture": "本次课（{total} 分钟）",
        "before": "第一次课之前阅读",
        "notes": "这是本书教学页两次课方案中的第 {n} 次课。它按本页列出的顺序讲这些核心小节，"
        "共 {total} 分钟；每一章以它自己的标题页开始。",
        "chapter": "第 {n} 次课",
    },
}


def lecture_decks(decks: list[Deck], lang: str = "en") -> list[Deck]:
    """One deck per lecture of the teaching page's two-lecture path (``tools/course_path.py``:
    the core sections the chapters mark, in the path's order): a title slide naming the
    lecture's parts and minutes, then for each chapter its title slide, the slides of the
    sections the lecture takes and its What-to-remember slide, as the chapter's deck draws
    them (the slides the teaching page lists for the lecture). A chapter the folder has no
    deck of is left out (a build of some chapters only)."""
    from ropebook import course_path

    chapters = course_path._chapters()
    by_stem = {d.stem: d for d in decks}
    words = LECTURE_WORDS[lang]
    zh = lang == "zh"
    two = next(p for p in course_path.PATHS if p.lectures == 2)
    before, lectures = course_path.resolve(two, chapters)
    built = []
    for n, (lecture, sections) in enumerate(zip(two.plan, lectures, strict=True), start=1):
        if not all(s.stem in by_stem for s in sections):
            continue
        total = sum(s.lecture_minutes for s in sections)
        rows = "".join(
            words["part"].format(
                n=html.escape(chapters[s.stem].number),
                title=html.escape(GLOSS.sub("", s.title_zh) if zh else s.title),
                minutes=s.lecture_minutes,
            )
            for s in sections
        )
        reading = "".join(
            words["read"].format(
                n=html.escape(chapters[s.stem].number),
                title=html.escape(GLOSS.sub("", s.title_zh) if zh else s.title),
                minutes=s.reading_minutes,
            )
            for s in before
        )
        name = lecture.title_zh if zh else lecture.title
        first = (
            '<section class="title-slide lecture-title">\n'
            f'<p class="book">{html.escape(book_title(lang))} · '
            f"{words['of'].format(n=n, total=len(lectures))}</p>\n"
            f'<h1 class="slide-title">{html.escape(words["heading"].format(n=n, title=name))}'
            "</h1>\n"
            '<div class="slide-body">\n'
            f'<div class="goals"><p class="label">{words["in_lecture"].format(total=total)}</p>'
            f"<ul>{rows}</ul></div>\n"
            + (
                f'<div class="meta"><p class="label">{words["before"]}</p>'
                f"<ul>{reading}</ul></div>\n"
                if reading and n == 1
                else ""
            )
            + "</div>\n"
            f'<aside class="notes"><p>{words["notes"].format(n=n, total=total)}</p>'
            "</aside>\n</section>"
        )
        slides = [first]
        for stem in dict.fromkeys(s.stem for s in sections):
            deck = by_stem[stem]
            numbers = [1, *sorted({k for s in sections if s.stem == stem for k in s.slides})]
            if chapters[stem].closing_slide:
                numbers.append(chapters[stem].closing_slide)  # its What-to-remember slide
            for k in numbers:
                slides.append(
                    deck.slides[k - 1].replace(
                        "<section ", f'<section data-chapter="{html.escape(stem)}" ', 1
                    )
                )
        built.append(
            Deck(
                stem=LECTURE_STEM.format(n=n),
                chapter=words["chapter"].format(n=n),
                title=name,
                slides=slides,
                explorables=sum('class="ropelab-explorable' in x for x in slides),
                figures=sum('class="slide-figure"' in x for x in slides),
                tagged=len(slides) - 1,
            )
        )
    return built


def deck_name(deck: Deck) -> str:
    """How the index names a deck: "5. Long-range decay", "Lecture 1. …", "第 1 次课：…"."""
    if deck.chapter.startswith("第"):
        return f"{deck.chapter}：{deck.title}"
    return f"{deck.chapter}. {deck.title}"


def index_page(
    decks: list[Deck],
    pdfs: bool = False,
    lectures: tuple[Deck, ...] = (),
    lang: str = "en",
    translated: tuple[Deck, ...] = (),
) -> str:
    """The slides folder's ``index.html`` (``lang`` "zh": the Chinese decks' ``zh/index.html``).
    The English index also lists ``translated``, the Chinese decks in ``zh/``."""
    zh = lang == "zh"

    def row(d: Deck, folder: str = "") -> str:
        pdf = f' · <a href="{folder}{PDF_DIR}/{d.stem}.pdf">PDF</a>' if pdfs else ""
        count = f"（{len(d.slides)} 页{pdf}）" if zh or folder else f"({len(d.slides)} slides{pdf})"
        return (
            f'<li><a href="{folder}{d.stem}.html">{html.escape(deck_name(d))}</a> '
            f"<small>{count}</small></li>"
        )

    rows = "\n".join(row(d) for d in decks)
    lecture_rows = "\n".join(row(d) for d in lectures)
    if zh:
        lecture_list = (
            "<h2>两次课</h2>\n<p>本书“用本书授课”页两次课方案的两套幻灯片：它所讲的核心小节，"
            f'取自各章的幻灯片，按讲授顺序排列。</p>\n<ul class="lectures">\n{lecture_rows}\n</ul>\n'
            "<h2>每章一套</h2>\n"
            if lectures
            else ""
        )
        title = f"{book_title(lang)}：幻灯片"
        return f"""<!DOCTYPE html>
<html lang="zh-CN">
<head><meta charset="utf-8"><title>{html.escape(title)}</title>
<link rel="stylesheet" href="../ropelab-slides.css"></head>
<body class="slides-index">
<h1>{html.escape(title)}</h1>
<p>每章一套 reveal.js 幻灯片（16:9），由各章标为幻灯片的单元生成，文字取自中文版。方向键翻页；
F 键全屏，S 键打开演讲者视图（含讲稿：书中对每页的讲解），Esc 键显示全部幻灯片。
这些幻灯片离线可用：上一级文件夹里有它们需要的一切。每套幻灯片也有 PDF，一页一张。</p>
<p>选讲小节的幻灯片在标题旁标有“选讲”。在幻灯片地址后加上 <code>?core</code>
（<code>02_complex_derivation.html?core</code>）只显示核心小节：即教学页一次课和两次课方案用到的幻灯片。</p>
{lecture_list}<ul class="chapters">
{rows}
</ul>
<p><a href="../../{ZH_DIR}/book/intro.html">本书</a> · <a href="../index.html">English slides</a></p>
</body>
</html>
"""
    lecture_list = (
        "<h2>Two lectures</h2>\n<p>The two-lecture path of the book's \"Teaching with this "
        "book\" page as two decks: the core sections it takes, from the chapters' decks, in "
        f'the order it teaches them.</p>\n<ul class="lectures">\n{lecture_rows}\n</ul>\n'
        "<h2>One deck per chapter</h2>\n"
        if lectures
        else ""
    )
    chinese = (
        '<h2 lang="zh-CN">中文幻灯片</h2>\n<p>The same decks in Chinese, made from the same '
        "cells with the Chinese edition's text (their own index: "
        f'<a href="{ZH_DIR}/index.html">中文幻灯片</a>).</p>\n'
        f'<ul class="chapters-zh" lang="zh-CN">\n'
        + "\n".join(row(d, f"{ZH_DIR}/") for d in translated)
        + "\n</ul>\n"
        if translated
        else ""
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>{BOOK_TITLE}: slides</title>
<link rel="stylesheet" href="ropelab-slides.css"></head>
<body class="slides-index">
<h1>{BOOK_TITLE}: slides</h1>
<p>One reveal.js deck per chapter (16:9), made from the cells the chapter marks for slides.
Arrow keys move between slides; F is full screen, S the speaker view (with the notes: the
chapter's explanation of each slide), Esc the overview. The decks work offline: this folder
holds everything they need. Each deck is also a PDF, one page per slide.</p>
<p>A slide of a section the chapter marks optional is tagged "optional" beside its title.
Add <code>?core</code> to a deck's address (<code>02_complex_derivation.html?core</code>) for
the core sections only: the slides of the one- and two-lecture paths of the book's
"Teaching with this book" page.</p>
{lecture_list}<ul class="chapters">
{rows}
</ul>
{chinese}<p><a href="../book/intro.html">The book</a></p>
</body>
</html>
"""


#: The decks' PDFs, inside the slides folder.
PDF_DIR = "pdf"


def export_pdfs(out: Path, decks: list[Deck]) -> list[Path]:
    """Every deck printed to PDF through reveal.js's print layout (``?print-pdf``: one page a
    slide, 1280 x 720) in headless Chromium, offline, once its math is typeset and every slide
    fitted. Needs Playwright (requirements-dev.txt) and Debian's Chromium."""
    from playwright.sync_api import sync_playwright

    from ropebook.headless_chromium import CHROMIUM, keep_offline
    from ropebook.page_layout import launch

    if not Path(CHROMIUM).exists():
        raise SystemExit(f"Chromium not found at {CHROMIUM}: make chromium")
    target = out / PDF_DIR
    target.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as playwright:
        browser = launch(playwright)
        for deck in decks:
            page = browser.new_page(viewport={"width": SLIDE_WIDTH, "height": SLIDE_HEIGHT})
            keep_offline(page)
            # reveal.js's print layout comes from ?print-pdf, not from print media; screen media
            # keeps the live explorable drawn (the book's print style swaps it for its figure)
            page.emulate_media(media="screen")
            page.goto((out / f"{deck.stem}.html").as_uri() + "?print-pdf", wait_until="load")
            page.wait_for_function(
                "document.documentElement.dataset.deckReady === 'true'", timeout=120_000
            )
            page.wait_for_timeout(300)
            # a PDF has no site around it: a relative link would print as the builder's file://
            # address, so the text of such links stays and the link goes
            page.evaluate(UNLINK_RELATIVE)
            path = target / f"{deck.stem}.pdf"
            page.pdf(
                path=str(path),
                width=f"{SLIDE_WIDTH}px",
                height=f"{SLIDE_HEIGHT}px",
                print_background=True,
                prefer_css_page_size=True,
            )
            page.close()
            written.append(path)
        browser.close()
    return written


#: The contact sheets (one PNG of all slides per deck) and the lecturer's checks of every
#: slide, inside the slides folder (``tools/slide_checks.py``).
CONTACT_DIR = "contact"
CHECKS_FILE = "checks.json"


def check_decks(out: Path) -> dict[str, list[dict[str, Any]]]:
    """Every deck in ``out`` shown slide by slide in Chromium: the lecturer's checks of
    ``tools/slide_checks.py`` (written to ``checks.json``, counted per deck on the console)
    and a contact sheet of each deck (``contact/<deck>.png``) to look over before teaching."""
    from ropebook import slide_checks

    shutil.rmtree(out / CONTACT_DIR, ignore_errors=True)
    found = slide_checks.audit_folder(out, out / CONTACT_DIR)
    (out / CHECKS_FILE).write_text(
        json.dumps(found, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(slide_checks.summary(found))
    return found


def copy_vendor(out: Path) -> None:
    """reveal.js, MathJax and the explorables' script next to the decks."""
    from ropelab.explorables import script_path

    if not (REVEAL / "reveal.js").exists():
        raise SystemExit(f"{REVEAL} is missing: run `make assets` (npm ci)")
    if not (MATHJAX / "tex-chtml-full.js").exists():
        raise SystemExit(f"{MATHJAX} is missing: run `make assets`")
    vendor = out / "vendor"
    reveal = vendor / "reveal"
    shutil.rmtree(vendor, ignore_errors=True)
    (reveal / "theme").mkdir(parents=True)
    (reveal / "plugin").mkdir()
    for name in ("reveal.js", "reveal.css", "reset.css"):
        shutil.copyfile(REVEAL / name, reveal / name)
    shutil.copyfile(REVEAL / "theme" / "white.css", reveal / "theme" / "white.css")
    shutil.copyfile(REVEAL / "plugin" / "notes.js", reveal / "plugin" / "notes.js")
    license_file = REVEAL.parent / "LICENSE"
    if license_file.exists():
        shutil.copyfile(license_file, reveal / "LICENSE")
    shutil.copytree(MATHJAX, vendor / "mathjax")
    shutil.copyfile(script_path(), vendor / "ropelab-explore.js")
    for name in ("ropelab-slides.css", "ropelab-slides.js"):
        shutil.copyfile(ASSETS / name, out / name)


#: Where the Chinese decks' notebooks are written (the Chinese edition's, with the slides'
#: metadata from ``book/zh/slides/``).
ZH_WORK = ROOT / "_build" / "zh-slides"


def zh_notebook_file(path: Path, work: Path = ZH_WORK) -> Path:
    """The Chinese notebook of a chapter as a file (``work/<stem>.ipynb``): its markdown cells
    and captions from the store (``build_zh.zh_notebook``: English where a unit has no current
    translation), each cell's ``slide`` metadata from ``book/zh/slides/<stem>.md`` (English
    where it has none), code and outputs untouched."""
    from ropebook import zh_store
    from ropebook.build_zh import zh_notebook

    notebook, _ = zh_notebook(path)
    slides = zh_store.slide_translations(path)
    for cell in notebook["cells"]:
        if str(cell.get("id")) in slides:
            cell["metadata"][SLIDE_KEY] = slides[str(cell["id"])]
    work.mkdir(parents=True, exist_ok=True)
    target = work / path.name
    target.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return target


def build(
    paths: list[Path],
    out: Path,
    *,
    pdf: bool = False,
    select: bool = False,
    lang: str = "en",
    translated: tuple[Deck, ...] = (),
) -> list[Deck]:
    """The decks of ``paths`` into ``out``, the lecture decks too unless ``select`` (some
    chapters named on the command line). ``lang`` "zh": the Chinese decks, into ``out``
    (``slides/zh/``), which use the English decks' vendor folder and style one folder up
    (copied there when missing). The English index lists ``translated`` (the Chinese decks)."""
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / "img", ignore_errors=True)
    shutil.rmtree(out / PDF_DIR, ignore_errors=True)
    if lang == "en":
        copy_vendor(out)
    elif not (out.parent / "vendor" / "reveal" / "reveal.js").is_file():
        copy_vendor(out.parent)
    cites = load_citations()
    decks = []
    for path in paths:
        source = zh_notebook_file(path) if lang == "zh" else path
        deck = ChapterDeck(source, out, cites, lang).build()
        (out / f"{deck.stem}.html").write_text(deck_page(deck, lang), encoding="utf-8")
        decks.append(deck)
        source = "tagged cells" if deck.tagged else "no slide tags yet: default deck"
        print(
            f"  {deck.stem}: {len(deck.slides)} slides ({source}; "
            f"{deck.figures} figures, {deck.explorables} explorables)"
        )
    lectures = lecture_decks(decks, lang) if not select else []
    for deck in lectures:
        (out / f"{deck.stem}.html").write_text(deck_page(deck, lang), encoding="utf-8")
        print(f"  {deck.stem}: {len(deck.slides)} slides ({deck.title})")
    (out / "index.html").write_text(
        index_page(decks, pdf, tuple(lectures), lang, translated), encoding="utf-8"
    )
    if pdf:
        for written in export_pdfs(out, [*decks, *lectures]):
            print(f"  {written.relative_to(out)}: {written.stat().st_size / 1e6:.1f} MB")
        check_decks(out)
    return decks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every chapter")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--pdf", action="store_true", help="print every deck to PDF too (Playwright, Chromium)"
    )
    parser.add_argument(
        "--lang",
        choices=("all", "en", "zh"),
        default="all",
        help="the English decks, the Chinese ones (into <out>/zh/) or both (the default)",
    )
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.notebooks] or toc_notebooks()
    out, select = args.out.resolve(), bool(args.notebooks)
    chinese: list[Deck] = []
    if args.lang in ("all", "zh"):
        print("Chinese decks:")
        chinese = build(paths, out / ZH_DIR, pdf=args.pdf, select=select, lang="zh")
        total = sum(len(d.slides) for d in chinese)
        print(f"{len(chinese)} Chinese decks, {total} slides -> {out / ZH_DIR}")
    if args.lang in ("all", "en"):
        # the Chinese decks first: the English index lists them (and its vendor folder,
        # which the Chinese decks use, is copied again here)
        listed = (*(lecture_decks(chinese, "zh") if chinese and not select else []), *chinese)
        decks = build(paths, out, pdf=args.pdf, select=select, translated=tuple(listed))
        total = sum(len(d.slides) for d in decks)
        print(f"{len(decks)} decks, {total} slides -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
