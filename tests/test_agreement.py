"""ropelab.agreement: the printed verdicts that replace raw rounding-level differences."""

import math

import numpy as np
import pytest

from ropelab.agreement import agreement, largest_difference, significant, tolerance_text, within


def test_rounding_noise_of_any_size_below_the_tolerance_prints_the_same_line():
    # The same verdict for 0, 1.1e-16 and 1.1e-10: what two CPUs printed for one cell.
    lines = {agreement([1.0, 2.0], [1.0, 2.0 + noise], tol=1e-9) for noise in (0, 1.1e-16, 1.1e-10)}
    assert lines == {"agree to 1e-9"}


def test_a_real_difference_is_named_with_its_size():
    assert agreement([0.0, 1.0], [0.0, 1.5], tol=1e-12) == (
        "DIFFER: largest difference 0.5, above the tolerance 1e-12"
    )
    assert agreement([math.nan], [0.0], tol=1.0).startswith("DIFFER: largest difference nan")


def test_tolerances_print_as_a_reader_writes_them():
    assert [tolerance_text(t) for t in (1e-12, 1e-9, 1e-6, 2.5e-5, 0.001, 0.5, 1e20)] == [
        "1e-12",
        "1e-9",
        "1e-6",
        "2.5e-5",
        "0.001",
        "0.5",
        "1e20",
    ]


def test_within():
    assert within(0.0, 1e-12) == "below 1e-12"
    assert within(-1e-13, 1e-12) == "below 1e-12"
    assert within(1e-12, 1e-12) == "below 1e-12"
    assert within(3.14e-5, 1e-12) == "3.1e-05, ABOVE the tolerance 1e-12"
    assert within(math.inf, 1e-3) == "inf, ABOVE the tolerance 0.001"


def test_largest_difference_against_numpy():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 5, 7))
    assert largest_difference(a, b) == np.max(np.abs(a - b))
    assert largest_difference(a, a[0]) == np.max(np.abs(a - a[0]))  # broadcast
    assert math.isnan(largest_difference([1.0, math.nan], [1.0, 2.0]))


def test_torch_tensors_are_read_in_float64():
    torch = pytest.importorskip("torch")
    a = torch.tensor([1.0, 2.0], dtype=torch.bfloat16)
    assert largest_difference(a, [1.0, 2.5]) == 0.5


def test_significant():
    assert significant(1.4978) == "1.5"
    assert significant(0.0812) == "0.081"
    assert significant(2.0) == "2.0"
    assert significant(12345.0) == "1.2e+04"
    assert significant(3.5e-8) == "3.5e-08"
    assert significant(0.0) == "0"
    assert significant(-0.00123, 3) == "-0.00123"
    assert significant(math.nan) == "nan"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: tolerance_text(0.0), "tol must be > 0"),
        (lambda: tolerance_text(math.nan), "tol must be a finite real number"),
        (lambda: within(1.0, -1.0), "tol must be > 0"),
        (lambda: significant(1.0, 0), "digits must be an integer >= 1"),
        (lambda: largest_difference([1.0, 2.0], [1.0, 2.0, 3.0]), "a and b must have shapes"),
        (lambda: largest_difference([], []), "at least one number"),
    ],
)
def test_bad_input_is_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()
