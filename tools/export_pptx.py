"""``python tools/export_pptx.py``: runs :mod:`ropebook.export_pptx` (its docstring says what it does)."""

from ropebook.export_pptx import main

if __name__ == "__main__":
    raise SystemExit(main())
