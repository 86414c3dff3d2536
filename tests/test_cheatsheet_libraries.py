"""The cheat sheet's statements about transformers (issue 22) are what the pinned library does:
the committed page shows the required keys, the bfloat16 cast and the config-key map exactly
as ``ropelab.hf_behaviour`` measures them now."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("transformers")

from ropelab import extension, hf_behaviour

CHEATSHEET = Path(__file__).resolve().parents[1] / "book" / "cheatsheet.ipynb"


@pytest.fixture(scope="module")
def committed() -> str:
    texts = []
    for cell in nbformat.read(CHEATSHEET, as_version=4).cells:
        for output in cell.get("outputs", []):
            if output["output_type"] == "stream":
                texts.append(output["text"])
            elif "data" in output:
                texts.append(output["data"].get("text/markdown", ""))
    return "\n".join(texts)


def test_required_keys_are_bold(committed):
    for method in extension.METHODS:
        config, _ = extension.method_config(method, 128, 10000.0, 4096, 16384)
        params = config["rope_parameters"]
        row = re.search(rf"^\| {re.escape(method)} \|.*$", committed, re.M).group(0)
        required = hf_behaviour.required_keys(params, 16384)
        for key in params:
            if key in ("rope_type", "rope_theta"):
                continue
            marked = f"**`{key}`**" in row
            assert marked == (key in required), (method, key)
    assert "**`factor`**" in re.search(r"^\| YaRN \|.*$", committed, re.M).group(0)


def test_bfloat16_cast_line(committed):
    cast = hf_behaviour.cast_cos_errors([1000], base=500000.0, how="to").cos_error[0]
    assert f"cos off by {cast:.2f} at 1,000" in committed
    assert cast > 1.0


def test_config_key_map(committed):
    for key, found in hf_behaviour.config_key_map().items():
        assert f"| `{key}` |" in committed and found in committed, key


def test_factor_is_not_the_ratio_for_dynamic_and_llama3(committed):
    assert "extension ratio only for PI and YaRN" in committed
    assert "LongRoPE has no bands" in committed
