"""The language switch (issue 27): every page links to the same page in the other language.

The Chinese edition (``tools/build_zh.py``) is a site of its own, copied into the English site
as ``zh/`` (``src/ropebook/ext/lecturer_kit.py``, from the kit's ``zh/``). At the top of every page's
article this extension puts one link: "中文" on an English page, to the same page under
``zh/``; "English" on a Chinese page, to the same page one folder up. The links are relative,
so they work in a site read from files.

Configuration (``sphinx.config``): ``ropelab_language`` is ``"en"`` (the default) or ``"zh"``
(set by ``tools/build_zh.py``). An English page links to Chinese only when the kit holds that
page of the Chinese edition (``<ropelab_kit_dir>/zh/``): a build without it (the quick site,
a ``make book`` without the kit) has no switch rather than a dead link. The student edition
(issue 31) has its own Chinese student edition inside it (``student/zh/``, ``tools/build_student.py``):
its English pages link there and its Chinese pages back to ``student/``, never to the full
editions. ``ropelab_zh_site`` names the built Chinese site whose pages an English page may link
to (default: the kit's ``zh/``; the student build sets its Chinese student site).

In the Chinese edition the figure and table captions also get a full-width colon after their
number ("图 4.2：…"), as ``chapter_numbers.py`` gives the English ones theirs.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ConfigError

from ropebook.ext.lecturer_kit import ZH_DIR, kit_dir

LANGUAGES = ("en", "zh")
#: What the link says: the other language, named in itself.
LINK_TEXT = {"en": "中文", "zh": "English"}
HREFLANG = {"en": "zh-Hans", "zh": "en"}
CLASS = "ropelab-language"
STYLE = (
    f"<style>.{CLASS}{{text-align:right;margin:0 0 .25rem;font-size:.9rem}}"
    f"@media print{{.{CLASS}{{display:none}}}}</style>"
)
_ZH_CAPTION_NUMBER = re.compile(r'(<span class="caption-number">(?:图|表|代码) [^<]*?) </span>')


def check_config(app: Sphinx, config: Config) -> None:
    if config.ropelab_language not in LANGUAGES:
        raise ConfigError(
            f"ropelab_language must be one of {LANGUAGES}, not {config.ropelab_language!r}"
        )


def other_root(app: Sphinx) -> str:
    """The other language's site root, relative to this site's root: the Chinese site sits in
    ``zh/`` of the English one (in both editions: ``zh/`` and ``student/zh/``)."""
    return ".." if app.config.ropelab_language == "zh" else ZH_DIR


def zh_site(app: Sphinx) -> Path:
    """The built Chinese site an English page links to (``ropelab_zh_site``, else the kit's)."""
    named = app.config.ropelab_zh_site
    return Path(named).resolve() if named else kit_dir(app) / ZH_DIR


def switch_target(app: Sphinx, pagename: str) -> str | None:
    """The link from ``pagename`` to the same page in the other language (None: no such page)."""
    page = app.builder.get_target_uri(pagename)
    if app.config.ropelab_language == "en":
        if not (zh_site(app) / page).is_file():
            return None
    target = posixpath.normpath(posixpath.join(other_root(app), page))
    return posixpath.relpath(target, posixpath.dirname(page) or ".")


def add_switch(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if app.builder.format != "html" or "body" not in context:
        return
    language = app.config.ropelab_language
    if language == "zh":
        context["body"] = _ZH_CAPTION_NUMBER.sub(r"\1：</span>", context["body"])
    href = switch_target(app, pagename)
    if href is None:
        return
    link = (
        f'<p class="{CLASS}"><a class="reference external {CLASS}-link" href="{href}" '
        f'hreflang="{HREFLANG[language]}" lang="{HREFLANG[language]}">{LINK_TEXT[language]}</a></p>'
    )
    context["body"] = link + context["body"]
    context["metatags"] = context.get("metatags", "") + STYLE


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("ropelab_language", "en", "env", types=[str])
    app.add_config_value("ropelab_zh_site", "", "env", types=[str])
    app.connect("config-inited", check_config)
    app.connect("html-page-context", add_switch)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
