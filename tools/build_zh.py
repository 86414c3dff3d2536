"""``python tools/build_zh.py``: runs :mod:`ropebook.build_zh` (its docstring says what it does)."""

from ropebook.build_zh import main

if __name__ == "__main__":
    raise SystemExit(main())
