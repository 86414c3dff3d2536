"""Load a submission, run a problem set's hidden tests, report the scores."""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import sys
import textwrap
import traceback
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:  # sheet.py, next to this package
    sys.path.insert(0, str(HERE.parent))

from sheet import Sheet, sheet  # noqa: E402

PROBLEM_SETS = {
    "ps1": "derive and check",
    "ps2": "implement RoPE",
    "ps3": "frequencies and extension",
}
#: What a submission may not import: the book's package and transformers
#: (they hold the rotation the problem sets ask for).
FORBIDDEN = ("ropelab", "transformers")
WIDTH = 79


class Fail(Exception):
    """A failed test: the message says what is wrong and what to do."""


@dataclass(frozen=True)
class Check:
    """One hidden test: its number, title, points and function."""

    number: str
    title: str
    points: int
    run: Callable[[ModuleType, Sheet], str | None]


@dataclass
class Outcome:
    check: Check
    score: int
    message: str = ""


@dataclass
class Result:
    """The grade of one submission."""

    ps: str
    student_id: str
    submission: str
    sheet: Sheet
    outcomes: list[Outcome] = field(default_factory=list)
    blocked: str = ""  # why nothing was graded (a forbidden import...)

    @property
    def score(self) -> int:
        return sum(o.score for o in self.outcomes)

    @property
    def total(self) -> int:
        return sum(o.check.points for o in self.outcomes)

    @property
    def messages(self) -> str:
        """Every message of the report, for tests and searching."""
        parts = [self.blocked] + [o.message for o in self.outcomes]
        return "\n".join(p for p in parts if p)

    def report(self) -> str:
        """What the grader prints: one line per test, then what to fix."""
        lines = [
            f"{self.ps} ({PROBLEM_SETS[self.ps]}) for student "
            f"{self.student_id!r}: {self.submission}",
        ]
        if self.blocked:
            lines.append(_wrap(self.blocked, "  "))
        for o in self.outcomes:
            mark = "PASS" if o.score == o.check.points else "FAIL"
            head = f"  [{mark}] {o.check.number} {o.check.title}"
            points = f"{o.score}/{o.check.points}"
            lines.append(f"{head:<{WIDTH - len(points) - 1}} {points}")
            if o.message:
                lines.append(_wrap(o.message, "         "))
        lines.append(f"  score {self.score}/{self.total}")
        return "\n".join(lines)


def _wrap(text: str, indent: str) -> str:
    out = []
    for paragraph in text.split("\n"):
        if paragraph.startswith(" "):  # preformatted (a diagnosis): keep
            out.append(indent + paragraph)
            continue
        out.append(
            textwrap.fill(
                paragraph,
                WIDTH,
                initial_indent=indent,
                subsequent_indent=indent,
                break_on_hyphens=False,
            )
        )
    return "\n".join(out)


def forbidden_imports(path: Path) -> list[str]:
    """The imports of the book's package or transformers in a submission,
    as 'line N: import ...' (found in its syntax tree, whatever the form)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = getattr(func, "id", getattr(func, "attr", ""))
            first = node.args[0]
            if (
                called in ("__import__", "import_module")
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
            ):
                names = [first.value]
        for name in names:
            if name.split(".")[0] in FORBIDDEN:
                found.append(
                    (node.lineno, f"line {node.lineno}: imports {name}")
                )
    return [text for _, text in sorted(found)]


def load(path: Path) -> ModuleType:
    """Import the submission from its file (its folder on sys.path while it
    loads, so that it may import a helper file of its own)."""
    name = f"submission_{uuid.uuid4().hex}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise Fail(f"cannot import {path}: is it a Python file?")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            spec.loader.exec_module(module)
    except Exception as error:  # the student's code: report, never crash
        raise Fail(
            "importing your module failed: "
            + student_traceback(error, path)
            + "\nRun the public tests (python -m pytest) to see it."
        ) from error
    finally:
        sys.path.remove(str(path.parent))
    return module


def student_traceback(error: BaseException, path: Path | None = None) -> str:
    """The exception and the last line of the student's file it went
    through (not the grader's lines)."""
    where = ""
    for frame in traceback.extract_tb(error.__traceback__):
        if path is not None and Path(frame.filename) == path:
            where = f" (line {frame.lineno} of your module: {frame.line})"
        elif path is None and "grader" not in frame.filename:
            where = f" (line {frame.lineno}: {frame.line})"
    return f"{type(error).__name__}: {str(error).strip()}{where}"


def grade(ps: str, student_id: str, submission: str | Path) -> Result:
    """Run the hidden tests of ``ps`` on ``submission`` for ``student_id``.

    Raises:
        ValueError: ``ps`` is unknown, the id is empty or the file missing.
    """
    if ps not in PROBLEM_SETS:
        raise ValueError(
            f"ps must be one of {tuple(PROBLEM_SETS)}, got {ps!r}"
        )
    path = Path(submission).resolve()
    if not path.is_file():
        raise ValueError(f"submission must be a Python file, got {path}")
    the_sheet = sheet(ps, student_id)
    checks = _checks(ps)
    result = Result(ps, the_sheet.student_id, str(submission), the_sheet)
    try:
        banned = forbidden_imports(path)
    except SyntaxError as error:
        banned = []
        result.blocked = (
            f"your module is not valid Python: line {error.lineno}: "
            f"{error.msg}. Nothing was graded."
        )
    if banned:
        result.blocked = (
            "your module imports a package that holds the answer ("
            + "; ".join(banned)
            + "): this problem set asks you to write the rotation and the "
            "frequencies yourself with numpy (and sympy). Remove the import "
            "and use your own functions. Nothing was graded."
        )
    module = None
    if not result.blocked:
        try:
            module = load(path)
        except Fail as failure:
            result.blocked = str(failure) + " Nothing was graded."
    for check in checks:
        if module is None:
            result.outcomes.append(Outcome(check, 0, ""))
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                message = check.run(module, the_sheet)
        except Fail as failure:
            result.outcomes.append(Outcome(check, 0, str(failure)))
        except NotImplementedError:
            result.outcomes.append(
                Outcome(
                    check,
                    0,
                    "not done yet: a function still raises "
                    "NotImplementedError.",
                )
            )
        except Exception as error:
            result.outcomes.append(
                Outcome(
                    check,
                    0,
                    "your code raised "
                    + student_traceback(error, path)
                    + ". Run the public tests to reproduce it.",
                )
            )
        else:
            result.outcomes.append(Outcome(check, check.points, message or ""))
    return result


def _checks(ps: str) -> list[Check]:
    import importlib

    return importlib.import_module(f"{__package__}.{ps}").CHECKS


def call(module: ModuleType, name: str) -> Callable:
    """The student's function ``name``, or a Fail saying it is missing."""
    fn = getattr(module, name, None)
    if not callable(fn):
        raise Fail(
            f"your module has no function {name}: keep the names of the "
            "stub module (the notebook and the tests call them)."
        )
    return fn


def check_student_id(
    module: ModuleType, the_sheet: Sheet, short: bool = False
) -> None:
    """STUDENT_ID in the module is the id being graded (the reference has
    None: it computes every sheet's numbers)."""
    given = getattr(module, "STUDENT_ID", "")
    if given is None:
        return
    if not isinstance(given, str) or not given.strip():
        raise Fail(
            "STUDENT_ID is not set: write your id, as your instructor gave "
            "it, at the top of your module; the notebook then prints your "
            "own parameters."
        )
    if given.strip() != the_sheet.student_id and short:
        raise Fail("these numbers are for another sheet (see the first test).")
    if given.strip() != the_sheet.student_id:
        raise Fail(
            f"STUDENT_ID in your module is {given.strip()!r} but you are "
            f"graded as {the_sheet.student_id!r}: every id has its own "
            "numbers. Set your own id, run the notebook again and copy the "
            "numbers it prints for your sheet."
        )


def answers(module: ModuleType, the_sheet: Sheet) -> dict:
    """The module's ANSWERS: a dict (a student's) or a function of the
    sheet (the reference's)."""
    given = getattr(module, "ANSWERS", None)
    if callable(given):
        given = given(the_sheet)
    if not isinstance(given, dict):
        raise Fail("ANSWERS must be a dict of numbers, as in the stub.")
    return given


def number(given: dict, key: str) -> float:
    value = given.get(key)
    if value is None:
        raise Fail(
            f"ANSWERS[{key!r}] is not filled in: the notebook prints it "
            "for your sheet."
        )
    try:
        return float(value)
    except (TypeError, ValueError) as error:
        raise Fail(
            f"ANSWERS[{key!r}] must be a number, got {value!r}."
        ) from error


def close(a: float, b: float, rel: float = 1e-6, tiny: float = 1e-9) -> bool:
    return abs(a - b) <= rel * abs(b) + tiny
