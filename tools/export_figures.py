"""``python tools/export_figures.py``: runs :mod:`ropebook.export_figures` (its docstring says what it does)."""

from ropebook.export_figures import main

if __name__ == "__main__":
    raise SystemExit(main())
