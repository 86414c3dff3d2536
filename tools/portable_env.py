"""``python tools/portable_env.py``: runs :mod:`ropebook.portable_env` (its docstring says what it does)."""

from ropebook.portable_env import main

if __name__ == "__main__":
    raise SystemExit(main())
