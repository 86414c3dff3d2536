"""The book's own stylesheet and print script on every page (issue 13, "Pages a reader can read").

Serves ``book/assets/`` (not a folder named ``_static``: Jupyter Book would add every file in
it to every page) and adds, after the theme's stylesheets:

* ``ropelab-pages.css``: a wider text column at laptop widths, display math that scrolls inside
  its own box instead of being clipped, the ``screen-only`` / ``print-only`` cell tags, and the
  print stylesheet (no navigation, solutions open, explorables replaced by their static figure,
  code wrapped);
* ``ropelab-narrow.js``: on a narrow screen, shows the narrow form of a display equation too
  wide for its column (issue 33, ``light_pages.py``), shrinks or marks what still does not fit;
* ``ropelab-print.js``: scales an equation wider than the paper down when printing.

Configuration (``_config.yml``, ``sphinx.config``): ``ropelab_print_solutions`` is ``"open"``
(the default: a printed chapter has its solutions, expanded) or ``"hidden"`` (an exercise
sheet: solutions are left out of print). On screen solutions stay collapsed either way.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ConfigError

from ropebook import ROOT

ASSETS = ROOT / "book" / "assets"
CHOICES = ("open", "hidden")
#: After the theme's files (500) and every other extension's.
PRIORITY = 900


def add_assets(app: Sphinx, config: Config) -> None:
    if config.ropelab_print_solutions not in CHOICES:
        raise ConfigError(
            f"ropelab_print_solutions must be one of {CHOICES}, "
            f"not {config.ropelab_print_solutions!r}"
        )
    if str(ASSETS) not in config.html_static_path:
        config.html_static_path = [*config.html_static_path, str(ASSETS)]
    app.add_css_file("ropelab-pages.css", priority=PRIORITY)
    if config.ropelab_print_solutions == "hidden":
        app.add_css_file("ropelab-print-no-solutions.css", priority=PRIORITY)
    # before ropelab-print.js: on a print, it steps aside before that script fits the paper
    app.add_js_file("ropelab-narrow.js", priority=PRIORITY, defer="defer")
    app.add_js_file("ropelab-print.js", priority=PRIORITY, defer="defer")


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("ropelab_print_solutions", "open", "html", types=[str])
    app.connect("config-inited", add_assets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
