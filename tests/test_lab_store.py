"""ropelab.lab.store: compact models round-trip to their float16 weights, and the loader refuses
a file whose hash differs from the one the results record."""

from __future__ import annotations

import hashlib

import pytest
import torch

from ropelab.lab.corpus import VOCAB
from ropelab.lab.model import LMConfig, RopeLM
from ropelab.lab.store import compact_state, load_compact, save_compact, sha256_file, shipped_models


@pytest.fixture(autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def model(seed=0, **kwargs):
    torch.manual_seed(seed)
    return RopeLM(LMConfig(n_layer=2, n_head=2, head_dim=32, **kwargs))


def results_for(name, entry):
    return {"models": [{"name": name, "compact": entry}, {"name": "other", "compact": None}]}


def test_compact_round_trip(tmp_path):
    original = model(base=1e6, keep_planes=5)
    folder = tmp_path / "models"
    entry = save_compact(original, folder / "ft.pt")
    path = folder / "ft.pt"
    assert entry["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest() == sha256_file(path)
    assert entry["bytes"] == path.stat().st_size and entry["params"] == original.num_params()
    # float16 weights, the tied head once: about 2 bytes a parameter
    assert 2 * original.num_params() < entry["bytes"] < 2 * original.num_params() + 40_000
    loaded = load_compact("ft", results_for("ft", entry), results_dir=tmp_path)
    assert loaded.config.to_dict() == original.config.to_dict()  # base and kept planes too
    assert loaded.lm_head.weight is loaded.tok_emb.weight
    for key, value in original.state_dict().items():
        torch.testing.assert_close(loaded.state_dict()[key], value.half().float(), rtol=0, atol=0)
    idx = torch.randint(0, len(VOCAB), (1, 64), generator=torch.Generator().manual_seed(0))
    a, _ = original(idx)
    b, _ = loaded(idx)
    assert (a - b).abs().max() < 2e-3  # float16 rounding of the weights only
    assert "lm_head.weight" not in compact_state(original)
    assert all(v.dtype == torch.float16 for v in compact_state(original).values())


def test_baseline_models_round_trip(tmp_path):
    original = model(position="alibi")
    entry = save_compact(original, tmp_path / "models" / "alibi.pt")
    loaded = load_compact("alibi", results_for("alibi", entry), results_dir=tmp_path)
    assert loaded.config.position == "alibi"


def test_the_loader_refuses_another_file(tmp_path):
    entry = save_compact(model(), tmp_path / "models" / "m.pt")
    results = results_for("m", entry)
    assert shipped_models(results) == ["m"]
    save_compact(model(seed=1), tmp_path / "models" / "m.pt")  # other weights, same name
    with pytest.raises(ValueError, match="SHA-256"):
        load_compact("m", results, results_dir=tmp_path)
    with pytest.raises(ValueError, match="shipped models"):
        load_compact("other", results, results_dir=tmp_path)
    (tmp_path / "models" / "m.pt").unlink()
    with pytest.raises(FileNotFoundError):
        load_compact("m", results, results_dir=tmp_path)
