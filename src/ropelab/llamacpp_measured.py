r"""What llama.cpp did with chapter 8A's tiny models: the measured record, read back.

``tools/llamacpp_measure.py`` builds tiny seeded models in transformers, converts them with
the ``convert_hf_to_gguf.py`` of llama.cpp release v0.4.0 (the release npm's
``node-llama-cpp`` 3.21.1 ships, prebuilt for the CPU, with its source), runs them in
llama.cpp and stores what it saw in ``ropelab/measured/llamacpp.json`` (package data, so
Colab and Binder read it without llama.cpp). ``tests/test_llamacpp.py`` runs the same
measurement on every ``make test`` and compares it with this record.

One rule is restated here and checked against the record: how interleaved M-RoPE (Qwen3-VL,
Qwen3.5) gives each plane an axis. transformers (``apply_interleaved_mrope`` in
``models/qwen3_vl/modeling_qwen3_vl.py``, 5.23.0) starts from the time axis on every plane
and gives plane :math:`j` to the height axis when :math:`j \equiv 1 \pmod 3` and
:math:`j < 3 s_h`, to the width axis when :math:`j \equiv 2 \pmod 3` and :math:`j < 3 s_w`.
llama.cpp (``ggml_mrope_cache_init`` in ``ggml/src/ggml-cpu/ops.cpp`` of v0.4.0) gives plane
:math:`j` to time only when :math:`j \equiv 0 \pmod 3` and :math:`j < 3 s_t`, and every plane
no axis claims to a fourth position, which is 0 for text tokens
(``src/llama-graph.cpp``): such a plane never turns. Explained in chapter 8A.
"""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

from ._checks import check_count

__all__ = [
    "imrope_axes_llamacpp",
    "imrope_axes_transformers",
    "llamacpp_record",
    "unrotated_text_planes",
]

AXES = ("time", "height", "width")


def llamacpp_record() -> dict[str, Any]:
    """The committed record of the llama.cpp runs (``ropelab/measured/llamacpp.json``)."""
    return json.loads(files("ropelab").joinpath("measured/llamacpp.json").read_text())


def _check_sections(sections: list[int], planes: int) -> None:
    if len(sections) != 3:
        raise ValueError(f"sections must list 3 counts (time, height, width), got {sections}")
    for count in sections:
        check_count(count, "sections entry", minimum=0)
    check_count(planes, "planes", minimum=1)
    if sum(sections) > planes:
        raise ValueError(f"sections must add up to at most planes={planes}, got {sum(sections)}")


def _imrope_axes(sections: list[int], planes: int, time_claims_the_rest: bool) -> list[str]:
    """Height on planes j = 1 (mod 3) below 3 s_h, width on j = 2 (mod 3) below 3 s_w; the
    rest to time (transformers), or to time only on j = 0 (mod 3) below 3 s_t and to the
    fourth position otherwise (llama.cpp)."""
    _check_sections(sections, planes)
    axes = []
    for j in range(planes):
        if j % 3 == 1 and j < 3 * sections[1]:
            axes.append("height")
        elif j % 3 == 2 and j < 3 * sections[2]:
            axes.append("width")
        elif time_claims_the_rest or (j % 3 == 0 and j < 3 * sections[0]):
            axes.append("time")
        else:
            axes.append("fourth")
    return axes


def imrope_axes_transformers(sections: list[int], planes: int) -> list[str]:
    """The axis that turns each plane in transformers' interleaved M-RoPE."""
    return _imrope_axes(sections, planes, time_claims_the_rest=True)


def imrope_axes_llamacpp(sections: list[int], planes: int) -> list[str]:
    """The axis that turns each plane in llama.cpp's interleaved M-RoPE (``"fourth"``: the
    fourth position, 0 for a text token)."""
    return _imrope_axes(sections, planes, time_claims_the_rest=False)


def unrotated_text_planes(sections: list[int], planes: int) -> list[int]:
    """Planes that turn with the token's position in transformers but never turn for a text
    token in llama.cpp (interleaved M-RoPE)."""
    ours = imrope_axes_transformers(sections, planes)
    theirs = imrope_axes_llamacpp(sections, planes)
    return [j for j in range(planes) if theirs[j] == "fourth" and ours[j] != "fourth"]
