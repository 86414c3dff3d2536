"""Pages that load fast on a phone (issue 28): the mathematics typeset at build time, the
icons from a font of the glyphs the site shows.

A page of the theme used to fetch about 2.8 MB of scripts before a reader saw a typeset line:
Font Awesome's SVG-with-JavaScript build (``fontawesome.js``, 1.5 MB, for about twenty icons)
and MathJax's ``tex-chtml-full.js`` (1.3 MB), which then typeset every equation in the
browser (0.5 to 2 s a chapter in headless Chromium). After the HTML build this extension:

* **typesets the mathematics** of every page with the same MathJax (npm's ``mathjax``, run in
  Node by ``typeset_math.js``): every element of class ``math`` (Sphinx's inline and display
  math, SymPy's LaTeX outputs) becomes MathJax's CommonHTML, with the page's stylesheet of the
  glyphs it uses and MathJax's TeX fonts from ``_static/mathjax``. The TeX input has every
  extension (``tex-full``: nothing the book writes can be missing, and none of it is shipped to
  the reader); MathJax's **assistive MathML** is kept beside each equation (hidden on screen,
  read by screen readers), as in the browser build. The MathJax script and its configuration
  are no longer on the pages. An equation MathJax cannot read stops the build.
* **drops ``fontawesome.js``**: the theme's stylesheet already draws the same ``fa-*`` icons
  with Font Awesome's webfonts; those fonts are cut down (fontTools) to the glyphs of the icons
  the pages and the theme's stylesheets use, and served as ``_static/ropelab-icons/*.woff``
  from ``ropelab-icons.css``, which replaces the theme's font files; the ``.fa-*`` rules of
  the other 1,800 icons are left out of the theme's stylesheet (85 KB).
* **loads the search index on the search page only**: the theme puts Sphinx's search scripts
  and ``searchindex.js`` (125 KB, growing with the book) on every page for its
  search-as-you-type field, which is off (``search_as_you_type``); the search box of every
  page submits to the search page, which loads them.

``page_weight.json`` (``tests/browser/test_pages.py``) records each page's weight and time to
typeset; ``tests/browser/test_weight.py`` holds the budgets.
"""

from __future__ import annotations

import json
import posixpath
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

from ropebook.ext.narrow_math import display_tex, narrow_request, without_author_form

logger = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent

TYPESET_SCRIPT = HERE / "typeset_math.js"
#: Where the site serves MathJax's fonts (``html_static_path``: vendor/ -> _static/).
FONTS = "_static/mathjax/output/chtml/fonts/woff-v2"
#: Beside the site (``_build/narrow_math.json``): each narrow form with its wide form.
NARROW_LOG = "narrow_math.json"
#: The first thing in a page's MathJax stylesheet: marks a page as typeset already.
STYLE_ID = "MJX-CHTML-styles"
#: The size the browser gave the book's equations (MathJax matches the surrounding font's
#: x-height: 127.3 % of the text in the theme's font in Chromium); in Node there is no font to
#: measure, so the factor is fixed.
MATH_SCALE = 1.273

ICONS_CSS = "ropelab-icons.css"
ICONS_DIR = "ropelab-icons"
#: The theme's webfonts and the CSS family, weight of each.
FA_FONTS = {
    "fa-solid-900": ("Font Awesome 6 Free", 900),
    "fa-regular-400": ("Font Awesome 6 Free", 400),
    "fa-brands-400": ("Font Awesome 6 Brands", 400),
}
FA_SCRIPT = re.compile(r'<script[^>]*src="[^"]*scripts/fontawesome\.js[^"]*"[^>]*>\s*</script>\s*')
#: The theme loads Sphinx's search index on every page for its search-as-you-type field
#: (``search_as_you_type``, off here): the search page loads it; the other pages submit to it.
SEARCH_SCRIPTS = re.compile(
    r'<script src="[^"]*(?:_static/searchtools\.js|_static/language_data\.js|searchindex\.js)"'
    r">\s*</script>\s*"
)
#: An element whose class list holds ``math``: its opening tag, name and inside.
MATH_ELEMENT = re.compile(
    r'(<(span|div)\b[^>]*\bclass="(?:[^"]*\s)?math(?:\s[^"]*)?"[^>]*>)(.*?)(</\2>)', re.S
)
TEX_DELIMITERS = re.compile(r"\\\(|\\\[|\$\$|\\begin\{")
ICON_CLASS = re.compile(r"\bfa-([a-z0-9]+(?:-[a-z0-9]+)*)\b")
#: ``.fa-bars:before,.fa-navicon:before{content:"\f0c9"}`` in the theme's stylesheet.
ICON_RULE = re.compile(r'([^{}]+)\{content:"\\([0-9a-f]{4,5})"\}')
ICON_CONTENT = re.compile(r'(?:content:|--pst-icon-[a-z-]+:)\s*"\\([0-9a-f]{4,5})"')


# --- the mathematics -----------------------------------------------------------------------


def drop_mathjax_script(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    """Leave MathJax's script and configuration off the page (its math is typeset already)."""
    if "script_files" not in context:
        return
    path = app.config.mathjax_path or ""
    kept = []
    for asset in context["script_files"]:
        filename = str(getattr(asset, "filename", asset) or "")
        body = getattr(asset, "attributes", {}).get("body", "")
        if (path and filename.split("?")[0].endswith(path)) or body.startswith("window.MathJax"):
            continue
        kept.append(asset)
    context["script_files"] = kept


def mathjax_config(app: Sphinx) -> dict[str, Any]:
    """The configuration the browser would have had (``mathjax3_config``), plus the scale."""
    config = dict(app.config.mathjax3_config or {})
    chtml = dict(config.get("chtml", {}))
    chtml.setdefault("scale", MATH_SCALE)
    chtml.setdefault("matchFontHeight", False)
    return {"tex": config.get("tex", {}), "chtml": chtml, "options": config.get("options", {})}


def with_narrow_form(wide: str, narrow: str) -> str:
    """A display fragment with its narrow form after the wide one (issue 33): both MathJax
    containers are marked ``data-ropelab-variant``; the narrow one starts hidden from screen
    readers (``ropelab-narrow.js`` moves ``aria-hidden`` to whichever is hidden)."""
    wide = wide.replace("<mjx-container ", '<mjx-container data-ropelab-variant="wide" ', 1)
    narrow = narrow.strip().replace(
        "<mjx-container ", '<mjx-container data-ropelab-variant="narrow" aria-hidden="true" ', 1
    )
    return wide + narrow


def typeset(requests: list[dict[str, Any]], config: dict[str, Any]) -> list[dict[str, Any]]:
    """Every page's math fragments (and the narrow forms asked for, issue 33) through
    ``typeset_math.js`` (one Node process)."""
    node = shutil.which("node")
    if node is None:
        raise ExtensionError("light_pages: Node.js is needed to typeset the mathematics")
    payload = json.dumps({"config": config, "pages": requests})
    done = subprocess.run(
        [node, str(TYPESET_SCRIPT)], input=payload, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise ExtensionError(f"light_pages: MathJax in Node failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout)["pages"]


def math_fragments(page: str) -> list[re.Match]:
    """The page's elements of class ``math`` that still hold TeX."""
    return [m for m in MATH_ELEMENT.finditer(page) if TEX_DELIMITERS.search(m.group(3))]


def typeset_pages(app: Sphinx, outdir: Path, pages: list[Path]) -> int:
    """Typeset the math of ``pages`` in place; returns the number of equations."""
    found = []
    for path in pages:
        text = path.read_text(encoding="utf-8")
        if f'id="{STYLE_ID}"' in text:
            continue
        matches = math_fragments(text)
        if matches:
            found.append((path, text, matches))
    if not found:
        return 0
    requests = []
    for _, _, matches in found:
        narrow = {}
        for index, match in enumerate(matches):
            if match.group(2) == "div":
                request = narrow_request(match.group(3))
                if request:
                    narrow[index] = request
        fragments = [without_author_form(m.group(3)) for m in matches]
        requests.append({"fragments": fragments, "narrow": narrow})
    results = typeset(requests, mathjax_config(app))
    total = 0
    narrow_log = []
    for (path, text, matches), result in zip(found, results, strict=True):
        relative = path.relative_to(outdir).as_posix()
        for index, tex in result["narrowTeX"].items():
            wide = display_tex(matches[int(index)].group(3))
            narrow_log.append({"page": relative, "wide": wide, "narrow": tex})
        if result["failed"]:
            raise ExtensionError(
                f"light_pages: {relative}: MathJax could not read {result['failed'][:3]}"
            )
        fonts = posixpath.relpath(FONTS, posixpath.dirname(relative) or ".")
        pieces, last = [], 0
        for index, (match, typeset_html) in enumerate(
            zip(matches, result["fragments"], strict=True)
        ):
            narrow = result["narrow"].get(str(index))
            if narrow:
                typeset_html = with_narrow_form(typeset_html, narrow)
            pieces += [text[last : match.start(3)], typeset_html]
            last = match.end(3)
        pieces.append(text[last:])
        page = "".join(pieces)
        css = result["css"].replace("@ROPELAB_MATHJAX_FONTS@", fonts)
        page = page.replace("</head>", f'<style id="{STYLE_ID}">\n{css}</style>\n</head>', 1)
        path.write_text(page, encoding="utf-8")
        total += result["equations"]
    # every narrow form of the build, to read them side by side with the wide ones
    (outdir.parent / NARROW_LOG).write_text(
        json.dumps(narrow_log, indent=1, ensure_ascii=False), encoding="utf-8"
    )
    return total


# --- the icons -----------------------------------------------------------------------------


def icon_codepoints(outdir: Path, pages: list[Path]) -> set[int]:
    """The Font Awesome glyphs the site shows: the ``fa-*`` classes of its pages and scripts,
    and every icon a stylesheet names directly (the theme's ``--pst-icon-*``, ``content:``)."""
    static = outdir / "_static"
    names: set[str] = set()
    for path in pages:
        names |= set(ICON_CLASS.findall(path.read_text(encoding="utf-8")))
    for path in static.rglob("*.js"):
        if path.name != "fontawesome.js":
            names |= set(ICON_CLASS.findall(path.read_text(encoding="utf-8", errors="ignore")))
    codepoints: set[int] = set()
    for path in static.rglob("*.css"):
        css = path.read_text(encoding="utf-8", errors="ignore")
        rules = ICON_RULE.findall(css)
        icon_rules = set()
        for selectors, code in rules:
            for selector in selectors.split(","):
                match = re.fullmatch(r"\s*\.fa-([a-z0-9-]+):(?::)?before\s*", selector)
                if match:
                    icon_rules.add(code)
                    if match.group(1) in names:
                        codepoints.add(int(code, 16))
        for code in ICON_CONTENT.findall(css):
            if code not in icon_rules:
                codepoints.add(int(code, 16))
    return codepoints


def prune_icon_rules(outdir: Path, codepoints: set[int]) -> int:
    """Drop from the theme's stylesheet the ``.fa-*:before`` rules of icons no page shows (1,800
    of them, 85 KB); returns the bytes saved."""
    path = outdir / "_static" / "styles" / "pydata-sphinx-theme.css"
    if not path.exists():
        return 0
    css = path.read_text(encoding="utf-8")

    def keep(match: re.Match) -> str:
        selectors = [s for s in match.group(1).split(",") if s.strip()]
        icon_only = all(re.fullmatch(r"\s*\.fa-[a-z0-9-]+:(?::)?before\s*", s) for s in selectors)
        if icon_only and int(match.group(2), 16) not in codepoints:
            return ""
        return match.group(0)

    pruned = ICON_RULE.sub(keep, css)
    path.write_text(pruned, encoding="utf-8")
    return len(css.encode()) - len(pruned.encode())


def subset_icon_fonts(outdir: Path, codepoints: set[int]) -> dict[str, int]:
    """The theme's Font Awesome fonts cut to ``codepoints``, as WOFF; returns their sizes."""
    from fontTools import subset

    source_dir = outdir / "_static" / "vendor" / "fontawesome" / "webfonts"
    target_dir = outdir / "_static" / ICONS_DIR
    target_dir.mkdir(parents=True, exist_ok=True)
    sizes, faces = {}, []
    for stem, (family, weight) in FA_FONTS.items():
        source = source_dir / f"{stem}.ttf"
        if not source.exists():
            continue
        options = subset.Options()
        options.flavor = "woff"
        options.layout_features = ["*"]
        options.name_IDs = ["*"]
        options.notdef_outline = True
        font = subset.load_font(str(source), options)
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=sorted(codepoints))
        subsetter.subset(font)
        target = target_dir / f"{stem}.woff"
        subset.save_font(font, str(target), options)
        sizes[target.name] = target.stat().st_size
        faces.append(
            "@font-face{font-display:block;"
            f'font-family:"{family}";font-style:normal;font-weight:{weight};'
            f'src:url({ICONS_DIR}/{target.name}) format("woff")}}'
        )
    header = (
        "/* Font Awesome Free (SIL OFL 1.1), cut to the icons this site shows by "
        "src/ropebook/ext/light_pages.py. */\n"
    )
    (outdir / "_static" / ICONS_CSS).write_text(header + "\n".join(faces) + "\n", encoding="utf-8")
    return sizes


# --- the build -----------------------------------------------------------------------------


#: Folders of the site this build did not write: the lecturer's kit copied in by
#: src/ropebook/ext/lecturer_kit.py (the slides load their own MathJax; the student edition went
#: through this extension when it was built).
COPIED = {"_static", "_sources", "slides", "student", "kit"}


def site_pages(outdir: Path) -> list[Path]:
    """The HTML pages this build wrote (not the static files, nor the kit copied in)."""
    return sorted(
        p for p in outdir.rglob("*.html") if not (COPIED & set(p.relative_to(outdir).parts[:-1]))
    )


def theme_option(app: Sphinx, name: str) -> Any:
    """A theme option as the theme sees it (its default, or html_theme_options)."""
    builder: Any = app.builder
    try:
        return builder.theme.get_options(builder.theme_options).get(name)
    except AttributeError:
        return None


def lighten(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    pages = site_pages(outdir)
    as_you_type = str(theme_option(app, "search_as_you_type")).lower() == "true"
    for path in pages:
        text = path.read_text(encoding="utf-8")
        lighter = FA_SCRIPT.sub("", text)
        if path.name != "search.html" and not as_you_type:
            lighter = SEARCH_SCRIPTS.sub("", lighter)
        if lighter != text:
            path.write_text(lighter, encoding="utf-8")
    equations = typeset_pages(app, outdir, pages)
    codepoints = icon_codepoints(outdir, pages)
    sizes = subset_icon_fonts(outdir, codepoints)
    saved = prune_icon_rules(outdir, codepoints)
    logger.info(
        f"light_pages: {equations} equations typeset; icon fonts "
        + ", ".join(f"{name} {size / 1024:.1f} KB" for name, size in sizes.items())
        + f"; {saved / 1024:.0f} KB of unused icon rules left out of the theme's stylesheet"
    )


def setup(app: Sphinx) -> dict[str, Any]:
    # after sphinx.ext.mathjax (500) has added its script to the page
    app.connect("html-page-context", drop_mathjax_script, priority=900)
    app.connect("build-finished", lighten)
    app.add_css_file(ICONS_CSS, priority=950)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
