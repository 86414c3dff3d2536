"""Calling the implementation under test safely, on inputs the diagnoser builds itself.

``fn`` is called as ``fn(x, positions)`` with ``x`` of shape ``(seq, dim)`` and positions
``(seq,)``, or, for a batched implementation, with ``x`` of shape ``(batch, heads, seq, dim)``
and positions ``(batch, seq)`` (transformers' q, k and ``position_ids``). Every call gets fresh copies (an implementation that writes into its input cannot spoil the
next probe), runs with numpy and Python warnings silenced (a float16 overflow is evidence, not
noise), and its output is converted to a float64 numpy array; a torch tensor is detached and
moved to the CPU without importing torch here. An exception raised by the implementation is
caught and kept as text.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Positions at which the full matrix of the map x -> fn(x, m) is read (one call each, with the
#: d unit vectors as the rows of x). Small ones give the angles without aliasing; the ladder
#: 2^k - 1 up to 2^20 shows how errors grow with the position (odd numbers: a product with a
#: power of two is exact in any floating-point type and would hide rounding).
SMALL_POSITIONS = (0, 1, 2, 3, 5, 8)
LADDER_POSITIONS = (*(2**k - 1 for k in range(4, 21)), 2**20)
MATRIX_POSITIONS = SMALL_POSITIONS + LADDER_POSITIONS

#: Random rows at small positions: the first check (shape, finite values), then the same rows at
#: other positions (does fn read its positions at all?) and in reverse order (does a row's result
#: depend on its place in the batch?).
ROW_POSITIONS = np.array([3, 0, 5, 1, 8, 2], dtype=np.int64)
OTHER_ROW_POSITIONS = np.array([2, 3, 0, 5, 1, 8], dtype=np.int64)

#: (m, n) pairs for the relative-score probe: a query at m and a key at n in one call. Pairs in
#: a group share n - m, so their scores must agree (RoFormer eq. 16; chapter 3).
PAIR_GROUPS = (
    ((0, 0), (8, 8), (65535, 65535), (2**20, 2**20)),
    ((0, 1), (1, 2), (2, 3), (2**20 - 1, 2**20)),
    ((0, 2), (1, 3), (3, 5)),
    ((0, 3), (2, 5), (5, 8)),
    ((0, 5), (3, 8)),
)

#: How implementations are called besides whole sequences (issue 24): one token at a small and
#: at a large position (a decode step of a key-cache loop), and the first call again after all
#: others (a cache that grew, or state kept between calls, must not change it).
SINGLE_POSITIONS = (5, 2**20 - 1)

#: The batch probe of a batched implementation: x of shape (2, 4, 4, dim), positions (2, 4),
#: different in the two sequences (left padding and packing give each sequence its own);
#: every position is one of MATRIX_POSITIONS, so each row is checked against fn's own
#: matrices. (A table broadcast over the wrong axis already fails on one sequence of one
#: head: its output has the shape (1, seq, seq, dim).)
BATCH_HEADS = 4
BATCH_POSITIONS = np.array([[0, 1, 2, 3], [5, 8, 15, 31]], dtype=np.int64)

SEED = 20240314


@dataclass(frozen=True)
class Outcome:
    """What one call returned: ``output`` (float64, input's shape) or the reason it is missing."""

    x: np.ndarray
    positions: np.ndarray
    output: np.ndarray | None
    error: str | None = None  # "TypeName: message" when fn raised
    shape_problem: str | None = None  # when the output is not a real array of x's shape
    called_shape: tuple[int, ...] | None = None  # the shape fn received, when not x's
    output_shape: tuple[int, ...] | None = None  # the shape fn returned, when it had one

    @property
    def input_shape(self) -> tuple[int, ...]:
        """The shape of the x that fn received."""
        return self.called_shape if self.called_shape is not None else self.x.shape

    @property
    def usable(self) -> bool:
        return self.output is not None

    def finite_rows(self) -> np.ndarray:
        """A boolean mask of the rows whose outputs are all finite."""
        if self.output is None:
            return np.zeros(len(self.positions), dtype=bool)
        return np.all(np.isfinite(self.output), axis=-1)


class Prober:
    """Calls ``fn`` and counts the calls; ``batched``: fn takes (batch, heads, seq, dim)."""

    def __init__(
        self, fn: Callable[[np.ndarray, np.ndarray], Any], dim: int, batched: bool = False
    ) -> None:
        self.fn = fn
        self.dim = dim
        self.batched = batched
        self.calls = 0
        self.history: list[int] = []  # the largest position of every call, in order
        self.rng = np.random.default_rng(SEED)

    def random_rows(self, count: int) -> np.ndarray:
        return self.rng.standard_normal((count, self.dim))

    def call(self, x: np.ndarray, positions: np.ndarray) -> Outcome:
        """fn on rows ``x`` (seq, dim) at ``positions`` (seq,); a batched fn gets them as one
        sequence of one head, (1, 1, seq, dim) and (1, seq), and its output is read back."""
        x = np.array(x, dtype=np.float64)
        positions = np.array(positions, dtype=np.int64)
        if not self.batched:
            return self.call_shaped(x, positions)
        outcome = self.call_shaped(x[None, None], positions[None])
        output = None if outcome.output is None else outcome.output[0, 0]
        return Outcome(
            x,
            positions,
            output,
            outcome.error,
            outcome.shape_problem,
            outcome.x.shape,
            outcome.output_shape,
        )

    def call_shaped(self, x: np.ndarray, positions: np.ndarray) -> Outcome:
        """fn on ``x`` and ``positions`` exactly as given (float64 and int64 copies)."""
        x = np.array(x, dtype=np.float64)
        positions = np.array(positions, dtype=np.int64)
        self.calls += 1
        self.history.append(int(positions.max()))
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                raw = self.fn(x.copy(), positions.copy())
        except Exception as error:  # the implementation's bug is our finding
            text = str(error).strip().splitlines()
            return Outcome(
                x, positions, None, error=f"{type(error).__name__}: {text[0] if text else ''}"
            )
        output, problem = _to_float64(raw, x.shape)
        shape = getattr(raw, "shape", None)
        shape = tuple(int(n) for n in shape) if shape is not None else None
        return Outcome(x, positions, output, shape_problem=problem, output_shape=shape)

    def matrix(self, position: int) -> Outcome:
        """One call with the ``dim`` unit vectors at ``position``: output row j is fn(e_j)."""
        return self.call(np.eye(self.dim), np.full(self.dim, position, dtype=np.int64))


def _to_float64(raw: Any, shape: tuple[int, ...]) -> tuple[np.ndarray | None, str | None]:
    """The output as a float64 array of ``shape``, or ``None`` and what is wrong with it."""
    if hasattr(raw, "detach") and hasattr(raw, "cpu"):  # a torch tensor
        raw = raw.detach().cpu()
        if getattr(raw, "is_complex", lambda: False)():
            return None, f"a complex tensor of shape {tuple(raw.shape)}"
        raw = raw.double().numpy() if hasattr(raw, "double") else raw.numpy()
    try:
        array = np.asarray(raw)
    except Exception as error:
        return None, f"an object numpy cannot read ({type(raw).__name__}: {error})"
    if np.iscomplexobj(array):
        return None, f"complex numbers of shape {array.shape}"
    if array.dtype == object or not np.issubdtype(array.dtype, np.number):
        return None, f"an array of {array.dtype} values"
    if array.shape != shape:
        return None, f"shape {array.shape}"
    return array.astype(np.float64), None
