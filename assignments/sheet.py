"""Your own numbers: the parameters of a problem set for one student id.

Every student gets different bases, dimensions and positions, drawn from the
id: ``sheet("ps2", "S123")`` always gives the same sheet, and another id gives
another one. The draw is SHA-256 of ``"<problem set>:<id>"`` turned into the
seed of a NumPy ``Generator`` (PCG64), so the numbers are the same on every
machine and in every NumPy release that keeps ``Generator.integers`` stable.

The ranges (each value uniform over its range):

* ps1: dim in {8, 12, ..., 32}; base = 500 k for k in 2 ... 200 (1,000 to
  100,000); m in 64 ... 4,096; n in 0 ... m - 1; plane j in 0 ... dim/2 - 1;
  q and k with integer entries in -4 ... 4 (never all zero).
* ps2: dim in {16, 32, 48, 64, 96, 128}; base in {10,000, 50,000, 100,000,
  500,000, 1,000,000}; heads 2 ... 4; prefill length 3 ... 12 tokens
  starting at position 0; probe positions 7 values in 0 ... 8,191.
* ps3: dim in {32, 64, 96, 128}; base in {10,000, 100,000, 500,000,
  1,000,000}; training length in {1,024, 2,048, 4,096, 8,192}; factor in
  {2, 4, 8, 16}; Llama 3 bands low_freq_factor in {1, 2}, high_freq_factor
  in {4, 8}.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

PROBLEM_SETS = ("ps1", "ps2", "ps3")


@dataclass(frozen=True)
class Sheet:
    """The parameters of one problem set for one student."""

    ps: str
    student_id: str
    values: dict = field(default_factory=dict)

    def __getattr__(self, name: str):
        values = self.__dict__.get("values", {})
        if name in values:
            return values[name]
        raise AttributeError(name)

    def describe(self) -> str:
        """The sheet as lines ``name = value`` (what the notebook prints)."""
        lines = [f"Problem set {self.ps} for student {self.student_id!r}:"]
        for name, value in self.values.items():
            if isinstance(value, np.ndarray):
                value = value.tolist()
            lines.append(f"  {name} = {value}")
        return "\n".join(lines)


def rng_for(ps: str, student_id: str) -> np.random.Generator:
    """The random generator of one student's sheet (SHA-256 of the id)."""
    if ps not in PROBLEM_SETS:
        raise ValueError(f"ps must be one of {PROBLEM_SETS}, got {ps!r}")
    if not isinstance(student_id, str) or not student_id.strip():
        raise ValueError(
            f"student_id must be a non-empty string, got {student_id!r}"
        )
    digest = hashlib.sha256(f"{ps}:{student_id.strip()}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


def _vector(rng: np.random.Generator, dim: int) -> np.ndarray:
    while True:
        v = rng.integers(-4, 5, size=dim)
        if np.any(v):
            return v


def sheet(ps: str, student_id: str) -> Sheet:
    """The parameters of problem set ``ps`` for ``student_id``.

    Raises:
        ValueError: ``ps`` is not ps1, ps2 or ps3, or the id is empty.
    """
    rng = rng_for(ps, student_id)
    if ps == "ps1":
        dim = int(rng.integers(2, 9)) * 4
        m = int(rng.integers(64, 4097))
        values = {
            "dim": dim,
            "base": float(500 * rng.integers(2, 201)),
            "m": m,
            "n": int(rng.integers(0, m)),
            "plane": int(rng.integers(0, dim // 2)),
            "q": _vector(rng, dim),
            "k": _vector(rng, dim),
        }
    elif ps == "ps2":
        values = {
            "dim": int(rng.choice([16, 32, 48, 64, 96, 128])),
            "base": float(rng.choice([1e4, 5e4, 1e5, 5e5, 1e6])),
            "heads": int(rng.integers(2, 5)),
            "prefill": int(rng.integers(3, 13)),
            "positions": np.sort(rng.choice(8192, size=7, replace=False)),
        }
    else:
        values = {
            "dim": int(rng.choice([32, 64, 96, 128])),
            "base": float(rng.choice([1e4, 1e5, 5e5, 1e6])),
            "train_length": int(rng.choice([1024, 2048, 4096, 8192])),
            "factor": float(rng.choice([2, 4, 8, 16])),
            "low_freq_factor": float(rng.choice([1, 2])),
            "high_freq_factor": float(rng.choice([4, 8])),
        }
    return Sheet(ps, student_id.strip(), values)
