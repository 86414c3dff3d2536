"""``python tools/build_pdf.py``: runs :mod:`ropebook.build_pdf` (its docstring says what it does)."""

from ropebook.build_pdf import main

if __name__ == "__main__":
    raise SystemExit(main())
