"""The cheat sheet (``book/cheatsheet.ipynb``, issue 18): its numbers are current and right.

* run again, the notebook prints exactly what is committed (the numbers come from ropelab, and
  the site is built from the committed outputs);
* the numbers it prints agree with values computed here independently (closed forms, not
  ropelab) and with the numbers the scaling-laws paper publishes for LLaMA 2 (d_extra = 92,
  β0 = 71738 for 16K, β1–β3 = 2608, 1304, 652);
* every context-extension method of chapter 6 is in its table, with the rope type and the keys
  transformers' configuration uses.

That it prints on one page is checked in the browser (tests/browser/test_student.py, with the
other printed-page checks of the kit).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
CHEATSHEET = ROOT / "book" / "cheatsheet.ipynb"


def outputs_text(notebook: nbformat.NotebookNode) -> list[str]:
    texts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output["output_type"] == "stream":
                texts.append(output["text"])
            elif "data" in output:
                data = output["data"]
                texts.append(data.get("text/markdown") or data.get("text/plain", ""))
    return texts


@pytest.fixture(scope="module")
def committed() -> str:
    return "\n".join(outputs_text(nbformat.read(CHEATSHEET, as_version=4)))


def test_cheatsheet_outputs_are_current(monkeypatch):
    monkeypatch.setenv("ROPELAB_EXPLORE_SCRIPT", "page")
    notebook = nbformat.read(CHEATSHEET, as_version=4)
    fresh = nbformat.read(CHEATSHEET, as_version=4)
    NotebookClient(
        fresh, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    assert outputs_text(fresh) == outputs_text(notebook)


def number(text: str, pattern: str) -> list[float]:
    match = re.search(pattern, text)
    assert match, f"not printed: {pattern}"
    return [float(g.replace(",", "")) for g in match.groups()]


def test_scaling_law_numbers(committed):
    two_pi = 2 * math.pi
    d_extra = 2 * math.ceil(128 / 2 * math.log(4096 / two_pi) / math.log(10000))
    assert d_extra == 92  # the paper's LLaMA 2 value
    assert number(committed, r"d_\\text\{extra\}\$ \| (\d+) of 128") == [92]
    bounds = number(committed, r"1 000 000 \| ([\d,]+) / ([\d,]+) / ([\d,]+)")
    assert bounds == [round(two_pi * b ** (92 / 128)) for b in (1e4, 5e5, 1e6)]
    beta0 = number(committed, r"128K \| ([\d,]+) / ([\d,]+) / ([\d,]+)")
    exponent = [math.log(t / two_pi) / math.log(4096 / two_pi) for t in (16384, 32768, 131072)]
    assert beta0 == [round(10000**e) for e in exponent]
    assert beta0[0] == 71738  # the paper's value for 16K
    thresholds = number(committed, r"\\beta_3\$ \| ([\d,]+), ([\d,]+), ([\d,]+)")
    assert thresholds == [2608, 1304, 652]  # the paper's values
    base_100k = number(committed, r"Theorem 2 inverted\) \| ([\d,]+)")
    assert base_100k == [round((100_000 / two_pi) ** (128 / 92))]


def test_frequency_numbers(committed):
    rows = re.findall(
        r"^\| ([\d,]+) \| ([\d.e+-]+) \| ([\d,]+) \| (\d+) / (\d+) \|$", committed, re.M
    )
    assert [r[0] for r in rows] == ["10,000", "500,000", "1,000,000"]
    for base_text, theta, wavelength, four_k, eight_k in rows:
        base = float(base_text.replace(",", ""))
        slowest = base ** (-126 / 128)
        assert float(theta) == pytest.approx(slowest, rel=5e-3)
        assert float(wavelength.replace(",", "")) == round(2 * math.pi / slowest)
        for length, count in ((4096, four_k), (8192, eight_k)):
            planes = sum(2 * math.pi * base ** (2 * i / 128) <= length for i in range(64))
            assert int(count) == planes


def test_extension_methods_table(committed):
    rows = {
        m.group(1): m.group(0)
        for m in re.finditer(
            r"^\| (PI|NTK-aware|dynamic NTK|YaRN|Llama 3|LongRoPE) \|.*$", committed, re.M
        )
    }
    assert list(rows) == ["PI", "NTK-aware", "dynamic NTK", "YaRN", "Llama 3", "LongRoPE"]
    expected_types = {
        "PI": "linear",
        "NTK-aware": "default",
        "dynamic NTK": "dynamic",
        "YaRN": "yarn",
        "Llama 3": "llama3",
        "LongRoPE": "longrope",
    }
    for method, rope_type in expected_types.items():
        assert f"`{rope_type}`:" in rows[method]
    for key in ("beta_fast", "beta_slow", "original_max_position_embeddings"):
        assert f"`{key}`" in rows["YaRN"]
    assert "**`low_freq_factor`**" in rows["Llama 3"] and "**`short_factor`**" in rows["LongRoPE"]
    ntk_base = round(10000 * 4 ** (128 / 126))
    assert f"`rope_theta` {ntk_base:,}" in rows["NTK-aware"]
    # The slowest plane: interpolated by s = 4 for PI (and the others that divide it by s).
    plain = 2 * math.pi * 10000 ** (126 / 128)
    assert f"| {round(4 * plain):,} |" in rows["PI"]
    assert rows["YaRN"].endswith(f"| {0.1 * math.log(4) + 1:.4f} |")
    assert rows["LongRoPE"].endswith(f"| {math.sqrt(1 + math.log(4) / math.log(4096)):.4f} |")


def test_precision_pitfall(committed):
    # bfloat16 keeps 8 significant bits: between 8192 and 16384 its step is 64.
    assert number(committed, r"15,962 as ([\d,]+)") == [64 * round(15962 / 64)]
    assert number(committed, r"past ([\d,]+)\.") == [65504]
