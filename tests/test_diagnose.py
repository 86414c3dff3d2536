"""ropelab.diagnose_rope against a zoo of implementations written without ropelab.

Every correct implementation (numpy pairwise, numpy and torch rotate_half, numpy and torch
complex form, a dense block-diagonal matrix) must be OK with no finding; every broken one must
get exactly the code of its bug, and its message must quote numbers computed here
independently (θ_i from the formula, errors against the complex form, offsets and bases that
were planted).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import rope_zoo as zoo
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ropelab
from ropelab.diagnose import CODES, Diagnosis, Finding, diagnose_rope, scores_by_distance
from ropelab.diagnose.angles import effective_position, guess_dtype
from ropelab.diagnose.explain import describe_law
from ropelab.diagnose.properties import score_spread
from ropelab.diagnose.structure import coupling_pairs, read_structure

CASES = zoo.CORRECT + zoo.BROKEN
LADDER = [2**k - 1 for k in range(4, 21)] + [2**20]  # the documented large probe positions


def theta(dim: int, base: float) -> np.ndarray:
    return np.array([base ** (-2.0 * i / dim) for i in range(dim // 2)])


def exact_rows(x: np.ndarray, positions: np.ndarray, layout: str, base: float = 1e4):
    """The exact rotation, through the zoo's complex form (interleaved) and a permutation."""
    if layout == "interleaved":
        return zoo.numpy_complex(x, positions, base)
    d = x.shape[-1]
    order = np.stack([np.arange(d // 2), np.arange(d // 2, d)], axis=-1).reshape(-1)
    out = np.empty_like(x)
    out[:, order] = zoo.numpy_complex(x[:, order], positions, base)
    return out


@pytest.fixture(scope="module")
def diagnoses() -> dict[tuple[str, str], Diagnosis]:
    out = {}
    for c in CASES:
        out[(c.name, c.layout)] = diagnose_rope(
            c.fn, layout=c.layout, batched=c.batched, dtype=c.dtype
        )
        if hasattr(c.fn, "reset"):  # a cache grown to 2^20 positions: free it
            c.fn.reset()
    return out


def report(diagnoses, fn, layout) -> Diagnosis:
    return diagnoses[(fn.__name__, layout)]


# ------------------------------------------------------------------------- the zoo


def test_the_zoo_covers_every_code_in_numpy_and_torch():
    for code in CODES:
        libraries = {c.library for c in zoo.BROKEN if c.code == code}
        assert libraries == {"numpy", "torch"}, code
    assert {c.layout for c in zoo.CORRECT} == {"half", "interleaved"}


def test_the_exact_reference_of_these_tests_is_the_rotation():
    # the tests' own reference against ropelab's dense matrices, at a large position
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 8))
    positions = np.array([0, 7, 2**20])
    for layout in ("half", "interleaved"):
        dense = np.einsum(
            "sij,sj->si", ropelab.rotation_matrix(positions, 8, 1e4, layout=layout), x
        )
        assert np.abs(exact_rows(x, positions, layout) - dense).max() < 1e-9


@pytest.mark.parametrize("case", zoo.CORRECT, ids=lambda c: f"{c.name}-{c.layout}")
def test_correct_implementations_are_ok(case, diagnoses):
    diagnosis = report(diagnoses, case.fn, case.layout)
    assert diagnosis.ok, str(diagnosis)
    assert diagnosis.findings == []
    assert diagnosis.tolerance == {"float64": 1e-9, "float32": 1e-6}[case.dtype]
    assert diagnosis.max_error <= diagnosis.tolerance
    assert str(diagnosis).splitlines()[0].endswith("): OK.")


@pytest.mark.parametrize("case", zoo.BROKEN, ids=lambda c: f"{c.name}-{c.layout}")
def test_broken_implementations_get_exactly_their_code(case, diagnoses):
    diagnosis = report(diagnoses, case.fn, case.layout)
    assert diagnosis.codes == [case.code], str(diagnosis)
    assert not diagnosis.ok
    message = diagnosis.findings[0].message
    assert "\nEvidence: " in message and "\nFix: " in message


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.name}-{c.layout}")
def test_reports_fit_the_page_and_calls_are_few(case, diagnoses):
    diagnosis = report(diagnoses, case.fn, case.layout)
    text = str(diagnosis)
    assert max(len(line) for line in text.splitlines()) <= 79
    assert 1 <= diagnosis.calls <= 40


# ------------------------------------------------------------------------- the evidence


def test_table_mismatch_quotes_the_two_angles_of_pair_0_1(diagnoses):
    message = report(diagnoses, zoo.torch_seed003, "half").findings[0].message
    t = theta(64, 1e4)
    assert f"coordinate 0 turns by {t[0]:.4f}" in message
    assert f"coordinate 1 by {t[1]:.4f}" in message  # 0.7499: the half table's θ_1
    assert "laid out for the half-split layout" in message
    assert "rotate as the half layout" in message  # the declared table is right
    other = report(diagnoses, zoo.numpy_repeat_table_rotate_half, "half").findings[0].message
    assert f"coordinate 32 by {t[16]:.4f}" in other  # repeat(θ): coordinate 32 carries θ_16
    assert "build the table for the half layout" in other


def test_table_mismatch_breaks_both_properties_by_measured_amounts(diagnoses):
    message = report(diagnoses, zoo.torch_seed003, "half").findings[0].message
    low, high = map(float, re.search(r"from ([\d.]+) to ([\d.]+)", message).groups())
    assert low < 0.5 and high == pytest.approx(math.sqrt(2), abs=1e-4)


def test_pairing_names_both_layouts(diagnoses):
    message = report(diagnoses, zoo.numpy_pairwise, "half").findings[0].message
    assert "coordinate 0 is paired with 1 (expected 32)" in message
    assert "interleaved_to_half" in message
    message = report(diagnoses, zoo.torch_rotate_half, "interleaved").findings[0].message
    assert "coordinate 0 is paired with 32 (expected 1)" in message


def test_direction_quotes_the_negative_angle(diagnoses):
    for fn, layout in [
        (zoo.numpy_rotate_half_wrong_sign, "half"),
        (zoo.torch_complex_conjugate, "interleaved"),
    ]:
        message = report(diagnoses, fn, layout).findings[0].message
        assert "plane 0 turned by -1.0000 rad (expected +1.0000)" in message


@pytest.mark.parametrize(
    ("fn", "layout", "formula", "words"),
    [
        (zoo.numpy_exponent_i_over_d, "interleaved", lambda i: 1e4 ** (-i / 64), "base^(-i/d)"),
        (zoo.torch_missing_minus, "half", lambda i: 1e4 ** (2 * i / 64), "minus sign"),
        (zoo.numpy_linspace_exponents, "half", lambda i: 1e4 ** (-i / 31), "d-2"),
        (zoo.torch_wrong_base, "half", lambda i: 5e5 ** (-2 * i / 64), "b = 500000"),
    ],
)
def test_frequencies_quote_the_measured_theta(diagnoses, fn, layout, formula, words):
    message = report(diagnoses, fn, layout).findings[0].message
    assert words in message
    for i in (1, 16, 31):
        measured = math.remainder(formula(i), 2 * math.pi)  # integer positions: mod 2π
        assert f"θ_{i} = {measured:.6f} ({theta(64, 1e4)[i]:.6f})" in message


def test_positions_quote_the_offset_and_the_clamp(diagnoses):
    message = report(diagnoses, zoo.torch_one_based, "half").findings[0].message
    assert "every position m as m + 1" in message
    message = report(diagnoses, zoo.numpy_clamped_cache, "half").findings[0].message
    assert "every position past 4095 as 4095" in message
    message = report(diagnoses, zoo.numpy_row_index_positions, "half").findings[0].message
    assert "positions [0, 1, 2, 3, 4, 5]" in message


@pytest.mark.parametrize(
    ("fn", "layout", "dtype"),
    [
        (zoo.torch_bf16_angles, "half", "bfloat16"),
        (zoo.numpy_fp16_angles, "interleaved", "float16"),
        (zoo.torch_fp32_angles, "half", "float32"),
    ],
)
def test_precision_names_the_dtype_and_the_first_position_above_1e_3(diagnoses, fn, layout, dtype):
    message = report(diagnoses, fn, layout).findings[0].message
    assert f"likely {dtype}" in message
    # the first probed position whose error exceeds 1e-3, measured here on the unit vectors
    eye = np.eye(64)
    first = None
    for position in [1, 2, 3, 5, 8, *LADDER]:
        positions = np.full(64, position)
        out = np.asarray(fn(eye.copy(), positions.copy()), dtype=np.float64)
        error = np.abs(out - exact_rows(eye, positions, layout)).max()
        if not np.isfinite(error) or error > 1e-3:
            first = position
            break
    assert f"first above 1e-3 at position {first} " in message
    if dtype == "float16":
        assert "NaN or infinity from position 65535 on" in message


def test_transformers_rotary_embedding_computes_its_angles_in_float32():
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import (
        LlamaRotaryEmbedding,
        apply_rotary_pos_emb,
    )

    config = LlamaConfig(
        hidden_size=256,
        num_attention_heads=4,
        max_position_embeddings=4096,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
    )
    rotary = LlamaRotaryEmbedding(config)

    def hf(x, positions):
        q = torch.from_numpy(x)[None, None]
        cos, sin = rotary(q, torch.from_numpy(positions)[None])
        return apply_rotary_pos_emb(q, q, cos, sin)[0][0, 0]

    diagnosis = diagnose_rope(hf, layout="half")
    assert diagnosis.codes == ["precision"]
    assert "likely float32" in diagnosis.findings[0].message


def test_yarn_table_is_scaled_and_has_other_frequencies():
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import (
        LlamaRotaryEmbedding,
        apply_rotary_pos_emb,
    )

    config = LlamaConfig(
        hidden_size=256,
        num_attention_heads=4,
        max_position_embeddings=16384,
        rope_parameters={
            "rope_type": "yarn",
            "rope_theta": 10000.0,
            "factor": 4.0,
            "original_max_position_embeddings": 4096,
        },
    )
    rotary = LlamaRotaryEmbedding(config)

    def yarn(x, positions):
        q = torch.from_numpy(x)[None, None]
        cos, sin = rotary(q, torch.from_numpy(positions)[None])
        return apply_rotary_pos_emb(q, q, cos, sin)[0][0, 0]

    diagnosis = diagnose_rope(yarn, layout="half")
    assert diagnosis.codes == ["scale", "frequencies"]
    factor = 0.1 * math.log(4.0) + 1.0  # YaRN's attention factor
    assert f"length {factor:.4f} instead of 1" in diagnosis.findings[0].message
    # YaRN keeps the fastest plane and divides the slowest by the factor (up to float32)
    assert f"θ_0 = {1.0:.6f}" in diagnosis.findings[1].message
    slowest = theta(64, 1e4)[31] / 4.0
    assert f"θ_31 = {slowest:.6f}" in diagnosis.findings[1].message


def test_exception_quotes_the_message_and_how_far_it_ran(diagnoses):
    message = report(diagnoses, zoo.numpy_short_cache, "interleaved").findings[0].message
    assert "IndexError: index 8191 is out of bounds" in message
    assert "earlier calls with positions up to 4095 ran" in message
    assert "a table of 4096 positions stops between positions 4095" in message
    message = report(diagnoses, zoo.torch_numpy_positions, "half").findings[0].message
    assert "AttributeError" in message and "'float'" in message


def test_not_relative_shows_the_score_moving_with_the_positions(diagnoses):
    message = report(diagnoses, zoo.numpy_dynamic_base, "half").findings[0].message
    values = [float(v) for v in re.findall(r"score (-?[\d.]+) at positions", message)]
    values += [float(v) for v in re.findall(r"and (-?[\d.]+) at \(", message)]
    assert len(values) == 2 and abs(values[0] - values[1]) > 1e-3
    assert "separate calls" in message


def test_not_orthogonal_quotes_the_norm_change(diagnoses):
    message = report(diagnoses, zoo.numpy_in_place, "half").findings[0].message
    low, high = map(float, re.search(r"from ([\d.]+) to ([\d.]+)", message).groups())
    # the in-place block [[c, -s], [cs, c - s²]] has singular values with product c²
    assert low < 0.5 < 1.2 < high


# ------------------------------------------------------------------------- one cause each


def test_two_root_causes_give_two_findings():
    diagnosis = diagnose_rope(lambda x, p: zoo.numpy_pairwise(x, p, base=500.0), layout="half")
    assert diagnosis.codes == ["pairing", "frequencies"]
    diagnosis = diagnose_rope(
        lambda x, p: zoo.numpy_rotate_half_wrong_sign(x, p + 1), layout="half"
    )
    assert diagnosis.codes == ["direction", "positions"]


def test_an_offset_with_float32_angles_is_two_causes():
    diagnosis = diagnose_rope(lambda x, p: zoo.torch_fp32_angles(x, p + 3), layout="half")
    assert diagnosis.codes == ["positions", "precision"]
    assert "as m + 3:" in diagnosis.findings[0].message


def test_a_fractional_offset_is_measured():
    diagnosis = diagnose_rope(lambda x, p: zoo.numpy_rotate_half(x, p + 0.25), layout="half")
    assert diagnosis.codes == ["positions"]
    assert "as m + 0.25:" in diagnosis.findings[0].message


def test_rows_rotated_by_their_place_in_the_batch():
    diagnosis = diagnose_rope(
        lambda x, p: zoo.numpy_rotate_half(x, p + np.arange(len(p))), layout="half"
    )
    assert diagnosis.codes == ["positions"]
    assert "place in the batch" in diagnosis.findings[0].message


def test_a_base_off_by_half_a_percent_is_frequencies_not_precision():
    diagnosis = diagnose_rope(lambda x, p: zoo.numpy_rotate_half(x, p, base=10050.0))
    assert diagnosis.codes == ["frequencies"]
    assert "b = 10050 instead of 10000" in diagnosis.findings[0].message


def test_frequencies_off_by_a_few_percent_without_a_law_are_frequencies():
    noise = 1 + 0.03 * np.random.default_rng(5).uniform(-1, 1, 32)

    def noisy(x, p):
        angle = np.concatenate([p[:, None] * theta(64, 1e4) * noise] * 2, axis=-1)
        rotated = np.concatenate([-x[:, 32:], x[:, :32]], axis=-1)
        return x * np.cos(angle) + rotated * np.sin(angle)

    diagnosis = diagnose_rope(noisy)
    assert diagnosis.codes == ["frequencies"]
    assert "none of the usual formulas" in diagnosis.findings[0].message


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_two_dimensions_have_one_pairing(layout):
    # for d = 2 both layouts pair (0, 1): never a pairing finding
    assert diagnose_rope(zoo.numpy_pairwise, layout=layout, dim=2).ok
    wrong = diagnose_rope(zoo.numpy_rotate_half_wrong_sign, layout=layout, dim=2)
    assert wrong.codes == ["direction"]


def test_scaled_table_is_a_scale_with_its_factor():
    diagnosis = diagnose_rope(lambda x, p: 1.25 * zoo.numpy_rotate_half(x, p), layout="half")
    assert diagnosis.codes == ["scale"]
    assert "length 1.2500 instead of 1" in diagnosis.findings[0].message
    assert "every score by 1.5625" in diagnosis.findings[0].message


def test_a_reordered_output_is_a_pairing_problem():
    diagnosis = diagnose_rope(lambda x, p: zoo.numpy_rotate_half(x, p)[:, ::-1], layout="half")
    assert diagnosis.codes == ["pairing"]
    assert "[31, 63] (expected [0, 32])" in diagnosis.findings[0].message


def test_float32_output_is_precision_of_the_tables():
    diagnosis = diagnose_rope(
        lambda x, p: zoo.numpy_rotate_half(x, p).astype(np.float32), layout="half"
    )
    assert diagnosis.codes == ["precision"]
    assert "cos and sin (or the output)" in diagnosis.findings[0].message
    assert "likely float32" in diagnosis.findings[0].message


def test_positions_rounded_to_bfloat16_are_named():
    def rounded(x, p):
        return zoo.numpy_rotate_half(x, torch.from_numpy(p).to(torch.bfloat16).double().numpy())

    diagnosis = diagnose_rope(rounded, layout="half")
    assert diagnosis.codes == ["precision"]
    assert "positions are rounded" in diagnosis.findings[0].message
    assert "likely bfloat16" in diagnosis.findings[0].message


def test_a_tensor_that_requires_grad_is_read():
    diagnosis = diagnose_rope(
        lambda x, p: torch.from_numpy(zoo.numpy_rotate_half(x, p)).requires_grad_(),
        layout="half",
    )
    assert diagnosis.ok


# ------------------------------------------------------------------------- hypothesis

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
dims = st.integers(2, 48).map(lambda h: 2 * h)
bases = st.floats(50.0, 1e6)


@SETTINGS
@given(dim=dims, base=bases, which=st.sampled_from(zoo.CORRECT))
def test_correct_implementations_are_ok_for_any_dim_and_base(dim, base, which):
    if hasattr(which.fn, "with_base"):
        fn = which.fn.with_base(base)
    else:

        def fn(x, p):
            return which.fn(x, p, base=base)

    diagnosis = diagnose_rope(
        fn, layout=which.layout, dim=dim, base=base, batched=which.batched, dtype=which.dtype
    )
    if hasattr(which.fn, "reset"):
        which.fn.reset()
    assert diagnosis.ok, str(diagnosis)


@SETTINGS
@given(dim=dims, shift=st.integers(-50, 50).filter(bool))
def test_any_offset_is_read_exactly(dim, shift):
    diagnosis = diagnose_rope(
        lambda x, p: zoo.numpy_rotate_half(x, p + shift), layout="half", dim=dim
    )
    assert diagnosis.codes == ["positions"]
    sign = "+" if shift > 0 else "-"
    assert f"as m {sign} {abs(shift)}:" in diagnosis.findings[0].message


@SETTINGS
@given(dim=st.integers(4, 48).map(lambda h: 2 * h), ratio=st.floats(0.1, 10.0))
def test_a_wrong_base_is_measured(dim, ratio):
    if abs(math.log(ratio)) < 0.05:
        ratio = 2.0
    used = 1e4 * ratio
    diagnosis = diagnose_rope(
        lambda x, p: zoo.torch_rotate_half(x, p, base=used), layout="half", dim=dim
    )
    assert diagnosis.codes == ["frequencies"]
    measured = float(re.search(r"with b = ([\d.e+]+) instead", diagnosis.findings[0].message)[1])
    assert measured == pytest.approx(used, rel=1e-5)


@SETTINGS
@given(dim=st.integers(2, 48).map(lambda h: 2 * h), layout=st.sampled_from(["half", "interleaved"]))
def test_the_other_layout_is_pairing_for_any_dim(dim, layout):
    fn = zoo.numpy_pairwise if layout == "half" else zoo.numpy_rotate_half
    diagnosis = diagnose_rope(fn, layout=layout, dim=dim)
    assert diagnosis.codes == ["pairing"]


# ------------------------------------------------------------------------- bad input and fn


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"dim": 63}, "dim"),
        ({"dim": 0}, "dim"),
        ({"dim": -4}, "dim"),
        ({"dim": 2.5}, "dim"),
        ({"dim": 2048}, "dim"),
        ({"base": 0.0}, "base"),
        ({"base": -10.0}, "base"),
        ({"base": float("nan")}, "base"),
        ({"base": float("inf")}, "base"),
        ({"layout": "pairs"}, "layout"),
        ({"dtype": "float16"}, "dtype"),
        ({"dtype": None}, "dtype"),
        ({"tolerance": 0.0}, "tolerance"),
        ({"tolerance": -1e-6}, "tolerance"),
        ({"tolerance": float("nan")}, "tolerance"),
        ({"tolerance": 0.5}, "tolerance"),
        ({"tolerance": "1e-6"}, "tolerance"),
        ({"tolerance": True}, "tolerance"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        diagnose_rope(zoo.numpy_rotate_half, **kwargs)


@pytest.mark.parametrize("fn", [None, 3, "rope", np.eye(2)])
def test_fn_must_be_callable(fn):
    with pytest.raises(ValueError, match=r"^fn must be callable"):
        diagnose_rope(fn)


def test_an_exception_in_fn_is_a_finding_not_a_crash():
    def broken(x, positions):
        raise RuntimeError("the kernel is not compiled")

    diagnosis = diagnose_rope(broken)
    assert diagnosis.codes == ["exception"]
    assert "RuntimeError: the kernel is not compiled" in diagnosis.findings[0].message
    assert diagnosis.calls == 1


def test_an_exception_at_large_positions_only():
    def limited(x, positions):
        if positions.max() > 70000:
            raise OverflowError("position too large")
        return zoo.numpy_rotate_half(x, positions)

    diagnosis = diagnose_rope(limited)
    assert diagnosis.codes == ["exception"]
    assert "earlier calls with positions up to 65535 ran" in diagnosis.findings[0].message
    assert "fn stops between positions 65535" in diagnosis.findings[0].message


def test_nan_at_small_positions_is_a_shape_finding():
    diagnosis = diagnose_rope(lambda x, p: x * np.nan)
    assert diagnosis.codes == ["shape"]
    assert "NaN or infinity" in diagnosis.findings[0].message


def test_calls_are_counted_and_inputs_are_fresh_copies():
    seen = []

    def counting(x, positions):
        seen.append((x.copy(), positions.copy()))
        out = zoo.numpy_rotate_half(x, positions)
        x[...] = 0.0  # scribbling on the input must not spoil later probes
        positions[...] = 0
        return out

    diagnosis = diagnose_rope(counting)
    assert diagnosis.ok
    assert diagnosis.calls == len(seen) <= 40
    assert all(x.dtype == np.float64 and p.dtype == np.int64 for x, p in seen)
    assert all(x.ndim == 2 and x.shape[1] == 64 and p.shape == (len(x),) for x, p in seen)
    assert max(int(p.max()) for _, p in seen) == 2**20


# ------------------------------------------------------------------------- the pieces


def test_finding_codes_are_a_fixed_vocabulary():
    assert len(set(CODES)) == len(CODES) == 14
    with pytest.raises(ValueError, match=r"^code must be one of"):
        Finding("bug", "text")


def test_effective_position_reads_integer_positions_only():
    t = theta(64, 1e4)
    for p in (0, 1, -3, 4095, 777_777, 2**20):
        assert effective_position(np.remainder(p * t + np.pi, 2 * np.pi) - np.pi, t) == p
    assert effective_position(0.5 * t, t) is None
    assert effective_position(1.1 * t, t) is None


def test_describe_law_names_each_known_mistake():
    i = np.arange(32)
    cases = {
        "base^(-i/d)": 1e4 ** (-i / 64),
        "minus sign": 1e4 ** (2 * i / 64),
        "start at 2/d": 1e4 ** (-2 * (i + 1) / 64),
        "d-2": 1e4 ** (-i / 31),
        "b = 1e+06": 1e6 ** (-2 * i / 64),
        "same 0.500000": np.full(32, 0.5),
    }
    for words, values in cases.items():
        wrapped = np.remainder(values + np.pi, 2 * np.pi) - np.pi
        assert words in describe_law(wrapped, 64, 1e4), words


def test_guess_dtype_from_the_unit_roundoff():
    assert guess_dtype(2.0**-8) == guess_dtype(2.0**-7) == "bfloat16"
    assert guess_dtype(2.0**-11) == guess_dtype(2.0**-10) == "float16"
    assert guess_dtype(2.0**-24) == guess_dtype(2.0**-23) == "float32"
    assert guess_dtype(1e-15) == "float64"


def test_coupling_pairs_reads_the_layout_from_a_matrix():
    for layout in ("half", "interleaved"):
        matrix = ropelab.rotation_matrix(3, 8, 1e4, layout=layout)
        found, pairs = coupling_pairs(matrix[None])
        assert found == layout
        assert len(pairs) == 4
    assert coupling_pairs(np.eye(8)[None])[0] == "diagonal"
    assert coupling_pairs(np.ones((1, 8, 8)))[0] == "general"


def test_read_structure_needs_equal_angles_on_both_coordinates_of_a_pair():
    t = theta(8, 1e4)
    matrices = ropelab.rotation_matrix(np.array([0.0, 1.0, 2.0]), 8, 1e4, layout="half")
    assert read_structure(matrices).table == ("half",)
    # coordinate 4 (second of plane 0) turns by θ_0 + 1e-3 per position: no table layout
    skewed = matrices.copy()
    for k, m in enumerate([0.0, 1.0, 2.0]):
        angle = m * (t[0] + 1e-3)
        skewed[k, 4, 4], skewed[k, 4, 0] = np.cos(angle), np.sin(angle)
    structure = read_structure(skewed)
    assert structure.pairing == "half"
    assert structure.table == ()


def test_scores_by_distance_of_a_correct_rope_is_one_curve():
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal((2, 16))
    distances, keys = np.arange(-4, 5), np.array([10, 1000, 70000])
    scores = scores_by_distance(zoo.numpy_rotate_half, q, k, distances, keys)
    assert scores.shape == (3, 9)
    # q·R_r k with the complex form: rotate q by r relative to k at position 0
    expected = [exact_rows(q[None], np.array([r]), "half") @ k for r in distances]
    for row in scores:
        np.testing.assert_allclose(row, np.ravel(expected), atol=1e-9)
    broken = scores_by_distance(zoo.torch_seed003, q, k, distances, keys)
    assert np.abs(broken - broken[0]).max() > 0.1


def test_scores_by_distance_checks_its_input():
    q = np.ones(4)
    with pytest.raises(ValueError, match="even length"):
        scores_by_distance(zoo.numpy_rotate_half, np.ones(3), np.ones(3), [0], [0])
    with pytest.raises(ValueError, match=">= 0"):
        scores_by_distance(zoo.numpy_rotate_half, q, q, [-5], [2])
    with pytest.raises(ValueError, match="integers"):
        scores_by_distance(zoo.numpy_rotate_half, q, q, [0.5], [2])


def test_score_spread_picks_the_worst_group():
    spread = score_spread({(0, 1): 0.5, (1, 2): 0.5, (0, 2): 0.1, (3, 5): 0.4, (7, 7): 1.0})
    assert spread.distance == 2
    assert spread.defect == pytest.approx(0.3)


# ------------------------------------------------------------------------- issue 24: real code


#: The positions of the diagnoser's first call, as chapter 3A documents them.
FIRST_CALL = [3, 0, 5, 1, 8, 2]


def message_of(diagnoses, fn, layout) -> str:
    if isinstance(fn, type):  # a stateful implementation: the zoo holds its instance
        fn = next(c.fn for c in CASES if isinstance(c.fn, fn))
    diagnosis = report(diagnoses, fn, layout)
    assert len(diagnosis.findings) == 1, str(diagnosis)
    return diagnosis.findings[0].message


def test_right_code_in_other_styles_gets_no_finding(diagnoses):
    # the new styles (einsum of 2x2 blocks, GPT-J, a growing cache, batched, transformers'
    # two pieces through the adapter) are in CORRECT; this checks they were run as such
    new = [c for c in zoo.CORRECT if c.new]
    assert len(new) == 5 and {c.batched for c in new} == {True, False}
    for case in new:
        assert report(diagnoses, case.fn, case.layout).ok


def test_a_decode_step_that_slices_the_table_is_found_by_one_token_calls(diagnoses):
    message = message_of(diagnoses, zoo.numpy_decode_step_from_start, "half")
    assert "one row (x of shape (1, dim)) at position 5: rotated as position 0" in message
    assert f"at position {2**20 - 1}: rotated as position 0" in message
    assert "cos[:seq_len]" in message and "cos[positions]" in message
    # the distance quoted is |R_5 x - x| / |x| for some x: between 0 and 2
    distance = float(re.search(r"position 0, ([\d.]+) from", message)[1])
    assert 0.1 < distance <= 2.0


def test_the_one_token_probes_are_what_finds_the_decode_bug(monkeypatch):
    # without the one-token calls the decode bug passes: the probes, not luck, find it
    import ropelab.diagnose.api as api

    monkeypatch.setattr(api, "SINGLE_POSITIONS", ())
    assert diagnose_rope(zoo.numpy_decode_step_from_start, layout="half").ok


def test_positions_that_are_not_contiguous_are_read_row_by_row(diagnoses):
    message = message_of(diagnoses, zoo.torch_start_pos_slice, "interleaved")
    start = FIRST_CALL[0]
    used = [start + k for k in range(len(FIRST_CALL))]
    assert f"rotated as {used}" in message
    assert f"row k as position {start} + k" in message
    assert "table[start : start + seq]" in message


def test_a_cache_that_grows_from_zero_is_read_from_the_call_history(diagnoses):
    message = message_of(diagnoses, zoo.GrowingCacheFromZero, "half")
    # the first call reaches position 8: a cache of 9 rows; the ladder then grows it
    previous, expected = 8, []
    for position in LADDER[:4]:
        expected.append(f"{position} as {position - (previous + 1)} (cache of {previous + 1})")
        previous = position
    assert ", ".join(expected) in message
    assert "arange(old_length, new_length)" in message


def test_state_kept_between_calls_is_not_relative(diagnoses):
    message = message_of(diagnoses, zoo.DynamicCacheRebuilt, "half")
    assert "keeps state between calls" in message
    assert f"repeated after calls up to position {2**20}" in message


def test_a_table_per_coordinate_quotes_both_angles(diagnoses):
    message = message_of(diagnoses, zoo.numpy_per_coordinate_table, "half")
    assert f"coordinate 0 turns by {1.0:.4f}" in message
    assert f"coordinate 32 by {1e4 ** (-32 / 64):.4f}" in message  # θ_32 = base^(-32/64)
    assert "np.arange(0, d, 2)" in message
    assert "in place" not in message


def test_a_sign_dropped_on_one_half_is_direction_of_one_coordinate(diagnoses):
    message = message_of(diagnoses, zoo.torch_rotate_half_dropped_minus, "half")
    assert "coordinate 0 turned by -1.0000 rad and coordinate 32 by +1.0000" in message
    assert "not (x2, x1)" in message
    assert "in place" not in message


def test_a_factor_on_cos_only_is_a_scale_with_both_factors(diagnoses):
    message = message_of(diagnoses, zoo.torch_factor_on_cos_only, "half")
    assert "cos is multiplied by 1.1386 and sin by 1.0000" in message
    # the largest length change of cos·1.1386 with sin is 1.1386 (at sin = 0, position 0)
    assert "ranges from 1.0000 to 1.1386" in message
    assert "in place" not in message


def test_a_small_scale_is_a_scale_not_precision(diagnoses):
    message = message_of(diagnoses, zoo.numpy_scaled_output, "half")
    assert "length 1.0100 instead of 1" in message
    assert f"every score by {1.01**2:.4f}" in message
    assert "bfloat16" not in message


def test_positions_in_float16_are_named_positions_not_theta(diagnoses):
    message = message_of(diagnoses, zoo.torch_fp16_positions, "half")
    assert "the positions are rounded" in message and "likely float16" in message
    for position in (4095, 8191, 32767):
        assert f"{position} as {int(np.float16(position))}" in message
    assert "NaN or infinity from position 65535 on" in message
    assert "θ_i are rounded" not in message
    assert "position_ids.to(x.dtype)" in message


def test_planes_that_never_turn_are_frequencies_with_the_planes(diagnoses):
    message = message_of(diagnoses, zoo.numpy_partial_by_accident, "interleaved")
    t = theta(64, 1e4)
    assert "planes 16 to 31 never turn" in message
    assert f"is {t[16]:.6f} to {t[31]:.6f}" in message
    assert "the other 16 planes are right" in message


def test_the_batch_probe_finds_the_first_sequence_positions(diagnoses):
    message = message_of(diagnoses, zoo.torch_first_sequence_positions, "half")
    assert "positions of the first one" in message
    # the first wrong row: batch 1, token 0, at the second sequence's first position
    assert "row (batch 1, head 0, token 0) at position 5 is rotated as 0" in message


def test_a_table_broadcast_over_the_heads_is_a_shape_with_the_axis_named():
    def broadcast_over_heads(x, positions):  # the table's new axis after the sequence axis
        q = torch.from_numpy(x)
        freqs = torch.from_numpy(positions).double()[..., None] * zoo._hf_inv_freq(64, 1e4)
        emb = torch.cat((freqs, freqs), dim=-1)[:, :, None]  # (batch, seq, 1, d)
        return q * emb.cos() + zoo._rotate_half(q) * emb.sin()

    diagnosis = diagnose_rope(broadcast_over_heads, layout="half", batched=True)
    # one sequence of one head, (1, 1, seq, d), broadcasts to (1, seq, seq, d)
    assert diagnosis.codes == ["shape"], str(diagnosis)
    message = diagnosis.findings[0].message
    assert "fn returned shape (1, 6, 6, 64) for an input of shape (1, 1, 6, 64)" in message
    assert "unsqueeze_dim=1" in message


def test_unsqueeze_dim_2_is_a_shape_with_the_axis_named(diagnoses):
    message = message_of(diagnoses, zoo.HF_STYLE_UNSQUEEZE_2, "half")
    assert "for an input of shape (1, 1, 6, 64)" in message
    assert "the head axis of the output has the length of the sequence (6)" in message


def test_an_exception_only_in_the_batch_probe_names_the_axes():
    def first_sequence_only(x, positions):
        if x.shape[0] > 1:
            raise RuntimeError("The size of tensor a (2) must match the size of tensor b")
        return zoo.torch_batched_rotate_half(x, positions)

    diagnosis = diagnose_rope(first_sequence_only, layout="half", batched=True)
    assert diagnosis.codes == ["exception"]
    message = diagnosis.findings[0].message
    assert "x of shape (2, 4, 4, 64)" in message and "unsqueeze_dim=1" in message


def test_an_exception_only_in_one_token_calls_says_so():
    def no_single_rows(x, positions):
        if len(x) == 1:
            raise IndexError("too many indices for array")
        return zoo.numpy_rotate_half(x, positions)

    diagnosis = diagnose_rope(no_single_rows, layout="half")
    assert diagnosis.codes == ["exception"]
    message = diagnosis.findings[0].message
    assert "x of shape (1, 64)" in message and "runs on several rows but not on one" in message


def test_exception_fixes_follow_the_exception(diagnoses):
    numpy_attr = message_of(diagnoses, zoo.torch_numpy_positions, "half")
    assert "torch.from_numpy(x)" in numpy_attr and "cache" not in numpy_attr
    short = message_of(diagnoses, zoo.numpy_short_cache, "interleaved")
    assert "a table of 4096 positions" in short

    def unwritten(x, positions):
        raise NotImplementedError("write your RoPE here")

    message = diagnose_rope(unwritten).findings[0].message
    assert "Fix: write the rotation" in message and "cache" not in message


def test_not_orthogonal_without_a_cause_borrows_no_advice(diagnoses):
    for fn in (zoo.numpy_sin_off_by_one, zoo.torch_cos_sin_from_two_sources):
        message = message_of(diagnoses, fn, "half")
        assert "none of the causes the check knows" in message
        assert "new array" not in message and "in place" not in message
        low, high = map(
            float,
            re.search(
                r"cos² \+ sin² of a coordinate ranges from "
                r"([\d.]+) to ([\d.]+)",
                message,
            ).groups(),
        )
        assert low < 0.99 and high > 1.01


def test_in_place_quotes_cos_times_sin(diagnoses):
    for fn, layout, partner in [
        (zoo.numpy_in_place, "half", 32),
        (zoo.torch_in_place, "interleaved", 1),
    ]:
        message = message_of(diagnoses, fn, layout)
        # in place, coordinate b gets c·s of x_a at position 1 (c = cos 1, s = sin 1)
        assert f"coordinate {partner} gets {math.cos(1) * math.sin(1):+.4f}·x_0" in message
        assert f"where a rotation has {math.sin(1):+.4f}" in message


def test_in_place_the_other_way_round_is_named_with_its_matrix():
    def second_half_first(x, positions):
        half = x.shape[-1] // 2
        angle = positions[:, None] * 10000.0 ** (-np.arange(half) / half)
        cos, sin = np.cos(angle), np.sin(angle)
        x1, x2 = x[:, :half], x[:, half:]
        x2[:] = x2 * cos + x1 * sin
        x1[:] = x1 * cos - x2 * sin  # x2 is already rotated here
        return x

    diagnosis = diagnose_rope(second_half_first, layout="half")
    assert diagnosis.codes == ["in_place"]
    message = diagnosis.findings[0].message
    assert "overwrites the second coordinate of each pair" in message
    assert "[[c - s², -cs], [s, c]]" in message
    # coordinate 0 gets -c·s of x_32 at position 1, where a rotation has -sin 1
    assert f"gets {-math.cos(1) * math.sin(1):+.4f}·x_32" in message
    assert f"where a rotation has {-math.sin(1):+.4f}" in message
    assert "a copy of the second coordinates" in message


def test_precision_fix_follows_the_dtype():
    message = diagnose_rope(zoo.torch_fp32_angles, layout="half").findings[0].message
    assert "float32 angles are the common compromise" in message
    assert "at least float32" not in message
    message = diagnose_rope(zoo.torch_bf16_angles, layout="half").findings[0].message
    assert "float32 at least (bfloat16 has 8 significant bits)" in message


def test_batched_probes_get_the_shapes_of_transformers():
    seen = []

    def spy(x, positions):
        seen.append((x.shape, positions.shape))
        return zoo.torch_batched_rotate_half(x, positions)

    diagnosis = diagnose_rope(spy, layout="half", batched=True)
    assert diagnosis.ok
    assert diagnosis.calls == len(seen)
    assert all(len(s) == 4 and s[:2] == (1, 1) and p == (1, s[2]) for s, p in seen[:-1])
    assert seen[-1] == ((2, 4, 4, 64), (2, 4))


def test_one_token_calls_and_the_repeated_call_are_made():
    seen = []

    def spy(x, positions):
        seen.append(positions.copy())
        return zoo.numpy_rotate_half(x, positions)

    diagnose_rope(spy, layout="half")
    singles = [int(p[0]) for p in seen if len(p) == 1]
    assert singles == [5, 2**20 - 1]
    assert np.array_equal(seen[-1], seen[0])  # the first call again, last


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.name}-{c.layout}")
def test_reports_print_no_rounding_noise(case, diagnoses):
    # issue 21: no number at the rounding level (e-10 and below) in any report
    text = " ".join(str(report(diagnoses, case.fn, case.layout)).split())
    for tolerance in ("1e-9", "1e-12"):  # tolerances stated as such
        for stated in ("below", "to", "tolerance"):
            text = text.replace(f"{stated} {tolerance}", "")
    assert not re.search(r"e-(0?9|[1-9]\d)", text), text


def test_batched_must_be_a_bool():
    with pytest.raises(ValueError, match=r"^batched"):
        diagnose_rope(zoo.numpy_rotate_half, batched="yes")


def test_from_cos_sin_checks_its_arguments():
    from ropelab.diagnose import from_cos_sin

    with pytest.raises(ValueError, match=r"^rotary"):
        from_cos_sin(None, zoo.hf_style_apply)
    with pytest.raises(ValueError, match=r"^which"):
        from_cos_sin(zoo.HFStyleRotary(), zoo.hf_style_apply, which="v")


def test_from_cos_sin_rotates_k_too():
    from ropelab.diagnose import from_cos_sin

    fn = from_cos_sin(zoo.HFStyleRotary(), zoo.hf_style_apply, which="k")
    assert diagnose_rope(fn, layout="half", batched=True).ok

    def k_with_q(q, k, cos, sin):  # a typo: k's sin term uses q
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        return q * cos + zoo._rotate_half(q) * sin, k * cos + zoo._rotate_half(q) * sin

    fn = from_cos_sin(zoo.HFStyleRotary(), k_with_q, which="k")
    assert not diagnose_rope(fn, layout="half", batched=True).ok


def test_a_report_can_be_wrapped_narrower(diagnoses):
    diagnosis = report(diagnoses, zoo.torch_seed003, "half")
    narrow = diagnosis.format(width=76)
    assert max(len(line) for line in narrow.splitlines()) <= 76
    assert " ".join(narrow.split()) == " ".join(str(diagnosis).split())  # same words
    with pytest.raises(ValueError, match=r"^width"):
        diagnosis.format(width=20)


def test_a_partial_rotary_embedding_checked_as_a_whole_head_is_named():
    def neox_partial(x, positions):  # GPT-NeoX: rotary_pct 0.25, the rest passes through
        out = x.copy()
        out[:, :16] = zoo.numpy_rotate_half(x[:, :16], positions)
        return out

    diagnosis = diagnose_rope(neox_partial, layout="half")
    assert diagnosis.codes == ["pairing"]
    message = diagnosis.findings[0].message
    assert "only the first 16 of 64 coordinates" in message
    assert "coordinate 0 is paired with 8 (expected 32)" in message
    assert "dim=16 and layout='half'" in message
    assert "from the rotation of the whole head" in message


# ------------------------------------------------------------------------- issue 38: no contradiction


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.name}-{c.layout}")
def test_ok_only_within_the_stated_tolerance(case, diagnoses):
    diagnosis = report(diagnoses, case.fn, case.layout)
    if diagnosis.ok:
        assert diagnosis.max_error <= diagnosis.tolerance, str(diagnosis)
    elif diagnosis.codes != ["exception"] and diagnosis.codes != ["shape"]:
        assert not diagnosis.max_error <= diagnosis.tolerance, str(diagnosis)


def test_input_rounded_to_float32_is_unexplained_with_where(diagnoses):
    diagnosis = report(diagnoses, zoo.numpy_float32_input, "half")
    message = diagnosis.findings[0].message
    assert "the cause is unknown" in message
    # |R x32 - R x| / |x| = |x32 - x| / |x|: the float32 rounding of a row, below 2^-24
    first = float(re.search(r"([\d.]+e-\d+) in the first call", message)[1])
    assert 2.0**-27 < first <= 2.0**-24
    assert diagnosis.max_error == pytest.approx(first, rel=0.05)
    # the unit vectors round exactly: the matrices are within the tolerance
    assert "within it: the matrices at all 24 positions" in message
    assert "size of float32 rounding" in message
    assert "norms are kept" not in message
    # stated as float32, the same function is right to 1e-6
    as_float32 = diagnose_rope(zoo.numpy_float32_input, layout="half", dtype="float32")
    assert as_float32.ok and as_float32.tolerance == 1e-6
    assert "relative error below 1e-6" in str(as_float32)


def test_a_bfloat16_decode_cache_is_unexplained_at_the_one_token_calls(diagnoses):
    message = message_of(diagnoses, zoo.torch_bf16_decode_cache, "half")
    assert "the cause is unknown" in message
    # bfloat16 cos and sin: an error of the order of 2^-9, far above 1e-9 and below 0.03
    for position in (5, 2**20 - 1):
        quoted = re.search(rf"([\d.e-]+) in one row at position {position} \(a decode", message)
        assert quoted is not None, message
        assert 2.0**-14 < float(quoted[1]) < 0.03
    assert "within it: the first call (rows at positions 0 to 8)" in message
    assert "the matrices at all 24 positions" in message
    assert "16-bit type" in message


def test_a_one_token_gap_beside_another_cause_is_not_dropped():
    def wrong_sign_bf16_decode(x, positions):  # direction, and a bfloat16 decode path
        out = zoo.numpy_rotate_half_wrong_sign(x, positions)
        if len(x) == 1:
            out = torch.from_numpy(out).to(torch.bfloat16).double().numpy()
        return out

    diagnosis = diagnose_rope(wrong_sign_bf16_decode, layout="half")
    assert diagnosis.codes == ["direction", "unexplained"], str(diagnosis)
    message = diagnosis.findings[1].message
    assert "in one row at position 5 (a decode step), against fn's own matrix" in message


@pytest.mark.parametrize(
    ("fn", "layout"),
    [
        (zoo.torch_gptj_cos_sin_swapped, "interleaved"),
        (zoo.numpy_rotate_half_cos_sin_swapped, "half"),
    ],
)
def test_cos_and_sin_swapped_is_one_direction_finding(diagnoses, fn, layout):
    diagnosis = report(diagnoses, fn, layout)
    assert diagnosis.codes == ["direction"], str(diagnosis)
    message = diagnosis.findings[0].message
    assert "cos and sin are swapped" in message
    # x·sin + rotate(x)·cos turns plane 0 by π/2 - m·θ_0, θ_0 = 1
    assert f"plane 0 turned by {math.pi / 2:+.4f} rad at position 0" in message
    assert f"by {math.pi / 2 - 1:+.4f} at position 1 (expected +1.0000)" in message
    assert "expected [0, 1]" not in message and "pairing" not in diagnosis.codes


def test_keys_from_the_rotated_query_state_the_measured_norms(diagnoses):
    diagnosis = report(diagnoses, zoo.HF_STYLE_K_FROM_Q, "half")
    message = diagnosis.findings[0].message
    assert "norms are kept" not in message and "scores stay relative" not in message
    assert "fn mixes pairs" in message
    # the singular values of fn's matrix at the probed positions, computed here
    eye = np.eye(64)
    singular = []
    for position in [0, 1, 2, 3, 5, 8, *LADDER]:
        out = np.asarray(zoo.HF_STYLE_K_FROM_Q(eye.copy(), np.full(64, position)))
        singular.append(np.linalg.svd(out.T, compute_uv=False))
    low, high = float(np.min(singular)), float(np.max(singular))
    assert low < 0.05 and high == pytest.approx(math.sqrt(2), abs=1e-3)
    assert f"ranges from {low:.4f} to {high:.4f} over all x" in message


def test_float32_angles_stay_precision_at_the_float32_tolerance():
    # angles formed in float32 are off by m·θ_i·2^-24: far above 1e-6 at 2^20
    diagnosis = diagnose_rope(zoo.torch_fp32_angles, layout="half", dtype="float32")
    assert diagnosis.codes == ["precision"] and diagnosis.tolerance == 1e-6
    # right float32 code checked at float64's tolerance: its float32 tables are named
    diagnosis = diagnose_rope(zoo.numpy_rotate_half_float32, layout="half", tolerance=1e-9)
    assert diagnosis.codes == ["precision"], str(diagnosis)
    assert "likely float32" in diagnosis.findings[0].message
    assert "dtype='float32'" in diagnosis.findings[0].message


def test_a_stated_tolerance_is_the_verdicts():
    diagnosis = diagnose_rope(zoo.numpy_float32_input, layout="half", tolerance=1e-7)
    assert diagnosis.ok and diagnosis.tolerance == 1e-7
    assert "relative error below 1e-7" in str(diagnosis)
    diagnosis = diagnose_rope(zoo.numpy_float32_input, layout="half", tolerance=1e-8)
    assert diagnosis.codes == ["unexplained"]
    assert "more than the tolerance 1e-8" in diagnosis.findings[0].message
