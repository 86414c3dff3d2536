"""``python tools/slide_checks.py``: runs :mod:`ropebook.slide_checks` (its docstring says what it does)."""

from ropebook.slide_checks import main

if __name__ == "__main__":
    raise SystemExit(main())
