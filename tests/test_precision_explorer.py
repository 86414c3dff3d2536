"""Chapter 3A's precision explorable (ropelab.precision.precision_explorer_data), checked
against arithmetic done in the dtypes themselves: torch's bfloat16 and float32 tensors,
NumPy's float16, and NumPy's spacing for the float64 bound."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ropelab.core import inv_freq
from ropelab.decay import decay_distances
from ropelab.interactive import figure_spec
from ropelab.interactive.readouts import precision_readout
from ropelab.precision import precision_explorer_data

SETTINGS = [(128, 10000.0, 131072), (64, 500000.0, 4096), (2, 100.0, 16), (256, 1e6, 2**20)]


def torch_errors(m, theta, work, theta_dtype, table):
    """Largest angle and cos errors over the planes, the angles formed by torch in ``work``."""
    exact = m[:, None] * theta
    frequencies = torch.tensor(theta, dtype=torch.float64).to(theta_dtype).to(work)
    angles = torch.tensor(m, dtype=torch.float64).to(work)[:, None] * frequencies
    approx = angles.to(torch.float64).numpy()
    cos = torch.tensor(np.cos(approx)).to(table).to(torch.float64).numpy()
    return np.abs(approx - exact).max(axis=1), np.abs(cos - np.cos(exact)).max(axis=1)


@pytest.mark.parametrize("dim, base, top", SETTINGS)
def test_series_match_arithmetic_in_each_dtype(dim, base, top):
    data = precision_explorer_data(dim, base, top)
    m = decay_distances(top, 160).astype(np.float64)
    np.testing.assert_array_equal(data["positions"], m)
    theta = inv_freq(dim, base)
    bf16, f32 = torch.bfloat16, torch.float32
    for name, work, theta_dtype, table in [
        ("float32", f32, f32, f32),
        ("bfloat16", bf16, bf16, bf16),
        ("bf16_theta", f32, bf16, bf16),
    ]:
        angle, cos = torch_errors(m, theta, work, theta_dtype, table)
        np.testing.assert_array_equal(data[f"angle_{name}"], angle, err_msg=name)
        np.testing.assert_array_equal(data[f"cos_{name}"], cos, err_msg=name)
    # float16 in NumPy's own float16 arithmetic, up to the last position it holds
    held = m[m <= 65504]
    assert data["float16_positions"] == held.size
    with np.errstate(over="ignore"):
        approx = (held.astype(np.float16)[:, None] * theta.astype(np.float16)).astype(np.float64)
    exact = held[:, None] * theta
    cos = np.cos(approx).astype(np.float16).astype(np.float64)
    np.testing.assert_array_equal(data["angle_float16"], np.abs(approx - exact).max(axis=1))
    np.testing.assert_array_equal(data["cos_float16"], np.abs(cos - np.cos(exact)).max(axis=1))
    # float64: half the spacing of the largest angle, m θ_0 = m
    np.testing.assert_array_equal(data["angle_float64"], np.spacing(m) / 2)
    np.testing.assert_array_equal(data["cos_float64"], np.spacing(m) / 2 + 2.0**-54)


def test_a_cast_model_is_worse_than_float32_and_the_readout_says_from_where():
    data = figure_spec("precision").compute()
    assert data["max_position"] == 131072 and data["float16_positions"] < len(data["positions"])
    # at 131,072 tokens, float32 angles stay within 5e-3 rad; bfloat16 frequencies do not
    assert max(data["angle_float32"]) < 5e-3 < 1.0 < max(data["angle_bf16_theta"])
    text = precision_readout(data)
    first = next(
        int(p) for p, c in zip(data["positions"], data["cos_bf16_theta"], strict=False) if c > 0.01
    )
    assert f"θ_i in bfloat16  angle {max(data['angle_bf16_theta']):.1e} rad" in text
    assert text.splitlines()[5].endswith(f"cos > 0.01 from m = {first:,}")
    assert text.splitlines()[-1].startswith("float16 holds no position above 65,504")


@pytest.mark.parametrize(
    "args, name",
    [((0, 10000.0, 64), "dim"), ((64, -1.0, 64), "base"), ((64, 10000.0, 1), "max_position")],
)
def test_bad_input_names_the_argument(args, name):
    with pytest.raises(ValueError, match=name):
        precision_explorer_data(*args)
