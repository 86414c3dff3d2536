"""ropelab.frequency_usage: per-plane norms, checked against hypot on the pairs written out here
and, for a seeded random RopeLM, against norms recomputed from the unrotated projections
captured with forward hooks (the rotation keeps every plane's norm)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ropelab import apply_rope, inv_freq
from ropelab.frequency_usage import plane_norms, plane_share, qk_plane_norms
from ropelab.lab.model import LMConfig, RopeLM


def test_plane_norms_pair_the_coordinates_of_each_layout():
    x = np.arange(1.0, 9.0)  # (1..8)
    half = plane_norms(x, "half")  # planes (0,4), (1,5), (2,6), (3,7)
    inter = plane_norms(x, "interleaved")  # planes (0,1), (2,3), ...
    np.testing.assert_allclose(
        half, [np.hypot(1, 5), np.hypot(2, 6), np.hypot(3, 7), np.hypot(4, 8)]
    )
    np.testing.assert_allclose(
        inter, [np.hypot(1, 2), np.hypot(3, 4), np.hypot(5, 6), np.hypot(7, 8)]
    )


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_rotation_keeps_every_plane_norm(layout):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((50, 16))
    rotated = apply_rope(x, np.arange(50) * 37.0, base=500.0, layout=layout)
    np.testing.assert_allclose(plane_norms(rotated, layout), plane_norms(x, layout), atol=1e-12)
    assert not np.allclose(rotated, x)


def test_plane_share_rows_sum_to_one():
    share = plane_share([[3.0, 4.0], [1.0, 0.0]])
    np.testing.assert_allclose(share, [[9 / 25, 16 / 25], [1.0, 0.0]])
    with pytest.raises(ValueError, match="all zero"):
        plane_share([0.0, 0.0])


def _model(seed: int = 0, **kwargs) -> RopeLM:
    torch.manual_seed(seed)
    return RopeLM(LMConfig(n_layer=2, n_head=2, head_dim=16, **kwargs))


def _unrotated_projections(
    model: RopeLM, idx: torch.Tensor
) -> list[tuple[torch.Tensor, torch.Tensor]]:
    captured: list[torch.Tensor] = []
    hooks = [
        block.attn.register_forward_pre_hook(lambda _m, args: captured.append(args[0]))
        for block in model.blocks
    ]
    try:
        with torch.no_grad():
            model(idx)
    finally:
        for hook in hooks:
            hook.remove()
    out = []
    for block, x in zip(model.blocks, captured, strict=True):
        B, T, _ = x.shape
        with torch.no_grad():
            q = block.attn.q_proj(x).view(B, T, 2, 16)  # (B, T, H, hd), not rotated
            k = block.attn.k_proj(x).view(B, T, 2, 16)
        out.append((q, k))
    return out


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_qk_plane_norms_equal_norms_of_the_unrotated_projections(layout):
    model = _model(layout=layout)
    idx = torch.randint(
        0, model.config.vocab_size, (3, 40), generator=torch.Generator().manual_seed(1)
    )
    result = qk_plane_norms(model, idx)
    assert result.q.shape == result.k.shape == (2, 2, 8)
    for layer, (q, k) in enumerate(_unrotated_projections(model, idx)):
        q = q.double().numpy()
        k = k.double().numpy()
        if layout == "half":
            q_norm = np.hypot(q[..., :8], q[..., 8:])
            k_norm = np.hypot(k[..., :8], k[..., 8:])
        else:
            q_norm = np.hypot(q[..., 0::2], q[..., 1::2])
            k_norm = np.hypot(k[..., 0::2], k[..., 1::2])
        np.testing.assert_allclose(result.q[layer], q_norm.mean(axis=(0, 1)), rtol=1e-5)
        np.testing.assert_allclose(result.k[layer], k_norm.mean(axis=(0, 1)), rtol=1e-5)
    np.testing.assert_allclose(result.theta, inv_freq(16, 10000.0))
    assert model.training  # restored


def test_removed_planes_have_norm_zero():
    model = _model(keep_planes=3)
    idx = torch.randint(
        0, model.config.vocab_size, (1, 12), generator=torch.Generator().manual_seed(2)
    )
    result = qk_plane_norms(model, idx)
    assert np.all(result.q[..., 3:] == 0) and np.all(result.k[..., 3:] == 0)
    assert np.all(result.q[..., :3] > 0)


def test_bad_inputs():
    with pytest.raises(ValueError, match="model must be"):
        qk_plane_norms(torch.nn.Linear(2, 2), torch.zeros(1, 2, dtype=torch.long))
    with pytest.raises(ValueError, match="idx must be"):
        qk_plane_norms(_model(), torch.zeros(4, dtype=torch.long))
    with pytest.raises(ValueError, match="last axis of x"):
        plane_norms(np.ones(5))
    with pytest.raises(ValueError, match="layout"):
        plane_norms(np.ones(4), "quarter")
