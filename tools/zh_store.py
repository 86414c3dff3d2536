"""``python tools/zh_store.py``: runs :mod:`ropebook.zh_store` (its docstring says what it does)."""

from ropebook.zh_store import main

if __name__ == "__main__":
    raise SystemExit(main())
