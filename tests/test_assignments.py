"""The problem sets (issue 31, assignments/): the grader passes the reference
for several ids, fails each planted wrong solution with a message naming its
mistake, the sheets differ per id, the notebooks and public tests run on the reference,
and the student bundles hold no reference answer."""

from __future__ import annotations

import csv
import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "assignments"
PLANTED = ASSIGNMENTS / "tests" / "planted"


def _import_from(folder: Path, name: str):
    """Import the module or package ``name`` from ``folder``, as a student's copy of the
    problem sets has it beside the sheet, without putting ``folder`` on ``sys.path``."""
    path = folder / name
    if path.is_dir():
        spec = importlib.util.spec_from_file_location(
            name, path / "__init__.py", submodule_search_locations=[str(path)]
        )
    else:
        spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


sheet = _import_from(ASSIGNMENTS, "sheet").sheet
grade = _import_from(ASSIGNMENTS, "grader").grade
forbidden_imports = sys.modules["grader.core"].forbidden_imports

IDS = ("S1", "s2024-017", "Zhang Wei")
PROBLEM_SETS = {
    "ps1": "ps1_derive_and_check",
    "ps2": "ps2_implement_rope",
    "ps3": "ps3_frequencies_and_extension",
}

#: planted file -> (the test that must fail, a substring of its message)
PLANTED_MESSAGES = {
    "ps1_wrong_conjugate": ("1.3", "conjugates the wrong factor"),
    "ps1_angle_sign": ("1.2", "is R((m - n) theta): the sign of the angle"),
    "ps1_degrees": ("1.6", "is in degrees"),
    "ps1_other_student": ("1.0", "STUDENT_ID in your module is 'S2'"),
    "ps2_layout_pairs": ("2.2", "pairing: fn rotates as the interleaved"),
    "ps2_angle_sign": ("2.2", "direction: fn rotates by -mθ_i"),
    "ps2_decode_off_by_one": ("2.5", "at position 7, but after a cache of 6"),
    "ps2_exponent_i_over_d": ("2.1", "uses the exponent i/d"),
    "ps2_float16_angles": ("2.2", "precision: the angles m·θ_i"),
    "ps2_keys_not_rotated": ("2.5", "appends the new key unrotated"),
    "ps2_values_rotated": ("2.5", "decode_step rotates the value"),
    "ps2_cos_sin_swapped": ("2.2", "cos and sin in each other's place"),
    "ps2_base_dim_swapped": ("2.2", "dim and base are swapped"),
    "ps2_imports_ropelab": ("", "line 10: imports ropelab.core"),
    "ps3_exponent_i_over_d": ("3.1", "The exponent is i/d"),
    "ps3_wavelength_no_two_pi": ("3.2", "wavelengths are 1/theta_i"),
    "ps3_pi_multiplies": ("3.3", "multiplies theta_i by the factor"),
    "ps3_ntk_exponent": ("3.4", "to the power (d - 2)/d"),
    "ps3_llama3_frequency_bands": ("3.5", "long wavelengths (> L / low"),
}


def student_copy(ps: str, student_id: str, folder: Path) -> Path:
    """The reference as a student hands it in: STUDENT_ID set, ANSWERS a
    dict of typed numbers (ps2 has none)."""
    source = (ASSIGNMENTS / "reference" / f"{ps}.py").read_text()
    source = source.replace("STUDENT_ID = None", f"STUDENT_ID = {student_id!r}", 1)
    module = {}
    exec(compile(source, ps, "exec"), module)
    if "ANSWERS" in module:
        numbers = module["ANSWERS"](sheet(ps, student_id))
        source += f"\n\nANSWERS = {numbers!r}\n"
    path = folder / f"{ps}_student.py"
    path.write_text(source)
    return path


def test_planted_cases_are_the_files() -> None:
    assert {p.stem for p in PLANTED.glob("*.py")} == set(PLANTED_MESSAGES)
    assert len(PLANTED_MESSAGES) >= 10


@pytest.mark.parametrize("student_id", IDS)
@pytest.mark.parametrize("ps", sorted(PROBLEM_SETS))
def test_reference_gets_full_marks(ps: str, student_id: str, tmp_path) -> None:
    result = grade(ps, student_id, student_copy(ps, student_id, tmp_path))
    assert not result.blocked
    assert result.total >= 14
    assert result.score == result.total, result.report()


@pytest.mark.parametrize("name", sorted(PLANTED_MESSAGES))
def test_planted_wrong_solution_fails_with_its_message(name: str) -> None:
    number, expected = PLANTED_MESSAGES[name]
    result = grade(name[:3], "S1", PLANTED / f"{name}.py")
    assert result.score < result.total
    if number:
        outcome = next(o for o in result.outcomes if o.check.number == number)
        assert outcome.score == 0, result.report()
        assert expected in " ".join(outcome.message.split()), result.report()
    else:
        assert result.score == 0 and expected in result.blocked
    report = result.report()
    assert max(len(line) for line in report.splitlines()[1:]) <= 79


def test_sheets_differ_between_ids_and_repeat_for_one() -> None:
    for ps in PROBLEM_SETS:
        sheets = [sheet(ps, i) for i in ("a", "b", "c", "d")]
        again = sheet(ps, "a")
        assert again.values.keys() == sheets[0].values.keys()
        assert all(np.array_equal(again.values[k], sheets[0].values[k]) for k in again.values)
        drawn = {repr(s.values) for s in sheets}
        assert len(drawn) == 4, ps
    assert sheet("ps1", "S1").dim == 16 and sheet("ps1", "S1").m == 696
    with pytest.raises(ValueError, match="student_id"):
        sheet("ps1", "  ")


def test_numbers_of_one_id_fail_another(tmp_path) -> None:
    path = student_copy("ps3", "S1", tmp_path)
    source = path.read_text().replace("STUDENT_ID = 'S1'", "STUDENT_ID = 'S9'")
    path.write_text(source)
    result = grade("ps3", "S9", path)
    failed = {o.check.number for o in result.outcomes if o.score == 0}
    assert {"3.6", "3.8"} <= failed  # S1's numbers are not S9's


def test_forbidden_import_in_any_form(tmp_path) -> None:
    path = tmp_path / "m.py"
    path.write_text(
        "import importlib\nx = importlib.import_module('ropelab.core')\n"
        "from transformers.models.llama import modeling_llama\n"
    )
    assert forbidden_imports(path) == [
        "line 2: imports ropelab.core",
        "line 3: imports transformers.models.llama",
    ]


def test_cli_prints_scores_and_appends_csv(tmp_path) -> None:
    from grader.__main__ import main

    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "ps1",
            "--student-id",
            "S1",
            "--submission",
            str(PLANTED / "ps1_degrees.py"),
        ],
        cwd=ASSIGNMENTS,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "[FAIL] 1.6 the relative angle of your plane" in run.stdout
    assert run.stdout.rstrip().endswith("score 12/14")
    scores = tmp_path / "scores.csv"
    for name in ("ps2_angle_sign", "ps2_values_rotated"):
        submission = str(PLANTED / f"{name}.py")
        assert (
            main(["ps2", "--student-id", "S1", "--submission", submission, "--csv", str(scores)])
            == 0
        )
    rows = list(csv.reader(scores.open()))
    assert rows[0][:4] == ["student_id", "ps", "score", "total"]
    assert [r[2] for r in rows[1:]] == ["7", "13"]
    assert rows[1][5:] == ["1", "2", "0", "4", "0", "0", "0"]


def test_student_bundles_hold_no_reference(tmp_path) -> None:
    from ropebook.build_assignments import build

    written = build(tmp_path)
    assert written[-1] == tmp_path / "answer-key" / "assignments"
    secrets = [
        "STUDENT_ID = None",
        "def ANSWERS",
        "np.mod((sheet.m - sheet.n)",
        "2 * np.pi / inv_freq(dim, base)",
        "rotation((n - m) * theta)",
        "from .core import",
        "CHECKS = [",
    ]
    for ps, folder in PROBLEM_SETS.items():
        bundle = tmp_path / "assignments" / f"{folder}.zip"
        with zipfile.ZipFile(bundle) as archive:
            names = sorted(archive.namelist())
            assert names == sorted(
                f"{folder}/{n}"
                for n in (
                    "README.md",
                    "conftest.py",
                    "sheet.py",
                    f"{folder}.ipynb",
                    f"{ps}_student.py",
                    f"test_public_{ps}.py",
                )
            )
            text = "\n".join(archive.read(n).decode() for n in names)
        for secret in secrets:
            assert secret not in text, (bundle.name, secret)
    key = tmp_path / "answer-key" / "assignments"
    assert (key / "reference" / "ps2.py").is_file()
    assert (key / "grader" / "ps2.py").is_file()
    assert len(list((key / "tests" / "planted").glob("*.py"))) == len(PLANTED_MESSAGES)


def test_student_notebooks_run_outside_the_repository(tmp_path) -> None:
    """Each notebook, unzipped from its bundle with the reference as the
    student's module, runs from the top, prints the sheet and the numbers
    the grader expects, and its public tests (which its last cell runs)
    pass: none skipped, none failed."""
    import re

    import nbformat
    from nbclient import NotebookClient

    from ropebook.build_assignments import build

    build(tmp_path / "kit")
    for ps, folder in PROBLEM_SETS.items():
        bundle = tmp_path / "kit" / "assignments" / f"{folder}.zip"
        zipfile.ZipFile(bundle).extractall(tmp_path)
        here = tmp_path / folder
        student_copy(ps, "S1", here)
        notebook = nbformat.read(here / f"{folder}.ipynb", as_version=4)
        client = NotebookClient(notebook, timeout=120, resources={"metadata": {"path": str(here)}})
        client.execute()
        printed = "\n".join(
            output.get("text", "") for cell in notebook.cells for output in cell.get("outputs", [])
        )
        assert f"Problem set {ps} for student 'S1'" in printed
        assert "not written yet" not in printed
        summary = re.search(r"^(\d+) passed in", printed, re.MULTILINE)
        assert summary and int(summary.group(1)) >= 8, printed[-1500:]
        if ps == "ps2":
            gap = re.search(r"largest difference (\S+)", printed).group(1)
            assert float(gap) < 1e-9
            continue
        reference = __import__(f"reference.{ps}", fromlist=["ANSWERS"])
        for key, value in reference.ANSWERS(sheet(ps, "S1")).items():
            shown = re.search(rf"^{key}: (\S+)$", printed, re.MULTILINE)
            assert shown, key
            assert float(shown.group(1)) == pytest.approx(value, rel=1e-9)
