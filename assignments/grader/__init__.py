"""The grader of the problem sets (instructors only: the hidden tests).

``python -m grader ps2 --student-id S123 --submission ps2_student.py`` run
from this folder prints one line per test with its points and, for each
failed test, what to fix; ``--csv scores.csv`` appends the scores. See
../README.md (how to grade a class).
"""

from .core import PROBLEM_SETS, Result, grade

__all__ = ["PROBLEM_SETS", "Result", "grade"]
