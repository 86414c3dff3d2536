"""``python tools/reading_time.py``: runs :mod:`ropebook.reading_time` (its docstring says what it does)."""

from ropebook.reading_time import main

if __name__ == "__main__":
    raise SystemExit(main())
