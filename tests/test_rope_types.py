"""ROPE_TYPES: one record per rope type, and what the records say about each type.

Each record's claims are checked against what its frequency function does: a type whose
frequencies do not depend on the length says so, the types that read an original length
reject a config without one, and the required keys are exactly those whose absence fails.
"""

from __future__ import annotations

import numpy as np
import pytest

from ropelab.rope_config import (
    ROPE_TYPES,
    RopeType,
    frequencies_from_config,
    rope_spec_from_config,
)

DIM = 64

CONFIGS = {
    "default": {},
    "linear": {"factor": 4.0},
    "dynamic": {"factor": 4.0},
    "yarn": {"factor": 4.0, "original_max_position_embeddings": 2048},
    "longrope": {
        "factor": 4.0,
        "original_max_position_embeddings": 2048,
        "short_factor": [1.0 + i / 64 for i in range(DIM // 2)],
        "long_factor": [1.0 + i / 8 for i in range(DIM // 2)],
    },
    "llama3": {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 2048,
    },
    "proportional": {"partial_rotary_factor": 0.5, "factor": 2.0},
}


def config(rope_type: str, **changes) -> dict:
    params = {"rope_type": rope_type, "rope_theta": 10000.0, **CONFIGS[rope_type], **changes}
    params = {k: v for k, v in params.items() if v is not None}
    return {"head_dim": DIM, "max_position_embeddings": 8192, "rope_parameters": params}


def test_every_type_has_a_record_and_a_test_config():
    assert set(ROPE_TYPES) == set(CONFIGS)
    for name, record in ROPE_TYPES.items():
        assert isinstance(record, RopeType) and record.name == name and record.title


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_length_policy_matches_the_frequencies(name):
    record = ROPE_TYPES[name]
    at = {n: frequencies_from_config(config(name), seq_len=n)[0] for n in (100, 8192, 40000)}
    varies = not all(np.array_equal(at[100], a) for a in at.values())
    assert varies == record.length_dependent, name
    # the record is what frequencies_from_config evaluates
    spec_freqs = record(rope_spec_from_config(config(name)), None)[0]
    np.testing.assert_array_equal(spec_freqs, frequencies_from_config(config(name))[0])


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_required_keys_are_required(name):
    record = ROPE_TYPES[name]
    keys = list(record.required) + (["factor"] if record.factor == "required" else [])
    for key in keys:
        with pytest.raises(ValueError, match=key):
            frequencies_from_config(config(name, **{key: None}))


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_original_length_types_need_one(name):
    bare = config(name, original_max_position_embeddings=None)
    del bare["max_position_embeddings"]
    if name == "dynamic":
        with pytest.raises(ValueError, match="max_position_embeddings is required"):
            frequencies_from_config(bare)
    elif ROPE_TYPES[name].original_length:
        with pytest.raises(ValueError, match="original_max_position_embeddings"):
            frequencies_from_config(bare)
    else:
        assert frequencies_from_config(bare)[0].shape == (DIM // 2,)
