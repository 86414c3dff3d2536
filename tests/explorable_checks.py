"""Comparing numbers computed in the browser (or in Node) with ropelab's, for the explorables."""

from __future__ import annotations

from typing import Any

import numpy as np


def assert_same(js: dict[str, Any], py: dict[str, Any], where: str) -> None:
    """Every value the script computed equals ropelab's: exactly for strings, integers and
    booleans (regime names, counts, d_extra, distances, plane flags), to 1e-9 for reals."""
    assert set(js) == set(py), f"{where}: keys differ: {set(js) ^ set(py)}"
    for key, expected in py.items():
        actual = js[key]
        if expected is None or isinstance(expected, str):
            assert actual == expected, f"{where}: {key} is {actual!r}, ropelab says {expected!r}"
            continue
        want = np.asarray(expected)
        got = np.asarray(actual)
        assert got.shape == want.shape, f"{where}: {key} has shape {got.shape}, not {want.shape}"
        if want.dtype.kind in "US":  # lists of names
            assert got.tolist() == want.tolist(), f"{where}: {key} is {actual}, not {expected}"
        elif want.dtype.kind in "biu":
            assert got.dtype.kind == want.dtype.kind, (
                f"{where}: {key} is {got.dtype}, not {want.dtype}"
            )
            np.testing.assert_array_equal(got, want, err_msg=f"{where}: {key}")
        else:
            # Scores are sums of cosines that pass through zero, where a purely relative
            # tolerance means nothing; the absolute part is scaled by the size of the quantity.
            np.testing.assert_allclose(
                got.astype(np.float64),
                want,
                rtol=1e-9,
                atol=1e-9 * max(1.0, float(np.abs(want).max())),
                err_msg=f"{where}: {key}",
            )
