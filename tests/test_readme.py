"""The README's Python example runs and says what it claims."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert blocks, "the README has a Python example"
    namespace: dict = {}
    exec(compile(blocks[0], str(README), "exec"), namespace)
    assert namespace["q_rot"].shape == (8, 64)
    np.testing.assert_allclose(
        np.linalg.norm(namespace["q_rot"], axis=-1), np.linalg.norm(namespace["q"], axis=-1)
    )
    assert namespace["inv_freq"].shape == (64,)


def test_readme_starts_with_the_two_commands():
    lines = [line for line in README.read_text().splitlines() if line.startswith("make ")]
    assert [line.split()[1] for line in lines[:2]] == ["book", "test"]
