"""ropelab.precision: rounding to each dtype, angle and cos/sin errors, score errors.

The emulation is checked against torch's own bfloat16, float16 and float32 arithmetic; the
numbers the chapter quotes (position 15,962 in bfloat16, the cos error at position 1,857 in
float16) are recomputed here with torch, independently of the module.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from ropelab import precision as P
from ropelab.core import inv_freq

TORCH = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}


def torch_round(x: np.ndarray, dtype: str) -> np.ndarray:
    # from float32 values, so that torch rounds once (float64 -> bf16 goes through float32)
    return torch.tensor(np.asarray(x, dtype=np.float32)).to(TORCH[dtype]).double().numpy()


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
def test_rounding_matches_torch(dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(200_000) * np.exp2(rng.uniform(-30, 30, 200_000))
    x = x.astype(np.float32).astype(np.float64)
    # exact ties of the target grid, both parities
    bits = P.significand_bits(dtype)
    ties = (np.arange(1, 2000) + 0.5) * 2.0 ** (-bits + 1) * 8
    x = np.concatenate([x, ties, -ties, [0.0, 65504.0, 65520.0, 1e6, 3e38]])
    expected = torch_round(x, dtype)
    np.testing.assert_array_equal(P.round_to_dtype(x, dtype), expected)


def test_bfloat16_rounds_position_15962_to_15936():
    assert P.round_to_dtype(15962.0, "bfloat16") == 15936.0
    assert torch.tensor(15962.0).to(torch.bfloat16).item() == 15936.0
    # the spacing of bfloat16 between 8192 and 16384 is 2^(13 - 7) = 64
    assert P.round_to_dtype(8192.0 + 63.0, "bfloat16") == 8192.0 + 64.0


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_angles_in_dtype_match_torch(dtype):
    theta = inv_freq(128, 10000.0)
    positions = np.array([0, 1, 7, 100, 1857, 4095, 15962, 60000], dtype=np.float64)
    ours = P.angles(positions, theta, "dtype", dtype)
    t = TORCH[dtype]
    theirs = (
        torch.tensor(positions, dtype=torch.float64).to(t)[:, None]
        * torch.tensor(theta, dtype=torch.float64).to(t)[None, :]
    )
    theirs = theirs.double().numpy()
    finite = np.isfinite(theirs)
    np.testing.assert_array_equal(ours[finite], theirs[finite])


def test_float32_angles_match_torch_float32():
    theta = inv_freq(128, 10000.0)
    positions = np.array([1.0, 2.0**20, 123457.0])
    theirs = (
        torch.tensor(positions, dtype=torch.float32)[:, None]
        * torch.tensor(theta, dtype=torch.float32)[None, :]
    ).double()
    np.testing.assert_array_equal(P.angles(positions, theta, "float32"), theirs.numpy())


def test_float16_cos_error_at_position_1857():
    """The chapter's example: fp16 angles at position 1,857 put a cos value off by ~0.71."""
    dim, base, m = 128, 10000.0, 1857
    theta = inv_freq(dim, base)
    angle16 = torch.tensor(float(m), dtype=torch.float16) * torch.tensor(theta).to(torch.float16)
    cos16 = torch.cos(angle16).double().numpy()  # torch: cos in float32, rounded to fp16
    exact = np.cos(m * theta)
    expected = np.abs(cos16 - exact).max()
    errors = P.angle_errors([m], dim, base, dtype="float16")
    assert errors.cos[0] == pytest.approx(expected, abs=1e-3)
    assert 0.70 < errors.cos[0] < 0.72
    assert errors.worst_plane[0] == np.abs(cos16 - exact).argmax()
    # plane 4: theta_4 = 10000^(-8/128) = 0.56234 rounds to 0.5625 (fp16 spacing 2^-11), and
    # 1857 * 0.5625 = 1044.5625 rounds to 1045 (spacing 1): 0.732 rad from 1044.268
    assert errors.worst_plane[0] == 4
    assert P.round_to_dtype(theta[4], "float16") == 0.5625
    assert P.angles([m], theta, "dtype", "float16")[0, 4] == 1045.0
    assert errors.angle[0] == pytest.approx(1045.0 - m * theta[4], abs=1e-12)


def test_first_position_exceeding_matches_a_brute_force_scan():
    dim, base = 64, 10000.0
    theta = inv_freq(dim, base)
    for dtype, bound in (("float16", 0.1), ("bfloat16", 0.1), ("bfloat16", 0.5)):
        t = TORCH[dtype]
        positions = torch.arange(0, 3000, dtype=torch.float64)
        a = positions.to(t)[:, None] * torch.tensor(theta).to(t)[None, :]
        err = torch.cos(a).double().numpy() - np.cos(positions.numpy()[:, None] * theta)
        first = int(np.flatnonzero(np.abs(err).max(axis=1) > bound)[0])
        assert P.first_position_exceeding(bound, dim, base, dtype=dtype, max_position=3000) == first


def test_float64_and_float32_angles_keep_the_error_small():
    for mode in ("float64", "float32"):
        assert (
            P.first_position_exceeding(
                0.01, 128, 10000.0, dtype="bfloat16", mode=mode, max_position=1 << 16
            )
            is None
        )
    errors = P.angle_errors([2**20], 128, 10000.0, dtype="float32", mode="float32")
    # float32 products near 2^20 have a spacing of 2^-3: the angle error is below 0.07 rad
    assert 0.0 < errors.angle[0] <= 2.0**-4 + 1e-12


def test_score_errors_against_torch_tables():
    rng = np.random.default_rng(5)
    d = 64
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    theta = inv_freq(d, 10000.0)
    m, keys = 5000, np.array([0, 10, 4000, 4999])

    def rotate(x, pos, cos, sin):
        a, b = x[: d // 2], x[d // 2 :]
        return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)

    def torch_tables(pos):
        a = torch.tensor(pos, dtype=torch.float64).to(torch.bfloat16)[:, None] * torch.tensor(
            theta
        ).to(torch.bfloat16)
        return torch.cos(a).double().numpy(), torch.sin(a).double().numpy()

    cq, sq = torch_tables(np.array([float(m)]))
    ck, sk = torch_tables(keys.astype(float))
    approx = rotate(k, keys, ck, sk) @ rotate(q, m, cq, sq)[0] / math.sqrt(d)
    pk, pq = keys[:, None] * theta, m * theta
    exact = (
        rotate(k, keys, np.cos(pk), np.sin(pk))
        @ rotate(q, m, np.cos(pq), np.sin(pq))
        / math.sqrt(d)
    )
    ours = P.score_errors(q, k, m, keys, dtype="bfloat16")
    np.testing.assert_allclose(ours, np.abs(approx - exact), atol=0.02)
    assert ours.max() > 0.5
    tiny = P.score_errors(q, k, m, keys, dtype="float64", mode="float64")
    assert tiny.max() < 1e-12


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: P.round_to_dtype(1.0, "int8"), "dtype must be one of"),
        (lambda: P.angles([1.0], [1.0], "half"), "mode must be one of"),
        (lambda: P.first_position_exceeding(0.0), "bound must be > 0"),
        (lambda: P.first_position_exceeding(0.1, quantity="tan"), "quantity must be"),
        (lambda: P.score_errors(np.ones(4), np.ones(6), 0, [0]), "q and k must be vectors"),
    ],
)
def test_bad_input_names_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()
