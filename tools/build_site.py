"""``python tools/build_site.py``: runs :mod:`ropebook.build_site` (its docstring says what it does)."""

from ropebook.build_site import main

if __name__ == "__main__":
    raise SystemExit(main())
