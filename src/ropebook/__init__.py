"""The book's machinery: the build tools (``ropebook.<tool>``, run as ``tools/<tool>.py``) and
the Sphinx extensions (``ropebook.ext.<name>``, listed in ``_config.yml``).

It runs from a checkout (the editable install puts ``src/`` on ``sys.path``) and is not part of
the ``ropelab`` wheel. Its modules import each other as a package; no module outside
``ropebook.ext`` imports a Sphinx extension (what both need is in :mod:`ropebook.kit`).
"""

from pathlib import Path

#: The repository's root (``src/ropebook/__init__.py`` -> the checkout).
ROOT = Path(__file__).resolve().parents[2]
