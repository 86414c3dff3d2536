"""``python tools/run_notebooks.py``: runs :mod:`ropebook.run_notebooks` (its docstring says what it does)."""

from ropebook.run_notebooks import main

if __name__ == "__main__":
    raise SystemExit(main())
