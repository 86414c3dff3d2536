"""Drop sphinx-thebe's scripts and stylesheet from every page.

Jupyter Book 1.x always loads sphinx-thebe, which adds its inline configuration script twice
per page (the second copy throws "Identifier 'THEBE_JS_URL' has already been declared") and
names a CDN for thebe itself. The book launches notebooks on Colab and Binder instead
(``launch_buttons.thebe: false``), so none of these assets is needed on the static site.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx


def _is_thebe(asset: Any) -> bool:
    filename = str(getattr(asset, "filename", "") or "")
    body = str(getattr(asset, "attributes", {}).get("body", ""))
    return "thebe" in filename or "THEBE_JS_URL" in body


def _strip_thebe(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    for key in ("script_files", "css_files"):
        if key in context:
            context[key] = [asset for asset in context[key] if not _is_thebe(asset)]


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("html-page-context", _strip_thebe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
