"""``python tools/zh_glossary.py``: runs :mod:`ropebook.zh_glossary` (its docstring says what it does)."""

from ropebook.zh_glossary import main

if __name__ == "__main__":
    raise SystemExit(main())
