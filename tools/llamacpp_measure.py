"""``python tools/llamacpp_measure.py``: runs :mod:`ropebook.llamacpp_measure` (its docstring says what it does)."""

from ropebook.llamacpp_measure import main

if __name__ == "__main__":
    raise SystemExit(main())
