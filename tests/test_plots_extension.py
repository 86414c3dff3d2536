"""ropelab.plots.extension: the data behind chapter 6's figures, and what the figures draw.

The data functions are checked against formulas written out here from the papers (and
against transformers for YaRN); each figure is checked by reading back the arrays it plots.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from transformers import LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

from ropelab import extension, scaling, windows
from ropelab.calculator import calculator_data
from ropelab.core import apply_rope, inv_freq
from ropelab.plots import extension as ext

TWO_PI = 2 * math.pi


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def lines_of(ax) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(np.asarray(line.get_xdata()), np.asarray(line.get_ydata())) for line in ax.lines]


# --- data -------------------------------------------------------------------------------------


def test_illustrative_longrope_factors_shape():
    short, long = extension.illustrative_longrope_factors(128, 4.0)
    assert short.shape == long.shape == (64,)
    assert long[0] == 1.0 and long[-1] == pytest.approx(4.0)
    assert np.all(np.diff(long) > 0)
    np.testing.assert_allclose(short, long**0.25)


def test_scaled_frequencies_follow_each_methods_formula():
    dim, base, train_len, s = 128, 10000.0, 4096, 4.0
    theta = 1.0 / base ** (np.arange(0, dim, 2) / dim)
    result = extension.scaled_frequencies(dim, base, train_len, s)

    pi, pi_attn = result["PI (linear)"]
    np.testing.assert_allclose(pi, theta / s, rtol=1e-13)
    assert pi_attn == 1.0

    ntk, _ = result["NTK-aware"]
    alpha = s ** (dim / (dim - 2))
    np.testing.assert_allclose(ntk / theta, alpha ** (-np.arange(0, dim, 2) / dim), rtol=1e-12)
    assert ntk[0] == pytest.approx(theta[0]) and ntk[-1] == pytest.approx(theta[-1] / s)

    # YaRN written out from the paper: ramp between floor(i(32)) and ceil(i(1)), i(r) the plane
    # that turns r times over the original length
    def plane(rotations):
        return dim * math.log(train_len / (TWO_PI * rotations)) / (2 * math.log(base))

    low, high = math.floor(plane(32)), math.ceil(plane(1))
    w = np.clip((np.arange(dim // 2) - low) / (high - low), 0, 1)
    yarn, yarn_attn = result["YaRN"]
    np.testing.assert_allclose(yarn, theta * (1 - w) + theta / s * w, rtol=1e-12)
    assert yarn_attn == pytest.approx(0.1 * math.log(s) + 1)
    assert (low, high) == (20, 46)

    short, long = extension.illustrative_longrope_factors(dim, s)
    np.testing.assert_allclose(result["LongRoPE (short)"][0], theta / short, rtol=1e-13)
    np.testing.assert_allclose(result["LongRoPE (long)"][0], theta / long, rtol=1e-13)
    assert result["LongRoPE (long)"][1] == pytest.approx(
        math.sqrt(1 + math.log(s) / math.log(4096))
    )


def test_yarn_matches_transformers():
    config = extension.extension_configs(128, 10000.0, 4096, 4.0)["YaRN"]
    hf = LlamaConfig(
        hidden_size=128 * 4,
        num_attention_heads=4,
        head_dim=128,
        max_position_embeddings=config["max_position_embeddings"],
        rope_parameters=dict(config["rope_parameters"]),
    )
    theirs, attention = ROPE_INIT_FUNCTIONS["yarn"](hf, "cpu")
    ours, our_attention = extension.scaled_frequencies(128, 10000.0, 4096, 4.0)["YaRN"]
    np.testing.assert_allclose(ours, theirs.double().numpy(), rtol=1e-5)
    assert our_attention == pytest.approx(attention, rel=1e-6)


def test_dynamic_ntk_comparison_values():
    dim, base, train_len = 128, 10000.0, 4096
    lengths = np.array([1000, 4096, 8192, 12288, 16384, 32768, 65536])
    data = extension.dynamic_ntk_comparison(lengths, dim, base, train_len, factor=2.0)
    assert data["alpha"].tolist() == [1, 1, 3, 7, 7, 15, 31]
    bracket = np.maximum(2 * np.maximum(lengths, train_len) / train_len - 1, 1)
    np.testing.assert_allclose(data["continuous"], bracket ** (dim / (dim - 2)), rtol=1e-12)
    # at t = 2^k T the integer alpha is the continuous bracket (without the exponent)
    at_power = np.isin(lengths, [8192, 16384, 32768, 65536])
    np.testing.assert_allclose(
        data["continuous"][at_power] ** ((dim - 2) / dim), data["alpha"][at_power], rtol=1e-12
    )
    # the slowest plane's largest angle relative to training
    np.testing.assert_allclose(data["angle_none"], lengths / train_len)
    np.testing.assert_allclose(data["angle_continuous"], lengths / train_len / bracket, rtol=1e-9)
    slowest = data["alpha"] ** (-(dim - 2) / dim)
    np.testing.assert_allclose(data["angle_integer"], lengths / train_len * slowest, rtol=1e-12)
    assert np.all(data["angle_integer"][lengths >= train_len] <= 1.0)
    assert np.all(data["angle_continuous"][lengths >= train_len] <= 1.0 + 1e-12)


def test_critical_split_adds_up_to_the_rotated_score():
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal(128), rng.standard_normal(128)
    positions = np.array([0.0, 1.0, 100.0, 4096.0, 9000.0])
    first, last = extension.critical_split(positions, q, k, 92)
    rotated_q = apply_rope(np.tile(q, (positions.size, 1)), positions)
    rotated_k = apply_rope(k[None, :], np.array([0.0]))[0]
    np.testing.assert_allclose(first + last, rotated_q @ rotated_k, atol=1e-9)
    # with q = k = ones each plane contributes 2 cos(t theta_n)
    theta = inv_freq(128)
    first, last = extension.critical_split(positions, np.ones(128), np.ones(128), 92)
    np.testing.assert_allclose(
        last, 2 * np.cos(positions[:, None] * theta[46:]).sum(axis=1), atol=1e-12
    )
    np.testing.assert_allclose(
        first, 2 * np.cos(positions[:, None] * theta[:46]).sum(axis=1), atol=1e-12
    )


def test_range_exit_on_a_known_signal():
    positions = np.arange(10.0)
    values = np.array([0, 1, 2, 1, 0, 3, 1, -1, 1, 1], dtype=float)
    report = extension.range_exit(positions, values, train_len=4)
    assert report == {
        "low": 0.0,
        "high": 2.0,
        "beyond_low": -1.0,
        "beyond_high": 3.0,
        "outside": 2 / 5,
    }
    with pytest.raises(ValueError, match="train_len"):
        extension.range_exit(positions, values, train_len=20)


def test_model_settings_predictions():
    predicted = {}
    for m in ext.MODEL_SETTINGS:
        p = scaling.predict(m["dim"], m["train_len"], m["base"], m["tune_len"], m["pretrain_base"])
        predicted[m["model"]] = p.supported_length
    assert predicted["LLaMA 2"] == 4096
    assert predicted["Llama 3"] == 8192
    assert predicted["Code Llama"] == pytest.approx(TWO_PI * 1e6 ** (92 / 128))
    assert 128_000 < predicted["Code Llama"] < 130_000
    assert predicted["LLaMA 2 Long (7B, 13B)"] == pytest.approx(TWO_PI * 5e5 ** (92 / 128))


# --- figures ------------------------------------------------------------------------------------


def test_unseen_angles_plots_the_turns():
    fig = ext.plot_unseen_angles(128, 10000.0, 4096, 16384)
    theta = 1.0 / 10000.0 ** (np.arange(0, 128, 2) / 128)
    drawn = {round(float(y[0]), 6): y for _, y in lines_of(fig.axes[0]) if len(y) == 64}
    np.testing.assert_allclose(drawn[round(4096 / TWO_PI, 6)], 4096 * theta / TWO_PI)
    np.testing.assert_allclose(drawn[round(16384 / TWO_PI, 6)], 16384 * theta / TWO_PI)


def test_masks_figure_shows_the_masks():
    fig = ext.plot_masks(seq_len=16, window=4, sinks=2, block=4)
    images = [ax.images[0].get_array() for ax in fig.axes if ax.images]
    assert np.array_equal(images[0], windows.causal_mask(16))
    assert np.array_equal(images[1], windows.sliding_window_mask(16, 4))
    assert np.array_equal(images[2], windows.lambda_mask(16, 4, 2))
    assert np.array_equal(images[3], windows.blockwise_causal_mask(16, 4))
    assert np.array_equal(images[4], windows.parallel_context_windows([4, 4, 4], 4)[0])
    bias = np.ma.filled(images[5], np.nan)
    t, s = np.tril_indices(16)
    np.testing.assert_allclose(bias[t, s], -0.5 * (t - s))
    assert np.all(np.isnan(bias[np.triu_indices(16, 1)]))


def test_soft_windows_figure():
    fig = ext.plot_soft_windows(num_heads=8, alibi_len=65, dim=128, scale_len=512.0, xpos_len=2049)
    left, right = fig.axes
    slopes = [2.0**-k for k in range(1, 9)]
    for (x, y), m in zip(lines_of(left), slopes, strict=True):
        np.testing.assert_allclose(y, -m * x)
    zeta = [(0.4 + 2 * n / 128) / 1.4 for n in (0, 16, 32, 48, 63)]
    curves = [line for line in lines_of(right) if len(line[0]) == 2049]
    for (x, y), z in zip(curves, zeta, strict=True):
        np.testing.assert_allclose(y, z ** (x / 512.0), rtol=1e-12)


def test_scaled_frequencies_figure_draws_the_ratios():
    fig = ext.plot_scaled_frequencies(128, 10000.0, 4096, 4.0)
    left = fig.axes[0]
    ratios = {line.get_label(): np.asarray(line.get_ydata()) for line in left.lines}
    np.testing.assert_allclose(ratios["PI (linear)"], 0.25)
    np.testing.assert_allclose(ratios["NTK-aware"], 4.0 ** (-np.arange(64) * 2 / 126), rtol=1e-12)


def test_yarn_figure_draws_the_ramp_and_the_factor():
    fig = ext.plot_yarn(128, 10000.0, 4096, 4.0)
    _, middle, right = fig.axes
    x, w = lines_of(middle)[0]
    np.testing.assert_allclose(w, np.clip((x - 20) / 26, 0, 1))
    s, attention = lines_of(right)[0]
    np.testing.assert_allclose(attention, 0.1 * np.log(s) + 1)


def test_llama3_figure_draws_the_scaled_wavelengths():
    fig = ext.plot_llama3_bands()
    ax = fig.axes[0]
    before = 2 * np.pi * 500000.0 ** (np.arange(0, 128, 2) / 128)
    points = {line.get_label(): line for line in ax.lines}
    np.testing.assert_allclose(points["before (base only)"].get_ydata(), before)
    low = next(line for label, line in points.items() if "low" in label)
    planes = np.asarray(low.get_xdata(), dtype=int)
    np.testing.assert_allclose(low.get_ydata(), 8 * before[planes])
    assert np.all(before[planes] > 8192)
    high = next(line for label, line in points.items() if "high" in label)
    planes = np.asarray(high.get_xdata(), dtype=int)
    np.testing.assert_allclose(high.get_ydata(), before[planes])
    assert np.all(before[planes] < 2048)


def test_dynamic_ntk_figure_draws_the_comparison():
    fig = ext.plot_dynamic_ntk(128, 10000.0, 4096, factor=2.0, max_ratio=8)
    left, right = fig.axes
    x, alpha = lines_of(left)[0]
    t = x * 4096
    assert np.array_equal(alpha, scaling.dynamic_ntk_alpha(t, 4096))
    x, angle = lines_of(right)[0]
    np.testing.assert_allclose(angle, x)


def test_extrapolation_bound_figure():
    fig = ext.plot_extrapolation_bound(128, 4096, 16384)
    left, right = fig.axes
    bases, bound = lines_of(left)[0]
    np.testing.assert_allclose(bound, 2 * np.pi * bases ** (92 / 128), rtol=1e-12)
    code_llama = [y for x, y in lines_of(left) if len(x) == 1 and x[0] == 1e6]
    assert code_llama[0][0] == pytest.approx(2 * np.pi * 1e6 ** (92 / 128))
    grid, supported = lines_of(right)[0]
    larger = grid > 71738.44
    np.testing.assert_allclose(supported[larger], 2 * np.pi * grid[larger] ** (92 / 128))
    middle = (grid < 71738.4) & (grid > 3000)
    assert np.all(supported[middle] == 16384)
    assert np.all(np.isnan(supported[grid < 2000]))  # every plane turns: no hard bound


def test_critical_split_figure():
    positions = np.arange(0, 8193, 4)
    ones = np.ones(128)
    fig = ext.plot_critical_split(positions, ones, ones, 92, 10000.0, 4096)
    theta = inv_freq(128)
    top, bottom = fig.axes
    x, first = lines_of(top)[0]
    np.testing.assert_allclose(first, 2 * np.cos(x[:, None] * theta[:46]).sum(axis=1), atol=1e-9)
    x, last = lines_of(bottom)[0]
    np.testing.assert_allclose(last, 2 * np.cos(x[:, None] * theta[46:]).sum(axis=1), atol=1e-9)


def test_calculator_figure_draws_the_data():
    data = calculator_data(128, 4096, 1e6, 4096)
    fig = ext.plot_calculator(data)
    top, bottom = fig.axes[:2]
    drawn = {line.get_label(): line for line in top.lines}
    inside = next(line for label, line in drawn.items() if "inside" in label)
    beyond = next(line for label, line in drawn.items() if "beyond" in label)
    wavelengths = 2 * np.pi * 1e6 ** (np.arange(0, 128, 2) / 128)
    np.testing.assert_allclose(inside.get_ydata(), wavelengths[:46])
    np.testing.assert_allclose(beyond.get_ydata(), wavelengths[46:])
    grid = bottom.images[0].get_array()
    assert np.array_equal(grid, np.array([data["bands"][name] for name in data["bands"]]))
    # the T_extra line sits at the critical plane's wavelength
    levels = [line.get_ydata()[0] for line in top.lines if len(line.get_ydata()) == 2]
    assert any(level == pytest.approx(wavelengths[46]) for level in levels)


# --- issue 12 ------------------------------------------------------------------------------


def test_dynamic_ntk_figure_draws_qwens_formula_with_its_exponent():
    fig = ext.plot_dynamic_ntk(128, 10000.0, 4096, factor=2.0, max_ratio=8)
    left, right = fig.axes
    labels = [line.get_label() for line in left.get_lines()]
    qwen = lines_of(left)[labels.index(r"Qwen: $\alpha_t^{d/(d-2)}$")]
    t = qwen[0] * 4096
    alpha = scaling.dynamic_ntk_alpha(t, 4096)
    np.testing.assert_allclose(qwen[1], alpha ** (128 / 126), rtol=1e-12)
    angles = dict(
        zip([line.get_label() for line in right.get_lines()], lines_of(right), strict=False)
    )
    # Qwen divides the slowest plane's frequency by alpha_t: its angle never exceeds training's
    x, angle = angles["Qwen"]
    np.testing.assert_allclose(angle, x / scaling.dynamic_ntk_alpha(x * 4096, 4096), rtol=1e-9)
    assert np.all(angle[x >= 1] <= 1 + 1e-12)


def test_yarn_figure_shows_both_ramps():
    from ropelab.rope_config import yarn_paper_ramp, yarn_ramp

    fig = ext.plot_yarn(128, 10000.0, 4096, 4.0)
    middle = fig.axes[1]
    ramps = {line.get_label(): line.get_ydata() for line in middle.get_lines()}
    np.testing.assert_array_equal(ramps["code: linear in i"], yarn_ramp(128, 10000.0, 4096))
    np.testing.assert_array_equal(
        ramps["paper: linear in turns"], yarn_paper_ramp(128, 10000.0, 4096)
    )


def test_extrapolation_bound_figure_labels_and_jump():
    fig = ext.plot_extrapolation_bound(128, 4096, 16384)
    left, right = fig.axes
    texts = [t.get_text() for t in left.texts]
    # Theorem 2 at the unchanged base is 4,712; LLaMA 2 itself supports 4,096
    assert "base 10,000: 4,712\n(LLaMA 2 itself: 4,096)" in texts
    assert not any(t.startswith("LLaMA 2: 4,712") for t in texts)
    beta0 = 10000.0 ** (np.log(16384 / (2 * np.pi)) / np.log(4096 / (2 * np.pi)))
    jump = [y for x, y in lines_of(right) if len(x) == 2 and np.allclose(x, beta0) and y[0] > 1]
    np.testing.assert_allclose(jump[0], [16384, 2 * np.pi * beta0 ** (92 / 128)])
    assert "jump 16,384 → 19,420" in [t.get_text() for t in right.texts]
    assert any("conjecture" in t.get_text() for t in right.texts)


def test_log_scaling_figure():
    fig = ext.plot_log_scaling(extra_len=129_027.0, train_len=4096.0)
    (ax,) = fig.axes
    curves = [(x, y) for x, y in lines_of(ax) if len(x) > 2]
    for (t, p), base in zip(curves, (4096.0, 129_027.0), strict=True):
        np.testing.assert_allclose(p, np.maximum(1.0, np.log(t) / np.log(base)), rtol=1e-12)
    assert np.all(curves[1][1][curves[1][0] <= 129_027.0] == 1.0)


def test_model_settings_live_in_the_mathematics_module():
    from ropelab import extension

    assert ext.MODEL_SETTINGS is extension.MODEL_SETTINGS
    code_llama = next(m for m in extension.MODEL_SETTINGS if m["model"] == "Code Llama")
    assert code_llama["base"] == 1e6 and code_llama["tune_len"] == 16384


def test_extension_strip_starts_from_the_length_the_model_is_reliable_to():
    from ropelab.calculator import calculator_data

    data = calculator_data(128, 4096, 1e6, 4096)
    fig = ext.plot_extension_strip(data)
    (ax,) = fig.axes
    shown = ax.get_images()[0].get_array()
    np.testing.assert_array_equal(shown, np.array([data["bands"][n] for n in data["bands"]]))
    assert "from L = 129,027 tokens" in ax.get_title()
    # the calculator's own figure draws the same strip under its chart
    strip = ext.plot_calculator(data).axes[1]
    np.testing.assert_array_equal(strip.get_images()[0].get_array(), shown)
    assert strip.get_title() == ax.get_title()
