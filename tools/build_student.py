"""``python tools/build_student.py``: runs :mod:`ropebook.build_student` (its docstring says what it does)."""

from ropebook.build_student import main

if __name__ == "__main__":
    raise SystemExit(main())
