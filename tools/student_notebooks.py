"""``python tools/student_notebooks.py``: runs :mod:`ropebook.student_notebooks` (its docstring says what it does)."""

from ropebook.student_notebooks import main

if __name__ == "__main__":
    raise SystemExit(main())
