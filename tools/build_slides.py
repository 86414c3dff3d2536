"""``python tools/build_slides.py``: runs :mod:`ropebook.build_slides` (its docstring says what it does)."""

from ropebook.build_slides import main

if __name__ == "__main__":
    raise SystemExit(main())
