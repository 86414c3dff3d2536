"""Lets the public tests import your module and sheet.py (next to them, or
one folder up in the course's repository)."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for folder in (HERE, HERE.parent):
    if (folder / "sheet.py").is_file() and str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
