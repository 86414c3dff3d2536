r"""Video positions (chapter 10): Qwen2.5-VL's absolute-time ids and VideoRoPE's layout.

* **Qwen2.5-VL** (Bai et al., 2025, arXiv:2502.13923) ties the temporal id of a video's
  frame groups to time: group *t* gets :math:`\lfloor t \cdot \Delta \cdot \nu\rfloor`, with
  :math:`\Delta` the seconds one temporal patch covers (``second_per_grid_ts``: the temporal
  patch size over the sampling rate) and :math:`\nu` the config's ``tokens_per_second``
  (transformers 5.23, ``Qwen2_5_VLModel.get_vision_position_ids`` and ``get_rope_index``:
  ``(arange(T) * tokens_per_second * second_per_grid).long()``). Qwen2-VL's M-RoPE gave
  group *t* the id *t* (:func:`temporal_ids`).
* **VideoRoPE** (Wei et al., 2025, arXiv:2502.05173) gives the temporal axis the
  lowest-frequency planes ("low-frequency temporal allocation"), lays the spatial ids of a
  frame around its temporal id ("diagonal layout") and scales the temporal step by a
  factor :math:`\delta` ("adjustable temporal spacing") (:func:`videorope_axes`).
"""

from __future__ import annotations

import numpy as np

from ._checks import check_count, check_positive

__all__ = ["temporal_ids", "videorope_axes"]


def temporal_ids(
    groups: int, seconds_per_group: float | None = None, tokens_per_second: float = 1.0
) -> np.ndarray:
    """Temporal ids of ``groups`` frame groups: ``0, 1, 2, ...`` (Qwen2-VL, ``None``) or
    ``floor(t * seconds_per_group * tokens_per_second)`` (Qwen2.5-VL)."""
    groups = check_count(groups, "groups")
    t = np.arange(groups)
    if seconds_per_group is None:
        return t
    interval = check_positive(seconds_per_group, "seconds_per_group") * check_positive(
        tokens_per_second, "tokens_per_second"
    )
    return np.floor(t * interval + 1e-9).astype(np.int64)


def videorope_axes(planes: int, temporal_planes: int) -> np.ndarray:
    """The axis of every plane under VideoRoPE's allocation: the last ``temporal_planes``
    (lowest frequencies) follow time (0); the others alternate height (1) and width (2)."""
    planes = check_count(planes, "planes")
    temporal_planes = check_count(temporal_planes, "temporal_planes", minimum=0)
    if temporal_planes > planes:
        raise ValueError(f"temporal_planes must be in [0, {planes}]; got {temporal_planes}")
    spatial = planes - temporal_planes
    axes = np.array([1 + (i % 2) for i in range(spatial)] + [0] * temporal_planes)
    return axes.astype(np.int64)
