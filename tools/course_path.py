"""``python tools/course_path.py``: runs :mod:`ropebook.course_path` (its docstring says what it does)."""

from ropebook.course_path import main

if __name__ == "__main__":
    raise SystemExit(main())
