"""``python tools/page_layout.py``: runs :mod:`ropebook.page_layout` (its docstring says what it does)."""

from ropebook.page_layout import main

if __name__ == "__main__":
    raise SystemExit(main())
