"""The lecturer's kit in the build (issue 18): editions, the PDF's LaTeX, and the kit's links.

Configuration (``_config.yml``, ``sphinx.config``):

* ``ropelab_edition``: ``"instructor"`` (the default: solutions included, collapsed on screen)
  or ``"student"`` (every sphinx-exercise ``{solution}`` block removed from the pages and the
  PDF; exercises keep their numbers). The Sphinx tag of the same name is set, so a page can
  hold ``{only}`` blocks for one edition.

What it does:

* **Every page** gets a "Lecturer's kit" menu in its header: the book as a PDF (this edition's),
  the chapter's slides (chapter pages) and the archive of reusable figures; and the kit's own
  stylesheet (``book/assets/ropelab-kit.css``: the "Before you start" and "What to remember"
  boxes, the cheat sheet and the glossary).
* **The LaTeX builder** (``make pdf``, ``tools/build_pdf.py``) uses the book's class and
  preamble (``book/latex/``: XeLaTeX, a CJK font for the glossary, A4, wrapped code) and this
  extension's post-transforms: explorables and ``screen-only`` cells are left out (the static
  figure next to each explorable is printed instead), chapters keep the number in their title
  and LaTeX numbers nothing of its own, figures and tables carry the numbers the site shows
  (``src/ropebook/ext/chapter_numbers.py``), every display equation is scaled down to the line when it
  is wider, and the two chapter boxes have their colours.

The names of the kit's files in the built site (``KIT_*``, :func:`pdf_name`,
:func:`slides_path`) are defined in :mod:`ropebook.kit`, which the tools and the tests read too.
"""

from __future__ import annotations

import posixpath
import re
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ConfigError
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from ropebook import ROOT
from ropebook.kit import (
    EDITIONS,
    FIGURES_ARCHIVE,
    META_CLASS,
    REMEMBER_CLASS,
    SLIDES_DIR,
    STUDENT_DIR,
    ZH_DIR,
    pdf_name,
    slides_path,
)

logger = logging.getLogger(__name__)

BOOK = ROOT / "book"
LATEX_DIR = BOOK / "latex"
ASSETS = BOOK / "assets"

#: The course paths (issue 31, ``tools/course_path.py``), linked from the kit's menu.
TEACHING_DOC = "book/teaching"
#: Pages printed on one sheet in the PDF (small type, two columns), with the ids of their
#: sections that span both columns (MyST targets, so that every edition has the same ids).
COMPACT_PAGES = {"book/cheatsheet": ("cheat-methods", "cheat-config-keys")}
#: The id of a page's first section on the site, whatever its title's language: the cheat
#: sheet's print rules (``book/assets/ropelab-kit.css``, ``section#cheat-sheet``) hold it to
#: one A4 page in both languages (issue 34; the Chinese title's own id would be ``id1``).
PAGE_IDS = {"book/cheatsheet": "cheat-sheet"}


def is_chapter(docname: str) -> bool:
    return docname.startswith("notebooks/")


# --- configuration ------------------------------------------------------------------------


def _latex_elements() -> dict[str, str]:
    fonts = r"""
\setmainfont{FreeSerif}[Extension=.otf, UprightFont=*, ItalicFont=*Italic,
  BoldFont=*Bold, BoldItalicFont=*BoldItalic]
\setsansfont{DejaVu Sans}[Scale=0.92]
\setmonofont{DejaVu Sans Mono}[Scale=0.84]
\usepackage{xeCJK}
% Debian's fonts-noto-cjk: the simplified-Chinese faces of its collections (index 2, mono 7).
\setCJKmainfont{NotoSerifCJK-Regular.ttc}[Path=/usr/share/fonts/opentype/noto/, FontIndex=2,
  BoldFont=NotoSerifCJK-Bold.ttc, BoldFeatures={FontIndex=2}]
\setCJKsansfont{NotoSansCJK-Regular.ttc}[Path=/usr/share/fonts/opentype/noto/, FontIndex=2,
  BoldFont=NotoSansCJK-Bold.ttc, BoldFeatures={FontIndex=2}]
\setCJKmonofont{NotoSansCJK-Regular.ttc}[Path=/usr/share/fonts/opentype/noto/, FontIndex=7]
% Curly quotes, dashes, the ellipsis and the middle dot stay Western (xeCJK would set them
% full width in the CJK font).
\xeCJKDeclareCharClass{Default}{"00B7, "2013, "2014, "2018, "2019, "201C, "201D, "2026, "2212}
"""
    return {
        "papersize": "a4paper",
        "pointsize": "10pt",
        "fontpkg": fonts,
        "fncychap": "",
        "tocdepth": r"\setcounter{tocdepth}{1}",
        "geometry": r"\usepackage[a4paper,top=2.3cm,bottom=2.3cm,left=2.4cm,right=2.4cm]{geometry}",
        "preamble": r"\usepackage{ropelab-kit}",
        "figure_align": "H",
        "makeindex": "",
        "printindex": "",
        "sphinxsetup": (
            "verbatimforcewraps=true, verbatimmaxunderfull=0, verbatimhintsturnover=false,"
            " TitleColor={RGB}{30,50,90}, InnerLinkColor={RGB}{30,70,140},"
            " OuterLinkColor={RGB}{30,70,140}"
        ),
    }


def configure(app: Sphinx, config: Config) -> None:
    """After sphinx-jupyterbook-latex's own ``config-inited`` (it sets its theme and preamble)."""
    if config.ropelab_edition not in EDITIONS:
        raise ConfigError(
            f"ropelab_edition must be one of {EDITIONS}, not {config.ropelab_edition!r}"
        )
    app.tags.add(config.ropelab_edition)
    # The book's class instead of jupyterBook.cls (which needs tikz, pgfplots and bbm).
    config.latex_theme = "ropelabBook"
    config.latex_additional_files = [
        *config.latex_additional_files,
        str(LATEX_DIR / "ropelabBook.cls"),
        str(LATEX_DIR / "ropelab-kit.sty"),
    ]
    elements = dict(config.latex_elements)
    ours = _latex_elements()
    # sphinx-jupyterbook-latex appended its preamble (unicode-math, ucharclasses): keep it.
    ours["preamble"] = ours["preamble"] + "\n" + elements.pop("preamble", "")
    elements.update(ours)
    config.latex_elements = elements
    config.latex_use_xindy = False
    if str(ASSETS) not in config.html_static_path:
        config.html_static_path = [*config.html_static_path, str(ASSETS)]
    app.add_css_file("ropelab-kit.css", priority=910)


# --- the student edition ------------------------------------------------------------------


class RemoveSolutions(SphinxTransform):
    """The student edition: drop every sphinx-exercise solution (the exercise stays, with its
    number; the numbers come from the exercises only).

    A gated solution (``solution-start``, the chapter's executed code cells, ``solution-end``)
    has been merged into one solution node by sphinx-exercise's ``MergeGatedSolutions``
    (priority 10) before this runs, so its code cells and their outputs go with it.
    """

    default_priority = 100

    def apply(self, **kwargs: Any) -> None:
        if self.config.ropelab_edition != "student":
            return
        from sphinx_exercise.nodes import (
            solution_end_node,
            solution_node,
            solution_start_node,
        )

        for node in list(self.document.findall(solution_node)):
            node.parent.remove(node)
        unmerged = list(self.document.findall(solution_start_node)) + list(
            self.document.findall(solution_end_node)
        )
        if unmerged:
            logger.warning(
                "a solution-start or solution-end was left unmerged (a gated solution whose "
                "start and end are not siblings): its cells would reach the student edition",
                location=unmerged[0],
            )


# --- the LaTeX build ----------------------------------------------------------------------


def _cell_tags(cell: nodes.Element) -> set[str]:
    return {c[len("tag_") :] for c in cell.get("classes", []) if c.startswith("tag_")}


def _is_explorable_cell(cell: nodes.Element) -> bool:
    """A code cell whose output holds an explorable (HTML with ``ropelab-explorable``)."""
    for raw in cell.findall(nodes.raw):
        if "html" in raw.get("format", "") and "ropelab-explorable" in raw.astext():
            return True
    return False


def _code_cells(document: nodes.Node) -> list[nodes.Element]:
    return [
        node for node in document.findall(nodes.container) if node.get("nb_element") == "cell_code"
    ]


class LatexDropScreenCells(SphinxPostTransform):
    """Leave the explorables and the ``screen-only`` cells out of the PDF. Runs before myst-nb
    picks a mime type (priority 4), which would otherwise print an explorable's text repr."""

    default_priority = 3
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        for cell in _code_cells(self.document):
            if "screen-only" in _cell_tags(cell) or _is_explorable_cell(cell):
                cell.parent.remove(cell)


def _docname_of(node: nodes.Node) -> str | None:
    """The page a node of the assembled LaTeX tree comes from: its nearest ``start_of_file``,
    or a section that sphinx-jupyterbook-latex marked with its ``docname``."""
    parent = node
    while parent is not None:
        if isinstance(parent, (addnodes.start_of_file, nodes.section)) and parent.get("docname"):
            return parent["docname"]
        parent = parent.parent
    return None


def _latex(text: str) -> nodes.raw:
    return nodes.raw("", text, format="latex")


def _command(name: str, argument: str) -> str:
    """``\\name{argument}`` and a newline."""
    return "\\" + name + "{" + argument + "}\n"


#: ``\\[`` that is not a line break with a length (``\\[2pt]``): SymPy writes rows that start
#: with a bracket (``\\[p_{m+s} - M_s p_m]_0``), which LaTeX would read as that length.
_ROW_BRACKET = re.compile(r"\\\\(\s*)\[(?!\s*-?[\d.]+\s*(?:pt|em|ex|mm|cm|in|bp|mu)\s*\])")
#: The same at the start of an ``aligned`` block, which LaTeX would read as its position.
_BLOCK_BRACKET = re.compile(r"(\\begin\{(?:aligned|gathered)\})(\s*)\[(?![tbc]\])")


def fit_display_math(text: str, numbered: bool) -> str:
    """The body of a display equation as ``\\ropelabfit{width}{\\begin{aligned}…\\end{aligned}}``:
    Sphinx's own split (one equation, or one per blank-line separated part), scaled down to
    the line when it is wider. ``numbered`` leaves room for the equation number."""
    parts = [part.strip() for part in text.split("\n\n") if part.strip()]
    width = r"\dimexpr\displaywidth-4em\relax" if numbered else r"\displaywidth"
    body = _ROW_BRACKET.sub(r"\\\\{}\1[", "\\\\\n".join(parts))
    body = _BLOCK_BRACKET.sub(r"\1{}\2[", body)
    return "\\ropelabfit{" + width + "}{\\begin{aligned}" + body + "\n\\end{aligned}}"


def compact_page(start: addnodes.start_of_file, wide: tuple[str, ...]) -> None:
    """A page on one sheet: ``\\ropelabcompactpage`` before its title, small type in two
    columns after it; the sections named in ``wide`` span both columns."""
    top = next((n for n in start.children if isinstance(n, nodes.section)), None)
    if top is None:
        return
    start.insert(start.index(top), _latex("\\begingroup\\ropelabcompactpage\n"))
    title = next(i for i, n in enumerate(top.children) if isinstance(n, nodes.title))
    top.insert(title + 1, _latex("\\scriptsize\\begin{multicols}{2}\n"))
    spanned: set[str] = set()
    for section in list(top.findall(nodes.section)):
        if set(section.get("ids", [])) & set(wide):
            spanned |= set(section["ids"]) & set(wide)
            parent = section.parent
            index = parent.index(section)
            parent.insert(index + 1, _latex("\\begin{multicols}{2}\n"))
            parent.insert(index, _latex("\\end{multicols}\n"))
    top.append(_latex("\\end{multicols}\\endgroup\n"))
    for missing in sorted(set(wide) - spanned):
        logger.warning(
            "compact page %s: no section %r to span both columns", start["docname"], missing
        )


def fit_table_columns(table: nodes.table) -> None:
    """Give a table without widths column widths in proportion to its longest cell text (6 to
    60 characters), so LaTeX wraps long cells instead of running past the margin."""
    if "colwidths-given" in table.get("classes", []):
        return
    for group in table.findall(nodes.tgroup):
        specs = [c for c in group.children if isinstance(c, nodes.colspec)]
        # A column needs its longest word on one line, and room in proportion to its text.
        word = [4] * len(specs)
        text = [4] * len(specs)
        for row in group.findall(nodes.row):
            for index, entry in enumerate(c for c in row.children if isinstance(c, nodes.entry)):
                if index < len(specs):
                    words = entry.astext().split()
                    word[index] = max(word[index], max((len(w) for w in words), default=0))
                    text[index] = max(text[index], min(len(" ".join(words)), 90))
        for index, spec in enumerate(specs):
            spec["colwidth"] = min(word[index], 24) + text[index] // 3
    table["classes"] = [*table.get("classes", []), "colwidths-given"]


class LatexBookLayout(SphinxPostTransform):
    """Chapter numbers, the site's figure and table numbers, equations that fit, coloured
    chapter boxes. After references are resolved (10) and before sphinx-jupyterbook-latex
    rearranges the tree into parts (700), which leaves stale parent links behind."""

    default_priority = 650
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        from ropebook.ext.chapter_numbers import chapter_number

        env = self.env
        for start in list(self.document.findall(addnodes.start_of_file)):
            number = chapter_number(env, start["docname"]) or ""
            start.insert(0, _latex(_command("ropelabchapter", number)))
            if start["docname"] in COMPACT_PAGES:
                compact_page(start, COMPACT_PAGES[start["docname"]])

        for kind, command in (("figure", "ropelabfignum"), ("table", "ropelabtablenum")):
            for node in list(self.document.findall(getattr(nodes, kind))):
                docname = _docname_of(node)
                ids = node.get("ids") or []
                numbers = env.toc_fignumbers.get(docname or "", {}).get(kind, {})
                found = next((numbers[i] for i in ids if i in numbers), None)
                if found is None:
                    continue
                label = ".".join(str(n) for n in found)
                node.parent.insert(node.parent.index(node), _latex(_command(command, label)))

        for table in list(self.document.findall(nodes.table)):
            fit_table_columns(table)

        for math in list(self.document.findall(nodes.math_block)):
            if math.get("nowrap"):
                continue
            label = math.get("label")
            if label:
                target = f"equation:{math['docname']}:{label}"
                begin = "\\begin{equation}" + _command("label", target).rstrip()
                end = "\\end{equation}"
            else:
                begin, end = "\\begin{equation*}", "\\end{equation*}"
            body = fit_display_math(math.astext(), numbered=bool(label))
            math.replace_self(_latex(f"{begin}\n{body}\n{end}\n"))

        for admonition in list(self.document.findall(nodes.admonition)):
            classes = admonition.get("classes", [])
            for cls, env_name in ((META_CLASS, "ropelabmeta"), (REMEMBER_CLASS, "ropelabremember")):
                if cls in classes:
                    parent = admonition.parent
                    index = parent.index(admonition)
                    parent.insert(index + 1, _latex(_command("end", env_name)))
                    parent.insert(index, _latex(_command("begin", env_name)))


# --- the site: the kit's files and links -------------------------------------------------


def kit_dir(app: Sphinx) -> Path:
    """Where ``make kit`` put the kit (``ropelab_kit_dir``, relative to the book's root)."""
    return (Path(app.srcdir) / app.config.ropelab_kit_dir).resolve()


def language_of(app: Sphinx) -> str:
    """``"en"`` or ``"zh"`` (``ropelab_language``, set by ``tools/build_zh.py``)."""
    return getattr(app.config, "ropelab_language", "en") or "en"


def kit_root(app: Sphinx) -> str:
    """Where the kit's files are, seen from this site's root: ``""`` (the English sites: they
    are copied in), or ``ropelab_kit_root`` for a site that is a folder of the English one
    (the Chinese edition ``zh/``, the Chinese student edition ``student/zh/``: ``".."``), which
    links the files its parent serves and copies nothing."""
    return app.config.ropelab_kit_root.strip("/")


def kit_items(app: Sphinx) -> dict[str, str]:
    """The kit's files this site will serve, by name -> path in the site (only those built)."""
    if kit_root(app):
        return chinese_kit_items(app)
    source = kit_dir(app)
    edition = app.config.ropelab_edition
    items: dict[str, str] = {}
    if (source / pdf_name(edition)).is_file():
        items["pdf"] = pdf_name(edition)
    if (source / FIGURES_ARCHIVE).is_file():
        items["figures"] = FIGURES_ARCHIVE
    if (source / SLIDES_DIR / "index.html").is_file():
        items["slides"] = f"{SLIDES_DIR}/index.html"
    if edition == "instructor" and (source / STUDENT_DIR / "index.html").is_file():
        items["student"] = f"{STUDENT_DIR}/index.html"
    english = getattr(app.config, "ropelab_language", "en") == "en"
    if edition == "instructor" and english and (source / ZH_DIR / "index.html").is_file():
        items["zh"] = f"{ZH_DIR}/index.html"
    if edition == "instructor" and english and (source / pdf_name(ZH_DIR)).is_file():
        items["pdf-zh"] = pdf_name(ZH_DIR)
    return items


def chinese_kit_items(app: Sphinx) -> dict[str, str]:
    """The kit's files a Chinese site links (issue 34), by name -> path from its root, up to
    the English site that serves them (:func:`kit_root`): the Chinese PDF (the Chinese student
    edition: the student PDF, which has no Chinese version), the Chinese decks, the figures
    and (the instructor edition) the Chinese student edition; only those built."""
    source = kit_dir(app)
    student = app.config.ropelab_edition == "student"
    found = {
        "pdf": pdf_name("student" if student else ZH_DIR),
        "slides": f"{SLIDES_DIR}/{ZH_DIR}/index.html",
        "figures": FIGURES_ARCHIVE,
    }
    if not student:
        found["student"] = f"{STUDENT_DIR}/{ZH_DIR}/index.html"
    root = kit_root(app)
    return {key: f"{root}/{path}" for key, path in found.items() if (source / path).is_file()}


def has_slides(app: Sphinx, docname: str) -> bool:
    return is_chapter(docname) and (kit_dir(app) / slides_path(docname, language_of(app))).is_file()


def deck_link(app: Sphinx, docname: str) -> str:
    """The chapter's deck, as a path from the site's root (:func:`kit_root`)."""
    root = kit_root(app)
    path = slides_path(docname, language_of(app))
    return f"{root}/{path}" if root else path


def copy_kit(app: Sphinx, exception: Exception | None) -> None:
    """Copy the built kit into the site: this edition's PDF, the figures, the slides and (into
    the instructor site) the student edition and the Chinese edition. A Chinese site copies
    nothing: it links its parent's (:func:`kit_root`)."""
    if exception is not None or app.builder.format != "html" or kit_root(app):
        return
    source, out = kit_dir(app), Path(app.outdir)
    for relative in kit_items(app).values():
        top = Path(relative).parts[0]
        if top in (SLIDES_DIR, STUDENT_DIR, ZH_DIR):
            shutil.copytree(source / top, out / top, dirs_exist_ok=True)
        else:
            (out / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / relative, out / relative)


def add_kit_buttons(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """A "Lecturer's kit" menu in the header of every page (after the theme's own buttons),
    with what the kit holds: the PDF, this chapter's slides, the figures, the student edition."""
    buttons = context.get("header_buttons")
    if buttons is None:
        return
    pathto = context["pathto"]
    available = kit_items(app)
    student = app.config.ropelab_edition == "student"
    chinese = language_of(app) == "zh"
    entries = (
        kit_menu_zh(student)
        if chinese
        else [
            (
                "pdf",
                "Book (PDF, student edition)" if student else "Book (PDF)",
                "The whole book as a PDF",
                "fas fa-book",
            ),
            ("slides", "Slides", "This chapter's slides", "fas fa-person-chalkboard"),
            (
                "figures",
                "Figures (SVG, PDF)",
                "Every figure of the book as SVG and PDF, with its number and caption",
                "fas fa-images",
            ),
            (
                "student",
                "Student edition",
                "The book without the solutions",
                "fas fa-user-graduate",
            ),
        ]
    )
    items = []
    for key, text, tooltip, icon in entries:
        if key not in available:
            continue
        target = available[key]
        if key == "slides":
            if not has_slides(app, pagename):
                continue
            target = deck_link(app, pagename)
        items.append(
            {
                "type": "link",
                # (a Chinese site's kit is its parent's: "../slides/zh/…" from its root)
                "url": _relative(app, pagename, target) if kit_root(app) else pathto(target, 1),
                "text": text,
                "tooltip": tooltip,
                "icon": icon,
                "label": f"kit-{key}-button",
            }
        )
    if not student and TEACHING_DOC in app.env.found_docs:
        items.append(
            {
                "type": "link",
                # (pathto gives "#" on the page itself; the menu links the file everywhere)
                "url": _relative(app, pagename, app.builder.get_target_uri(TEACHING_DOC)),
                "text": "用本书授课" if chinese else "Teaching with this book",
                "tooltip": "一次、两次和四次课的授课方案"
                if chinese
                else "Course paths of one, two and four lectures",
                "icon": "fas fa-route",
                "label": "kit-teaching-button",
            }
        )
    if items:
        buttons.append(
            {
                "type": "group",
                "tooltip": "讲师工具包" if chinese else "Lecturer's kit",
                "icon": "fas fa-chalkboard-user",
                "buttons": items,
                "label": "kit-buttons",
            }
        )


def _relative(app: Sphinx, docname: str, target: str) -> str:
    """A link from a page to a file of the site (both relative to the site's root)."""
    page = app.builder.get_target_uri(docname)
    return posixpath.relpath(target, posixpath.dirname(page) or ".")


class PageSectionId(SphinxPostTransform):
    """The first section of a page of :data:`PAGE_IDS` has that id first (on the site)."""

    default_priority = 900
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        wanted = PAGE_IDS.get(self.env.docname)
        if not wanted:
            return
        section = next(iter(self.document.findall(nodes.section)), None)
        if section is not None and section["ids"][:1] != [wanted]:
            section["ids"] = [wanted, *(i for i in section["ids"] if i != wanted)]


class SlidesLinkInChapterBox(SphinxPostTransform):
    """On a chapter page, the "Before you start" box ends with a link to the chapter's slides."""

    default_priority = 900
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        docname = self.env.docname
        if not has_slides(self.app, docname):
            return
        chinese = language_of(self.app) == "zh"
        for admonition in self.document.findall(nodes.admonition):
            if META_CLASS in admonition.get("classes", []):
                href = _relative(self.app, docname, deck_link(self.app, docname))
                paragraph = nodes.paragraph(classes=["kit-slides-link"])
                text, note = (
                    ("本章幻灯片", "（reveal.js；按 F 全屏，按 S 打开演讲者视图）")
                    if chinese
                    else (
                        "Slides for this chapter",
                        " (reveal.js; press F for full screen, S for the speaker view)",
                    )
                )
                paragraph += nodes.raw(
                    "",
                    f'<a class="reference external" href="{href}">{text}</a>{note}',
                    format="html",
                )
                admonition += paragraph
                break


def kit_menu_zh(student: bool) -> list[tuple[str, str, str, str]]:
    """The "Lecturer's kit" menu of a Chinese page (issue 34): key, label, tooltip, icon."""
    return [
        (
            "pdf",
            "全书 PDF（学生版，英文）" if student else "全书 PDF（中文版）",
            "整本书的 PDF",
            "fas fa-book",
        ),
        ("slides", "幻灯片", "本章的幻灯片（中文）", "fas fa-person-chalkboard"),
        (
            "figures",
            "全部图片（SVG、PDF）",
            "书中每幅图的 SVG 和 PDF，按编号命名，附图注",
            "fas fa-images",
        ),
        ("student", "学生版", "不含解答的本书（中文）", "fas fa-user-graduate"),
    ]


#: The kit's parts on a page of the Chinese edition (issue 27): title and what it holds.
KIT_PARTS_ZH: dict[str, tuple[str, str]] = {
    "pdf": ("全书 PDF（英文版）", "每一章、每幅图和每道练习，含解答"),
    "slides": (
        "幻灯片",
        "每章一套 reveal.js 幻灯片，取自各章标为幻灯片的单元：关键公式、图和可交互图；离线可用",
    ),
    "figures": (
        "全部图片（SVG 与 PDF）",
        "按编号命名（fig-5-2-decay-sweep.svg），附书中的图注，打包为一个文件",
    ),
    "student": ("学生版", "不含解答的网站与 PDF"),
    "pdf-zh": ("中文版 PDF", "中文版全书，含解答"),
}


class KitLinks(SphinxDirective):
    """``{kit-links}``: the kit's parts as a list; on the site each is a link to the file the
    site serves (plain text where this build has no kit, and in the PDF)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        app = self.env.app
        available = kit_items(app) if app.builder.format == "html" else {}
        student = self.config.ropelab_edition == "student"
        parts = [
            (
                "pdf",
                "The book as a PDF",
                "every chapter, figure and exercise"
                + (", without the solutions" if student else ", with the solutions"),
            ),
            (
                "slides",
                "Slides",
                "a reveal.js deck per chapter, made of the cells the chapter marks for slides:"
                " its key equations, figures and explorable; they work offline",
            ),
            (
                "figures",
                "Every figure as SVG and PDF",
                "named by its number (fig-5-2-decay-sweep.svg), with the book's captions, in"
                " one archive",
            ),
        ]
        if not student:
            parts.append(
                ("student", "The student edition", "this site and the PDF without the solutions")
            )
            parts.append(
                (
                    "pdf-zh",
                    "The Chinese edition as a PDF",
                    "the book in Chinese, with the solutions",
                )
            )
        if str(self.config.language or "").startswith("zh"):
            parts = [(key, *KIT_PARTS_ZH[key]) for key, _, _ in parts if key in KIT_PARTS_ZH]
            if kit_root(app) and not student:
                # the Chinese site's "pdf" is the Chinese PDF (chinese_kit_items)
                parts = [
                    (key, *KIT_PARTS_ZH["pdf-zh"]) if key == "pdf" else (key, title, what)
                    for key, title, what in parts
                    if key != "pdf-zh"
                ]
            if student:
                # The Chinese student edition (issue 31): its PDF part says "without".
                parts = [
                    (key, title, what.replace("含解答", "不含解答")) for key, title, what in parts
                ]
        items = nodes.bullet_list()
        for key, title, what in parts:
            paragraph = nodes.paragraph()
            if key in available:
                href = _relative(app, self.env.docname, available[key])
                paragraph += nodes.raw(
                    "",
                    f'<a class="reference external kit-{key}" href="{href}">'
                    f"<strong>{title}</strong></a>",
                    format="html",
                )
            else:
                paragraph += nodes.strong(text=title)
            chinese = str(self.config.language or "").startswith("zh")
            paragraph += nodes.Text(f"：{what}。" if chinese else f": {what}.")
            items += nodes.list_item("", paragraph)
        return [items]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("ropelab_edition", "instructor", "env", types=[str])
    app.add_config_value("ropelab_kit_dir", "_build/kit", "env", types=[str])
    # "" (the English sites) or ".." (a Chinese site inside the English one: kit_root)
    app.add_config_value("ropelab_kit_root", "", "env", types=[str])
    # After sphinx-jupyterbook-latex's override_latex_config (priority 500).
    app.connect("config-inited", configure, priority=800)
    app.add_transform(RemoveSolutions)
    app.add_post_transform(LatexDropScreenCells)
    app.add_post_transform(LatexBookLayout)
    app.add_post_transform(SlidesLinkInChapterBox)
    app.add_post_transform(PageSectionId)
    app.add_directive("kit-links", KitLinks)
    # After sphinx-book-theme's add_header_buttons (priority 501).
    app.connect("html-page-context", add_kit_buttons, priority=520)
    app.connect("build-finished", copy_kit)
    # Every page links to the same page in the other language (issue 27).
    app.setup_extension("ropebook.ext.language_switch")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
