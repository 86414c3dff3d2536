"""Public tests of problem set 3: run ``python -m pytest`` in this folder.

Cases you can check by hand; the grader compares your functions with
transformers' rope types and your numbers with your sheet's."""

import math

import numpy as np
import ps3_student as student
import pytest


def test_student_id_is_set():
    assert student.STUDENT_ID.strip(), "write your id in STUDENT_ID"


def test_inv_freq_by_hand():
    np.testing.assert_allclose(student.inv_freq(4, 10000.0), [1.0, 0.01])


def test_first_plane_turns_once_in_two_pi_positions():
    lengths = np.asarray(student.wavelengths(4, 10000.0))
    assert lengths[0] == pytest.approx(2 * math.pi)
    assert np.all(np.diff(lengths) > 0), "wavelengths grow with i"


def test_pi_by_hand():
    np.testing.assert_allclose(student.pi_inv_freq(4, 100.0, 2.0), [0.5, 0.05])


def test_ntk_factor_one_keeps_the_base():
    assert student.ntk_base(10000.0, 64, 1.0) == pytest.approx(10000.0)


def test_llama3_factor_one_changes_nothing():
    got = student.llama3_inv_freq(64, 500000.0, 1.0, 1.0, 4.0, 8192)
    np.testing.assert_allclose(got, student.inv_freq(64, 500000.0))


@pytest.mark.parametrize(
    "key",
    ["longest_wavelength", "planes_full_turn", "ntk_base", "llama3_kept"],
)
def test_answers_are_numbers(key):
    value = student.ANSWERS[key]
    assert isinstance(value, int | float), f"fill in ANSWERS[{key!r}]"
