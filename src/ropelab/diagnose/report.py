"""What :func:`ropelab.diagnose_rope` returns: findings with a fixed vocabulary of codes.

A :class:`Finding` names one root cause (its ``code``) and explains it in ``message``: what is
wrong, the evidence (measured numbers) and the fix. A :class:`Diagnosis` collects the findings;
``str(diagnosis)`` is the report a student reads (chapter 3A), wrapped to 79 columns.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

#: The codes a finding can carry, one per root cause (chapter 3A, "Find the bug"):
#:
#: * ``shape``: the output's shape differs from the input's, it is not real, or not finite.
#: * ``identity``: fn returns its input unrotated.
#: * ``pairing``: an exact rotation, but of another pairing than the declared layout.
#: * ``table_mismatch``: the cos/sin table does not give both coordinates of a pair one angle
#:   (laid out for the other pairing, or one frequency per coordinate).
#: * ``direction``: a sin term with the wrong sign: in both coordinates of a pair (rotates
#:   by −mθ_i) or in one (the pair is no longer rotated).
#: * ``frequencies``: wrong θ_i (the message gives the measured ones; planes at 0 included).
#: * ``positions``: a row is rotated as another position than its own: positions ignored,
#:   offset, clamped or wrapped, or misread in one-token calls, in a cache that grows, for
#:   positions that are not contiguous, or across the batch and head axes.
#: * ``precision``: angles, frequencies, positions or tables computed in a low precision.
#: * ``scale``: cos and sin (or the output) multiplied by a factor, the same or different.
#: * ``in_place``: a coordinate overwritten in x and then read to compute its partner.
#: * ``not_orthogonal``: norms change and no cause above explains it.
#: * ``not_relative``: scores depend on more than m − n: calls that disagree about the same
#:   row, state kept between calls, or no cause above.
#: * ``exception``: fn raised an exception (the message quotes it).
#: * ``unexplained``: an error above the tolerance that no cause above explains: the message
#:   names each probe where it was measured, and says that the cause is unknown.
CODES = (
    "shape",
    "identity",
    "pairing",
    "table_mismatch",
    "direction",
    "frequencies",
    "positions",
    "precision",
    "scale",
    "in_place",
    "not_orthogonal",
    "not_relative",
    "exception",
    "unexplained",
)

WIDTH = 79  # the book's page column


@dataclass(frozen=True)
class Finding:
    """One root cause: a code from :data:`CODES` and a message (what, evidence, fix)."""

    code: str
    message: str

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"code must be one of {CODES}, got {self.code!r}")

    def __str__(self) -> str:
        return _wrap_block(f"{self.code}:", self.message)


def finding(code: str, what: str, evidence: str, fix: str) -> Finding:
    """A finding whose message has the three parts of the report, one paragraph each."""
    return Finding(code, f"{what}\nEvidence: {evidence}\nFix: {fix}")


@dataclass(frozen=True)
class Diagnosis:
    """The verdict of :func:`ropelab.diagnose_rope` on one implementation.

    Attributes:
        findings: one :class:`Finding` per root cause; empty when the implementation is right.
        layout, dim, base: what the implementation was checked against.
        calls: how many times ``fn`` was called.
        max_error: the largest difference from the exact rotation over all probes, relative
            to the input's norm (NaN when ``fn`` could not be compared at all). The report
            states it against ``tolerance``, never as a raw number: below it, the value is
            rounding and differs from one CPU to the next.
        positions: the largest position probed.
        tolerance: the verdict's tolerance on ``max_error`` (1e-9 for float64, 1e-6 for
            float32, or the caller's); ``ok`` implies ``max_error <= tolerance``.
    """

    findings: list[Finding] = field(default_factory=list)
    layout: str = "half"
    dim: int = 64
    base: float = 10000.0
    calls: int = 0
    max_error: float = float("nan")
    positions: int = 0
    tolerance: float = 1e-9

    @property
    def ok(self) -> bool:
        """True when there is no finding: fn is the exact rotation to ``tolerance``
        (relative) on every probe."""
        return not self.findings

    @property
    def codes(self) -> list[str]:
        """The codes of the findings, in the order they were found."""
        return [f.code for f in self.findings]

    def __str__(self) -> str:
        return self.format()

    def format(self, width: int = WIDTH) -> str:
        """The report wrapped to ``width`` columns (79, the book's page; 76 in a solution).

        Raises:
            ValueError: ``width`` is not an integer from 60 to 200.
        """
        if isinstance(width, bool) or not isinstance(width, int) or not 60 <= width <= 200:
            raise ValueError(f"width must be an integer from 60 to 200, got {width!r}")
        head = f"RoPE check (layout {self.layout!r}, dim {self.dim}, base {self.base:g}): "
        if self.ok:
            body = (
                f"fn is the exact rotation: relative error "
                f"{_below(self.max_error, self.tolerance)} "
                f"at positions 0 to {self.positions} ({self.calls} calls)."
            )
            return textwrap.fill(head + "OK.", width) + "\n" + textwrap.fill(body, width)
        count = len(self.findings)
        lines = [textwrap.fill(head + f"{count} problem{'s' * (count > 1)}.", width)]
        lines += [_wrap_block(f"{f.code}:", f.message, width) for f in self.findings]
        return "\n".join(lines)


def _wrap_block(label: str, message: str, width: int = WIDTH) -> str:
    """``label`` then each paragraph of ``message``, wrapped, continuation lines indented."""
    out = []
    for number, paragraph in enumerate(message.split("\n")):
        first = f"{label} {paragraph}" if number == 0 else f"  {paragraph}"
        out.append(textwrap.fill(first, width, subsequent_indent="    ", break_on_hyphens=False))
    return "\n".join(out)


def _below(value: float, tolerance: float = 1e-9) -> str:
    """The error of an OK report against the verdict's tolerance: never a raw rounding (an
    OK report's error is within the tolerance by construction)."""
    return f"below {format_tolerance(tolerance)}" if value <= tolerance else f"{value:.1e}"


def format_tolerance(value: float) -> str:
    """A tolerance as a reader writes it: 1e-9, 1e-6, 2.5e-7."""
    text = f"{value:.1e}".replace(".0e", "e").replace("e-0", "e-").replace("e+0", "e+")
    return text
