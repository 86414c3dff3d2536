"""ropelab.costs: operation counts of the dense and elementwise rotations (chapter 3).

The counts are checked against the matrix itself: a dense product uses every entry of
R once (mults = entries, adds = entries - rows); a product that skips zeros uses every
non-zero entry once (mults = nnz, adds = nnz - rows). The non-zeros are counted on
``rotation_matrix`` at a position where no cosine or sine vanishes.
"""

from __future__ import annotations

import numpy as np
import pytest

from ropelab.core import rotation_matrix
from ropelab.costs import (
    cost_table,
    dense_cost,
    elementwise_cost,
    nonzero_fraction,
    time_dense_vs_elementwise,
)

DIMS = [2, 4, 8, 64, 128, 256]


@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_counts_match_the_matrix(dim, layout):
    matrix = rotation_matrix(1.0, dim, 10000.0, layout)
    rows = matrix.shape[0]
    nnz = int(np.count_nonzero(matrix))
    dense, fast = dense_cost(dim), elementwise_cost(dim)
    assert dense.multiplications == matrix.size
    assert dense.additions == matrix.size - rows
    assert dense.stored == matrix.size
    assert fast.multiplications == nnz
    assert fast.additions == nnz - rows
    # one cosine and one sine per plane
    assert fast.stored == 2 * (dim // 2)
    assert nonzero_fraction(dim) == pytest.approx(nnz / matrix.size, rel=1e-15)


def test_table_values_for_the_chapter():
    table = cost_table((64, 128, 256))
    got = [
        (d.dim, d.multiplications, d.additions, d.stored, f.multiplications, f.additions, f.stored)
        for d, f in table
    ]
    assert got == [
        (64, 4096, 4032, 4096, 128, 64, 64),
        (128, 16384, 16256, 16384, 256, 128, 128),
        (256, 65536, 65280, 65536, 512, 256, 256),
    ]
    dense, fast = table[1]
    assert dense.operations == 2 * 128**2 - 128
    assert fast.operations == 3 * 128
    assert dense.operations / fast.operations == pytest.approx((2 * 128 - 1) / 3)


def test_timing_returns_consistent_results():
    result = time_dense_vs_elementwise(seq_len=64, dim=16, repeats=2)
    assert result["dense_s"] > 0 and result["elementwise_s"] > 0
    assert result["ratio"] == pytest.approx(result["dense_s"] / result["elementwise_s"])
    assert result["max_abs_diff"] < 1e-12
    assert result["dense_bytes"] == 64 * 16 * 16 * 8
    assert result["table_bytes"] == 64 * 16 * 8


@pytest.mark.parametrize("dim", [0, 3, -2, 2.5, True])
def test_bad_dim_raises(dim):
    with pytest.raises(ValueError, match="dim"):
        dense_cost(dim)
    with pytest.raises(ValueError, match="dim"):
        elementwise_cost(dim)


@pytest.mark.parametrize(
    ("kwargs", "name"), [({"seq_len": 0}, "seq_len"), ({"repeats": 0}, "repeats")]
)
def test_bad_timing_arguments_raise(kwargs, name):
    with pytest.raises(ValueError, match=name):
        time_dense_vs_elementwise(**kwargs)
