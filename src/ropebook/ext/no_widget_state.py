"""Drop the saved state of live ipywidgets from the site's pages.

Building the book executes every chapter, including the collapsed "Run it live" cells, and
myst-nb embeds the widget models those cells created in each page as a JSON script
(``application/vnd.jupyter.widget-state+json``, 90 to 175 KB a page). The site loads no
widget manager (``nb_ipywidgets_js: {}``): live widgets are for a running kernel, and the
explorables are what responds on a static page. So the state is never read, and this
extension leaves it out.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx

WIDGET_STATE_TYPE = "application/vnd.jupyter.widget-state+json"


def is_widget_state(asset: Any) -> bool:
    """Whether a page's script asset is myst-nb's embedded widget state."""
    return getattr(asset, "attributes", {}).get("type") == WIDGET_STATE_TYPE


def _strip_widget_state(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    if "script_files" in context:
        context["script_files"] = [a for a in context["script_files"] if not is_widget_state(a)]


def setup(app: Sphinx) -> dict[str, Any]:
    # after myst-nb's own handler (priority 500) has added the page's scripts
    app.connect("html-page-context", _strip_widget_state, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
