"""``python tools/glossary.py``: runs :mod:`ropebook.glossary` (its docstring says what it does)."""

from ropebook.glossary import main

if __name__ == "__main__":
    raise SystemExit(main())
