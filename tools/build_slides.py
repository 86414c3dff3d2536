"""A reveal.js deck per chapter, from the cells the chapter tags ``slide`` (issue 18).

Kit conventions: the deck of a chapter is its title slide and then one slide per cell tagged
``slide``, in notebook order. A markdown cell is shown rendered, with its math (MathJax); a
code cell shows its output only: a figure as an image with its numbered caption (the cell's
code goes into the speaker notes), printed text as text, a SymPy result as an equation, and an
explorable live (``ropelab-explore.js``). The last slide is the chapter's "What to remember"
box when it has one and did not tag it. A chapter that tags no cell yet gets a deck made of
its learning objectives, its captioned figures, its first explorable and its summary.

Everything a deck needs is copied next to it, so the folder works offline and on its own
(opened from the site, from a file manager or from a USB stick)::

    slides/index.html                       the list of decks
    slides/05_long_range_decay.html         one deck per chapter of _toc.yml
    slides/img/05_long_range_decay-9.png    the figures (cell 9)
    slides/vendor/reveal/                   reveal.js (npm, the committed package-lock.json)
    slides/vendor/mathjax/                  MathJax (make assets: vendor/mathjax)
    slides/vendor/ropelab-explore.js        the explorables' script (ropelab.explorables)
    slides/ropelab-slides.css, .js          the decks' style; fit-to-slide and start-up

    .venv/bin/python tools/build_slides.py                  # -> _build/kit/slides/
    .venv/bin/python tools/build_slides.py --out /tmp/slides notebooks/05_long_range_decay.ipynb

``make slides`` runs it (after ``make assets``); the site build copies the folder into the site
(``book/_ext/lecturer_kit.py``) and each chapter page links to its deck.
"""

from __future__ import annotations

import argparse
import base64
import html
import json
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
from markdown_it import MarkdownIt
from mdit_py_plugins.amsmath import amsmath_plugin
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.myst_role import myst_role_plugin

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
sys.path.insert(0, str(ROOT / "tools"))

from book_toc import toc_notebooks  # noqa: E402
from export_figures import book_figures, chapter_of  # noqa: E402
from lecturer_kit import META_CLASS, REMEMBER_CLASS, SLIDE_TAG  # noqa: E402

DEFAULT_OUT = ROOT / "_build" / "kit" / "slides"
REVEAL = ROOT / "node_modules" / "reveal.js" / "dist"
MATHJAX = ROOT / "vendor" / "mathjax"
ASSETS = ROOT / "book" / "slides"
BIB = ROOT / "book" / "references.bib"
BOOK_TITLE = "RoPE, derived and run"

#: ```{directive} argument  and  :::{directive} argument
DIRECTIVE = re.compile(r"^\{([\w:-]+)\}\s*(.*)$")
LABELLED_DMATH = re.compile(r"\$\$\s*\(([^)\s]+)\)")
MATH_LABEL_OPTION = re.compile(r"```\{math\}[^\n]*\n(?::[\w-]+:[^\n]*\n)*?:label:\s*(\S+)")
EXERCISE_LABEL = re.compile(r"[`:]{3,}\{exercise\}[^\n]*\n(?::[\w-]+:[^\n]*\n)*?:label:\s*(\S+)")
ADMONITIONS = {"note", "tip", "hint", "important", "warning", "caution", "attention", "seealso"}


# --- labels, numbers and citations --------------------------------------------------------


def chapter_labels(notebook: nbformat.NotebookNode, chapter: str) -> dict[str, str]:
    """What ``{numref}``/``{ref}``/``{eq}`` print for the chapter's labels: "Figure 5.2",
    "Exercise 5.1", "(5.3)" (the book's per-chapter numbers, in notebook order)."""
    labels: dict[str, str] = {}
    equations = exercises = figures = 0
    for cell in notebook.cells:
        if cell.cell_type == "code":
            meta = (cell.metadata.get("mystnb") or {}).get("figure") or {}
            if meta.get("caption"):
                figures += 1
                if meta.get("name"):
                    labels[meta["name"]] = f"Figure {chapter}.{figures}"
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
            labels[match.group(1)] = f"Exercise {chapter}.{exercises}"
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
        self.md = md

    def render(self, text: str) -> str:
        return self.md.render(text)

    def inline(self, text: str) -> str:
        return self.md.renderInline(text)

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
            number = self.labels.get(label, "Exercise")
            title = f"{number} ({self.inline(argument)})" if argument else number
            return self._box(["exercise", *classes], title, body)
        if name == "admonition" or name in ADMONITIONS:
            title = self.inline(argument) if name == "admonition" else name.capitalize()
            return self._box([name, *classes], title, body)
        return f'<div class="directive-{html.escape(name)}">{self.render(body)}</div>\n'

    def _box(self, classes: list[str], title: str, body: str) -> str:
        names = " ".join(html.escape(c) for c in ["admonition", *classes])
        return (
            f'<div class="{names}"><p class="admonition-title">{title}</p>'
            f"{self.render(body)}</div>\n"
        )


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


def heading_of(cell: nbformat.NotebookNode) -> str | None:
    match = re.match(r"\s*#{1,3}\s+([^\n]+)", cell.source)
    return match.group(1).strip() if match else None


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

    def __init__(self, path: Path, out: Path, cites: dict[str, tuple[str, str]]):
        self.path = path
        self.out = out
        self.notebook = nbformat.read(path, as_version=4)
        self.chapter, self.title = chapter_of(self.notebook)
        self.labels = chapter_labels(self.notebook, self.chapter)
        self.renderer = Renderer(self.labels, cites)
        every_figure = book_figures(path)
        self.figures = {f.cell: f for f in every_figure if f.number}
        self.figure_cells = {f.cell for f in every_figure}

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
            if heading in ("learning objectives", "summary"):
                chosen.append(i)
            elif cell.cell_type == "code" and i in self.figure_cells and len(chosen) < 12:
                chosen.append(i)
            elif cell.cell_type == "code" and is_explorable(cell) and not explorable_seen:
                chosen.append(i)
                explorable_seen = True
        return chosen

    def markdown_slide(self, cell: nbformat.NotebookNode) -> str:
        return self.renderer.render(cell.source)

    def code_slide(self, index: int, cell: nbformat.NotebookNode) -> str:
        parts: list[str] = []
        figure = self.figures.get(index)
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
                name = f"img/{self.path.stem}-{index}-{k}.png"
                target = self.out / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(base64.b64decode(source_text(data["image/png"])))
                image = f'<img src="{name}" alt="">'
                if figure is not None and figure.output == k:
                    caption = self.renderer.inline(figure.caption)
                    parts.append(
                        f"<figure>{image}<figcaption><strong>Figure {figure.number}:"
                        f"</strong> {caption}</figcaption></figure>"
                    )
                else:
                    parts.append(f"<figure>{image}</figure>")
            elif "text/latex" in data:
                tex = source_text(data["text/latex"]).strip().strip("$").strip()
                parts.append(f'<div class="math">\\[{html.escape(tex)}\\]</div>')
            elif "text/markdown" in data:
                parts.append(self.renderer.render(source_text(data["text/markdown"])))
            elif "text/plain" in data:
                parts.append(
                    f'<pre class="output">{html.escape(source_text(data["text/plain"]))}</pre>'
                )
        notes = f'<aside class="notes"><pre>{html.escape(cell.source)}</pre></aside>'
        return "\n".join(parts) + notes

    def build(self) -> Deck:
        tagged = self.tagged_cells()
        indices = tagged or self.default_cells()
        slides = [self.title_slide()]
        explorables = figures = 0
        for index in indices:
            cell = self.notebook.cells[index]
            if cell.cell_type == "markdown":
                body = self.markdown_slide(cell)
            else:
                body = self.code_slide(index, cell)
                explorables += is_explorable(cell)
                figures += index in self.figure_cells
            slides.append(f'<section data-cell="{index}">\n{body}\n</section>')
        remember = [
            i
            for i, c in enumerate(self.notebook.cells)
            if admonition_cell(c, REMEMBER_CLASS) and i not in indices
        ]
        for index in remember[:1]:
            body = self.markdown_slide(self.notebook.cells[index])
            slides.append(f'<section data-cell="{index}" class="closing">\n{body}\n</section>')
        return Deck(
            stem=self.path.stem,
            chapter=self.chapter,
            title=self.title,
            slides=slides,
            explorables=explorables,
            figures=figures,
            tagged=len(tagged),
        )

    def title_slide(self) -> str:
        meta = next((c for c in self.notebook.cells if admonition_cell(c, META_CLASS)), None)
        meta_html = self.markdown_slide(meta) if meta is not None else ""
        page = f"../notebooks/{self.path.stem}.html"
        return (
            '<section class="title-slide">\n'
            f'<p class="book">{html.escape(BOOK_TITLE)}</p>\n'
            f"<h1>{html.escape(self.chapter)}. {self.renderer.inline(self.title)}</h1>\n"
            f"{meta_html}\n"
            f'<p class="chapter-link"><a href="{page}">The chapter in the book</a></p>\n'
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


def deck_page(deck: Deck) -> str:
    title = f"{deck.chapter}. {re.sub(r'<[^>]+>', '', deck.title)}"
    sections = "\n".join(deck.slides)
    config = json.dumps(MATHJAX_CONFIG)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{html.escape(title)}: slides</title>
<link rel="stylesheet" href="vendor/reveal/reset.css">
<link rel="stylesheet" href="vendor/reveal/reveal.css">
<link rel="stylesheet" href="vendor/reveal/theme/white.css">
<link rel="stylesheet" href="ropelab-slides.css">
<script>window.MathJax = {config};</script>
<script defer src="vendor/mathjax/tex-chtml-full.js"></script>
</head>
<body>
<div class="reveal"><div class="slides slides-root">
{sections}
</div></div>
<script src="vendor/reveal/reveal.js"></script>
<script src="vendor/reveal/plugin/notes.js"></script>
<script src="vendor/ropelab-explore.js"></script>
<script src="ropelab-slides.js"></script>
</body>
</html>
"""


def index_page(decks: list[Deck]) -> str:
    rows = "\n".join(
        f'<li><a href="{d.stem}.html">{html.escape(d.chapter)}. {html.escape(d.title)}</a> '
        f"<small>({len(d.slides)} slides)</small></li>"
        for d in decks
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>{BOOK_TITLE}: slides</title>
<link rel="stylesheet" href="ropelab-slides.css"></head>
<body class="slides-index">
<h1>{BOOK_TITLE}: slides</h1>
<p>One reveal.js deck per chapter, made from the cells the chapter marks for slides. Arrow keys
move between slides; F is full screen, S the speaker view (with the code of each figure),
Esc the overview. The decks work offline: this folder holds everything they need.</p>
<ul>
{rows}
</ul>
<p><a href="../book/intro.html">The book</a></p>
</body>
</html>
"""


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


def build(paths: list[Path], out: Path) -> list[Deck]:
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / "img", ignore_errors=True)
    copy_vendor(out)
    cites = load_citations()
    decks = []
    for path in paths:
        deck = ChapterDeck(path, out, cites).build()
        (out / f"{deck.stem}.html").write_text(deck_page(deck), encoding="utf-8")
        decks.append(deck)
        source = "tagged cells" if deck.tagged else "no slide tags yet: default deck"
        print(
            f"  {deck.stem}: {len(deck.slides)} slides ({source}; "
            f"{deck.figures} figures, {deck.explorables} explorables)"
        )
    (out / "index.html").write_text(index_page(decks), encoding="utf-8")
    return decks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every chapter")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.notebooks] or toc_notebooks()
    decks = build(paths, args.out.resolve())
    total = sum(len(d.slides) for d in decks)
    print(f"{len(decks)} decks, {total} slides -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
