"""ropelab.remapping (chapter 10): the relative position each training-free remapping gives a
score, checked against the sources' own numbers and against rotated queries and keys."""

from __future__ import annotations

import numpy as np
import pytest

from ropelab import remapping as remap
from ropelab.core import inv_freq, rotation_matrix

SMALL = {"window": 5, "group": 3, "chunk_size": 9, "local_size": 2, "shift": 6, "local": 2}


@pytest.mark.parametrize("method", remap.METHODS)
@pytest.mark.parametrize("params", [SMALL, {**SMALL, "local_size": 0, "group": 1}])
def test_closed_form_maximum_is_the_maximum_of_the_map(method, params):
    for length in range(1, 45):
        m, n = np.tril_indices(length)
        values = remap.relative_positions(method, m, n, **params)
        assert values.min() >= 0
        assert values.max() == remap.max_relative(method, length, **params), length


def test_maps_by_definition():
    m, n = np.tril_indices(30)
    d = m - n
    np.testing.assert_array_equal(remap.rope_relative(m, n), d)
    np.testing.assert_array_equal(remap.rerope_relative(m, n, 4), np.minimum(d, 4))
    expected = [
        dist if dist < 6 else mm // 4 - nn // 4 + 6 - 6 // 4
        for mm, nn, dist in zip(m, n, d, strict=True)
    ]
    np.testing.assert_array_equal(remap.self_extend_relative(m, n, 4, 6), expected)
    expected = [dist if dist < 7 else dist - 7 + 3 for dist in d]
    np.testing.assert_array_equal(remap.string_relative(m, n, 7, 3), expected)


def _dca_tables(chunk_size: int, local_size: int, length: int) -> dict[str, np.ndarray]:
    """DCA's position tables built the way vLLM's DualChunkRotaryEmbedding builds its cos/sin
    caches (commit 07b13497): keys at arange % c, the intra, successive and inter queries."""
    c = chunk_size - local_size
    return {
        "k": np.arange(length) % c,
        "q": np.arange(c),
        "qc": np.minimum(np.arange(c) + c, chunk_size),
    }


def test_dca_against_rotated_queries_and_keys():
    """The score of a query rotated to DCA's query position and a key rotated to its key
    position is RoPE's score at the map's relative position (chapter 1's identity)."""
    chunk_size, local_size, length, dim = 12, 4, 40, 8
    tables = _dca_tables(chunk_size, local_size, length)
    c = chunk_size - local_size
    theta = inv_freq(dim, 10000.0)
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal(dim), rng.standard_normal(dim)
    for m in range(length):
        for n in range(m + 1):
            apart = m // c - n // c
            if apart == 0:
                qpos = tables["q"][m % c]
            elif apart == 1:
                qpos = tables["qc"][m % c]
            else:
                qpos = tables["qc"][c - 1]
            kpos = tables["k"][n]
            score = (rotation_matrix(qpos, dim, inv_freq=theta) @ q) @ (
                rotation_matrix(kpos, dim, inv_freq=theta) @ k
            )
            r = remap.dca_relative(m, n, chunk_size, local_size)
            relative = (rotation_matrix(r, dim, inv_freq=theta) @ q) @ k
            assert abs(score - relative) < 1e-12


def test_self_extend_readme_numbers():
    """datamllab/LongLM README: (4096 - 1024) * 5 + 1024 = 16,384; for 15,800 tokens with a
    neighbour window of 1,024, group 5 uses positions up to 3,979 and group 8 up to 2,871."""
    assert remap.self_extend_max_length(4096, 5, 1024) == 16384
    assert remap.max_relative("Self-Extend", 15800, group=5, window=1024) == 3979
    # 2,871 is floor(L/G + w - w/G) with the length L = 15,800; the largest position
    # is L - 1, which gives 2,870 (chapter 10)
    assert remap.self_extend_relative(15800, 0, 8, 1024) == 2871
    assert 15800 // 8 + 1024 - 1024 // 8 == 2871
    assert remap.max_relative("Self-Extend", 15800, group=8, window=1024) == 2870
    # the README's bound is four tokens generous for positions counted from 0
    assert remap.max_relative("Self-Extend", 16380, group=5, window=1024) == 4095
    assert remap.max_relative("Self-Extend", 16381, group=5, window=1024) == 4096


def test_rerope_readme_window():
    """bojone/rerope README: ReRoPE-w1024 evaluated at 16k: no distance beyond 1,024."""
    assert remap.max_relative("ReRoPE", 16 * 1024, window=1024) == 1024


def test_qwen25_1m_dca_config():
    """Qwen2.5-1M's dual_chunk_attention_config (chunk_size 262144, local_size 8192,
    original_max_position_embeddings 262144) on the 1,010,000 tokens of its vLLM
    instructions: relative positions stop at the chunk size, and 2^20 tokens span about 4.13
    chunks of 253,952 (chunk_size minus local_size)."""
    config = {"chunk_size": 262144, "local_size": 8192}
    assert remap.max_relative("DCA", 1010000, **config) == 262144
    assert remap.dca_relative(1009999, 0, **config) == 262144
    chunk = config["chunk_size"] - config["local_size"]
    assert chunk == 253952
    assert round(2**20 / chunk, 2) == 4.13


def test_string_readme_numbers():
    """HKUNLP/STRING README: shifted_offset = 0.33 * 131072 = 43253, local value 128."""
    shift = int(0.33 * 131072)
    assert shift == 43253
    top = remap.max_relative("STRING", 131072, shift=shift, local=128)
    assert top == 131071 - 43253 + 128 == 87946


def test_remapping_data():
    data = remap.remapping_data("DCA", 16384, 4096, 1024, 5)
    assert data["relative"].shape == (40, 40)
    assert (data["relative"][np.triu_indices(40, 1)] == -1).all()
    assert data["keys"][0] == 0 and data["keys"][-1] == 16383
    np.testing.assert_array_equal(
        data["row"], remap.dca_relative(np.full(161, 16383), data["keys"], 4096, 1024)
    )
    assert data["max_relative"] == 4096 and data["within"] is False
    short = remap.remapping_data("ReRoPE", 3000, 4096, 1024, 5)
    assert short["max_relative"] == 1024 and short["within"] is True
    clamped = remap.remapping_data("Self-Extend", 5000, 1024, 4096, 2)
    assert clamped["window"] == 1023


def test_bad_inputs():
    with pytest.raises(ValueError, match="0 <= n <= m"):
        remap.rope_relative(3, 4)
    with pytest.raises(ValueError, match="integer"):
        remap.rope_relative(3.5, 1)
    with pytest.raises(ValueError, match="local_size"):
        remap.dca_relative(5, 1, 8, 8)
    with pytest.raises(ValueError, match="window must be below"):
        remap.self_extend_max_length(4096, 4, 4096)
    with pytest.raises(ValueError, match="method"):
        remap.max_relative("YaRN", 100)
    with pytest.raises(ValueError, match="local"):
        remap.string_relative(10, 1, 3, 5)
