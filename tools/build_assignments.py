"""``python tools/build_assignments.py``: runs :mod:`ropebook.build_assignments` (its docstring says what it does)."""

from ropebook.build_assignments import main

if __name__ == "__main__":
    raise SystemExit(main())
