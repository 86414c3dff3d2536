"""Tests of ropelab.lab: corpus, model, training/resume, evaluation metrics, the quick pipeline."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from ropelab import scaling
from ropelab.lab import corpus as lab_corpus
from ropelab.lab import train as lab_train
from ropelab.lab.corpus import VOCAB, CorpusConfig, decode, encode, generate_text, load_corpus
from ropelab.lab.evaluate import (
    bin_curve,
    evaluate,
    last_centre_length,
    supported_length,
    window_starts,
)
from ropelab.lab.experiment import (
    PLANS,
    base_label,
    checkpoint_paths,
    extra_plan,
    full_plan,
    large_plan,
    predicted,
    quick_plan,
    run_plan,
    stage_names,
    stage_runs,
)
from ropelab.lab.model import LMConfig, RopeLM, plane_of_coordinate
from ropelab.lab.results import load_results, model_record
from ropelab.lab.store import load_compact
from ropelab.lab.train import TrainConfig, get_batch, load_checkpoint, lr_at, train
from ropelab.windows import alibi_bias

ROOT = Path(__file__).resolve().parents[1]
N_HASH = 100_000

# The corpus is frozen: every number in lab/results depends on this exact text. Update this hash
# only together with a new full run of the experiment (results.json records corpus_sha256).
FIRST_100K_SHA256 = "3c8dfd607a9150c7e6b9432e7bbe77dbca15cae1aad20330ba05f685d518a12b"


@pytest.fixture(autouse=True)
def one_thread():
    """One torch thread: bitwise-equal runs in and out of process, and no OpenMP stalls when
    another process shares the cores (these tiny models gain nothing from two)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def small_model(seed: int = 0, **kwargs) -> RopeLM:
    torch.manual_seed(seed)
    return RopeLM(LMConfig(n_layer=2, n_head=2, head_dim=32, **kwargs))


@pytest.fixture(scope="module")
def small_corpus():
    return load_corpus(CorpusConfig(train_chars=60_000, val_chars=20_000, seed=0))


# --------------------------------------------------------------------------------------
# corpus
# --------------------------------------------------------------------------------------


def test_corpus_is_deterministic_across_calls_and_processes():
    text, _ = generate_text(N_HASH)
    first = lab_corpus.text_hash(text[:N_HASH])
    again, _ = generate_text(N_HASH)
    assert lab_corpus.text_hash(again[:N_HASH]) == first
    code = (
        "from ropelab.lab.corpus import generate_text, text_hash; "
        f"print(text_hash(generate_text({N_HASH})[0][:{N_HASH}]))"
    )
    env = dict(os.environ, PYTHONHASHSEED="12345")  # str hashing must not matter
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == first
    assert first == FIRST_100K_SHA256


def test_corpus_prefix_is_stable_and_seed_matters():
    short, _ = generate_text(20_000)
    long, _ = generate_text(80_000)
    assert long.startswith(short)  # asking for more only appends documents
    other, _ = generate_text(20_000, seed=1)
    assert other[:2000] != short[:2000]


def test_vocab_encode_decode():
    assert len(set(VOCAB)) == len(VOCAB)
    text, _ = generate_text(50_000)
    assert set(text) <= set(VOCAB)
    tokens = encode(text)
    assert tokens.dtype == np.uint8 and tokens.max() < len(VOCAB)
    assert decode(tokens) == text
    with pytest.raises(ValueError, match="outside VOCAB"):
        encode("a#b")


def test_split_at_document_boundaries(small_corpus):
    train_text, val_text = decode(small_corpus.train), decode(small_corpus.val)
    assert len(train_text) >= 60_000 and len(val_text) >= 20_000
    assert train_text.startswith("== ") and val_text.startswith("== ")
    assert train_text.endswith(".\n\n") and val_text.endswith(".\n\n")
    full, _ = generate_text(len(train_text) + len(val_text))
    assert full[: len(train_text) + len(val_text)] == train_text + val_text
    with pytest.raises(ValueError, match="train_chars"):
        load_corpus(CorpusConfig(train_chars=0))


def _documents(text: str) -> list[str]:
    return [d for d in re.split(r"(?=^== )", text, flags=re.M) if d.strip()]


def test_corpus_structure_short_and_long_range():
    text, starts = generate_text(200_000)
    docs = _documents(text)
    assert len(docs) == len(starts)
    gaps = []
    for doc in docs:
        title = re.match(r"== The (\w+) of (\w+) ==\n", doc)
        assert title, doc[:80]
        # the closing line repeats the title (the longest-range dependency)
        assert doc.rstrip().endswith(f"That was the {title.group(1).lower()} of {title.group(2)}.")
        assert doc.count('"') % 2 == 0  # quotes close
        depth = 0
        for ch in doc:
            depth += (ch == "(") - (ch == ")")
            assert depth in (0, 1)
        assert depth == 0  # brackets close, never nested
        cast = re.findall(r"(\w+) was an? (\w+) from (\w+), and (he|she) was", doc.split("\n\n")[1])
        assert 2 <= len(cast) <= 4
        for name, job, town, _ in cast:
            # later mentions repeat the facts of the introduction
            assert set(re.findall(rf"\b{name} the (\w+)", doc)) <= {job}
            assert set(re.findall(rf"\b{name} of (\w+)", doc)) <= {town}
            assert set(re.findall(rf"\b{name} went home to (\w+)", doc)) <= {town}
            pos = [m.start() for m in re.finditer(rf"\b{name}\b", doc)]
            gaps += np.diff(pos).tolist()
        days = re.findall(r"On the (\w+) day", doc)
        assert days == list(lab_corpus._ORDINALS[: len(days)])
        for m in re.finditer(r"\b(\w+) (dog|dogs) (runs|run)\b", doc):  # agreement
            assert (m.group(2) == "dogs") == (m.group(3) == "run")
    gaps = np.array(gaps)
    # names recur at long range: many repeats lie beyond a 128-token training window
    assert (gaps > 128).mean() > 0.25
    assert (gaps > 256).mean() > 0.05


# --------------------------------------------------------------------------------------
# model
# --------------------------------------------------------------------------------------


def test_model_shapes_and_initial_loss():
    model = small_model()
    g = torch.Generator().manual_seed(0)
    idx = torch.randint(0, len(VOCAB), (3, 40), generator=g)
    targets = torch.randint(0, len(VOCAB), (3, 40), generator=g)
    logits, loss, qks = model(idx, targets, return_qk=True)
    assert logits.shape == (3, 40, len(VOCAB))
    assert len(qks) == 2 and all(q.shape == k.shape == (3, 2, 40, 32) for q, k in qks)
    # a fresh model (weights ~ N(0, 0.02)) predicts nearly uniformly: loss ≈ ln V for random
    # targets (the tied head slightly favours the input token, logit ≈ 0.02·sqrt(64)·8)
    assert abs(loss.item() - math.log(len(VOCAB))) < 0.1
    _, per_token = model(idx, targets, reduction="none")
    assert per_token.shape == (3, 40)
    assert torch.allclose(per_token.mean(), loss, atol=1e-6)
    assert model.lm_head.weight is model.tok_emb.weight
    assert model.config.d_model == 64


def test_model_is_causal():
    model = small_model()
    g = torch.Generator().manual_seed(1)
    idx = torch.randint(0, len(VOCAB), (2, 50), generator=g)
    changed = idx.clone()
    changed[:, 30] = (changed[:, 30] + 1) % len(VOCAB)
    a, _ = model(idx)
    b, _ = model(changed)
    assert torch.allclose(a[:, :30], b[:, :30], atol=1e-6)
    assert not torch.allclose(a[:, 30:], b[:, 30:], atol=1e-4)


def test_set_base_matches_a_model_built_with_that_base():
    model = small_model()
    idx = torch.randint(0, len(VOCAB), (2, 300), generator=torch.Generator().manual_seed(2))
    before, _ = model(idx)  # fills the caches for base 1e4
    model.set_base(1e6)
    theta = 1e6 ** (-np.arange(16) * 2 / 32)
    for block in model.blocks:
        np.testing.assert_allclose(block.attn.rotary.inv_freq.numpy(), theta, rtol=1e-12)
    other = small_model(seed=5, base=1e6)
    other.load_state_dict(model.state_dict())
    after, _ = model(idx)
    assert torch.equal(after, other(idx)[0])
    assert not torch.allclose(after[:, 20:], before[:, 20:], atol=1e-4)
    cos = model.blocks[0].attn.rotary.cos_sin_planes(torch.tensor([250]))[0]
    np.testing.assert_allclose(cos.numpy()[0], np.cos(250 * theta), atol=1e-6)


def test_keep_planes_zeroes_the_other_planes():
    model = small_model()
    model.set_keep_planes(3)
    idx = torch.randint(0, len(VOCAB), (1, 20), generator=torch.Generator().manual_seed(3))
    _, _, qks = model(idx, return_qk=True)
    kept = np.array([c % 16 < 3 for c in range(32)])  # half layout: plane of c is c mod 16
    for q, k in qks:
        assert torch.all(q[..., ~kept] == 0) and torch.all(k[..., ~kept] == 0)
        assert torch.all(q[..., kept].abs().sum((0, 1, 2)) > 0)
    assert model.keep_planes == 3
    with pytest.raises(ValueError, match="keep_planes"):
        model.set_keep_planes(17)


def _float64_attention(attn, x, bias=None):
    """Causal attention without rotation, in float64, from the layer's weights."""
    W = {n: getattr(attn, n).weight.detach().double() for n in ("q_proj", "k_proj", "v_proj")}
    x = x.double()
    B, T, _ = x.shape
    H, hd = attn.n_heads, attn.head_dim

    def heads(w):
        return (x @ w.T).view(B, T, H, hd).transpose(1, 2)

    q, k, v = heads(W["q_proj"]), heads(W["k_proj"]), heads(W["v_proj"])
    scores = q @ k.transpose(-1, -2) / math.sqrt(hd)  # (B, H, T, T)
    scores = scores + (torch.from_numpy(bias) if bias is not None else 0.0)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    weights = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
    y = (weights @ v).transpose(1, 2).reshape(B, T, H * hd)
    return y @ attn.o_proj.weight.detach().double().T


def test_baselines_attend_without_rope():
    x = torch.randn(2, 70, 64, generator=torch.Generator().manual_seed(4))
    rope = small_model()
    for position in ("nope", "alibi"):
        model = small_model(position=position)
        # the same initial weights as the RoPE model built from the same seed
        for (name, a), (_, b) in zip(
            model.state_dict().items(), rope.state_dict().items(), strict=True
        ):
            assert torch.equal(a, b), name
        attn = model.blocks[0].attn
        bias = alibi_bias(70, 2) if position == "alibi" else None  # slopes 1/16, 1/256
        with torch.no_grad():
            got = attn(x).double()
        torch.testing.assert_close(got, _float64_attention(attn, x, bias), rtol=1e-4, atol=1e-6)
        with pytest.raises(ValueError, match="position must be 'rope'"):
            model.set_base(1e6)
        with pytest.raises(ValueError, match="position must be 'rope'"):
            model.set_keep_planes(3)
        with pytest.raises(ValueError, match="positions must be None"):
            attn(x, positions=torch.arange(70))
        assert model.config.to_dict()["position"] == position
    assert "position" not in rope.config.to_dict()  # RoPE checkpoints keep their names
    # NoPE sees order only through the causal mask: a token's output ignores the order of the
    # tokens before it (attention is a set function of the keys)
    nope = small_model(position="nope").blocks[0].attn
    swapped = x.clone()
    swapped[:, [10, 20]] = swapped[:, [20, 10]]
    with torch.no_grad():
        torch.testing.assert_close(nope(x)[:, 30:], nope(swapped)[:, 30:], rtol=1e-5, atol=1e-6)
        assert not torch.allclose(
            rope.blocks[0].attn(x)[:, 30:], rope.blocks[0].attn(swapped)[:, 30:]
        )
    with pytest.raises(ValueError, match="position must be one of"):
        LMConfig(position="learned")


def test_plane_of_coordinate():
    assert plane_of_coordinate(8, "half").tolist() == [0, 1, 2, 3, 0, 1, 2, 3]
    assert plane_of_coordinate(8, "interleaved").tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    with pytest.raises(ValueError, match="head_dim"):
        plane_of_coordinate(7, "half")


def test_config_validation():
    with pytest.raises(ValueError, match="head_dim"):
        LMConfig(head_dim=31)
    with pytest.raises(ValueError, match="n_layer"):
        LMConfig(n_layer=0)
    with pytest.raises(ValueError, match="config"):
        RopeLM({"n_layer": 2})


# --------------------------------------------------------------------------------------
# training and resume
# --------------------------------------------------------------------------------------


def test_lr_schedule_and_batches():
    cfg = TrainConfig(steps=100, seq_len=16, lr=1e-3, min_lr=1e-4, warmup=10)
    assert lr_at(0, cfg) == pytest.approx(1e-4)
    assert lr_at(9, cfg) == pytest.approx(1e-3)
    assert lr_at(10, cfg) == pytest.approx(1e-3)
    assert lr_at(55, cfg) == pytest.approx(0.55e-3)  # half-way down the cosine
    assert lr_at(100, cfg) == pytest.approx(1e-4)
    tokens = torch.arange(1000) % 70
    x1, y1 = get_batch(tokens, 16, 4, seed=3, step=7)
    x2, y2 = get_batch(tokens, 16, 4, seed=3, step=7)
    x3, _ = get_batch(tokens, 16, 4, seed=3, step=8)
    assert torch.equal(x1, x2) and torch.equal(y1, y2) and not torch.equal(x1, x3)
    assert x1.shape == (4, 16) and torch.equal(y1[:, :-1], x1[:, 1:])
    assert torch.equal(y1, (x1 + 1) % 70)
    with pytest.raises(ValueError, match="steps"):
        TrainConfig(steps=0, seq_len=16)


def _train_cfg(steps: int = 12) -> TrainConfig:
    return TrainConfig(steps=steps, seq_len=32, batch_size=4, lr=2e-3, warmup=3, ckpt_every=4)


def _assert_same_state(a: RopeLM, b: RopeLM) -> None:
    for (name, p), (_, q) in zip(a.state_dict().items(), b.state_dict().items(), strict=True):
        assert torch.equal(p, q), name


def test_resume_equals_uninterrupted(small_corpus, tmp_path):
    tokens = torch.from_numpy(small_corpus.train)
    whole = train(small_model(), tokens, _train_cfg(), tmp_path / "a.pt", progress=False)
    part = train(
        small_model(), tokens, _train_cfg(), tmp_path / "b.pt", progress=False, stop_after=5
    )
    assert part.step == 5 and load_checkpoint(tmp_path / "b.pt")["step"] == 5
    resumed = train(small_model(seed=9), tokens, _train_cfg(), tmp_path / "b.pt", progress=False)
    assert resumed.resumed_from == 5 and resumed.step == 12
    assert resumed.losses == whole.losses
    _assert_same_state(resumed.model, whole.model)
    # a finished checkpoint returns at once, unchanged
    again = train(small_model(seed=9), tokens, _train_cfg(), tmp_path / "b.pt", progress=False)
    assert again.step == 12 and again.losses == whole.losses
    _assert_same_state(again.model, whole.model)
    with pytest.raises(ValueError, match="another training config"):
        train(small_model(), tokens, _train_cfg(steps=13), tmp_path / "b.pt", progress=False)


def test_ctrl_c_checkpoints_the_finished_step(small_corpus, tmp_path, monkeypatch):
    tokens = torch.from_numpy(small_corpus.train)
    whole = train(small_model(), tokens, _train_cfg(), None, progress=False)
    real_get_batch = lab_train.get_batch

    def interrupting_get_batch(tokens, seq_len, batch_size, seed, step):
        if step == 6:
            os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C in the middle of step 6
        return real_get_batch(tokens, seq_len, batch_size, seed, step)

    monkeypatch.setattr(lab_train, "get_batch", interrupting_get_batch)
    with pytest.raises(KeyboardInterrupt, match="step 7"):
        train(small_model(), tokens, _train_cfg(), tmp_path / "c.pt", progress=False)
    assert load_checkpoint(tmp_path / "c.pt")["step"] == 7  # step 6 was completed first
    monkeypatch.setattr(lab_train, "get_batch", real_get_batch)
    resumed = train(small_model(), tokens, _train_cfg(), tmp_path / "c.pt", progress=False)
    assert resumed.losses == whole.losses
    _assert_same_state(resumed.model, whole.model)


# --------------------------------------------------------------------------------------
# evaluation
# --------------------------------------------------------------------------------------


def test_evaluate_matches_a_direct_computation(small_corpus):
    model = small_model()
    val = torch.from_numpy(small_corpus.val)
    length, n = 96, 5
    result = evaluate(model, val, length, n, d_extra=6, batch_size=2, progress=False)
    starts = window_starts(val.numel(), length, n)
    assert starts[0] == 0 and starts[-1] == val.numel() - length - 1
    losses, lo, full = [], [], []
    with torch.no_grad():
        for s in starts:
            chunk = val[s : s + length + 1].long()[None]
            logits, _, qks = model(chunk[:, :-1], return_qk=True)
            logp = F.log_softmax(logits[0].double(), dim=-1)
            losses.append(-logp[torch.arange(length), chunk[0, 1:]].numpy())
            q, k = qks[1]  # layer 1, (1, H, T, 32)
            prod = (q[0] * k[0, :, :1]).double()  # (H, T, 32)
            lo.append(prod[..., [c for c in range(32) if c % 16 < 3]].sum(-1).numpy())
            full.append(prod.sum(-1).numpy())
    losses = np.array(losses)
    np.testing.assert_allclose(result.loss, losses.mean(0), rtol=1e-5)
    np.testing.assert_allclose(result.sem, losses.std(0, ddof=1) / math.sqrt(n), rtol=1e-4)
    np.testing.assert_allclose(result.qk_lo[1], np.mean(lo, 0), rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(result.qk_lo[1] + result.qk_hi[1], np.mean(full, 0), atol=1e-6)
    whole = evaluate(model, val, length, 2, d_extra=32, progress=False)
    assert np.all(whole.qk_hi == 0)
    with pytest.raises(ValueError, match="d_extra"):
        evaluate(model, val, length, 2, d_extra=5, progress=False)


W = 32  # moving-average width used below


def _flat(n: int = 2048, level: float = 1.5) -> np.ndarray:
    return np.full(n, level)


def test_supported_length_on_a_step():
    curve = _flat()
    curve[700:] += 1.0
    # smooth[j] = mean(curve[j : j + 32]) = 1.5 + (j + 32 - 700) / 32 > 1.6  <=>  j >= 672
    # centre = j + 16 = 688, context length 689
    assert supported_length(curve, 128, margin=0.1, window=W) == 689
    small = _flat()
    small[700:] += 0.3  # (j + 32 - 700) * 0.3 / 32 > 0.1  <=>  j >= 679 -> context 696
    assert supported_length(small, 128, margin=0.1, window=W) == 696


def test_supported_length_on_a_ramp():
    curve = _flat()
    t = np.arange(2048)
    curve += np.where(t > 300, 0.001 * (t - 300), 0.0)
    # in the ramp, smooth at centre c = 0.001 * (c - 0.5 - 300) > 0.1  <=>  c >= 401
    assert supported_length(curve, 128, margin=0.1, window=W) == 402


def test_supported_length_none_when_flat_or_falling():
    rng = np.random.default_rng(0)
    noisy = _flat() + rng.normal(0.0, 0.02, 2048)  # smoothed noise ~0.004 << margin
    assert supported_length(noisy, 128, margin=0.1, window=W) is None
    falling = 3.0 - 0.3 * np.log1p(np.arange(2048))  # more context, lower loss
    assert supported_length(falling, 128, margin=0.1, window=W) is None
    bump = _flat()
    bump[40:60] += 2.0  # inside the training window: not a failure to extrapolate
    assert supported_length(bump, 128, margin=0.1, window=W) is None


def test_supported_length_reference_and_censoring():
    curve = _flat()
    curve[:64] = 0.5  # the first half of the window is not the reference (else it would be 1.0)
    assert supported_length(curve, 128, margin=0.1, window=W) is None
    late = _flat()
    late[-1] += 4.0  # only the last window sees it: 4 / 32 = 0.125 > 0.1
    assert supported_length(late, 128, margin=0.1, window=W) == last_centre_length(2048, W)
    assert last_centre_length(2048, W) == 2048 - 32 + 16 + 1
    beyond = _flat()
    beyond[-1] += 0.1 * W - 0.01  # not enough in the last window: censored
    assert supported_length(beyond, 128, margin=0.1, window=W) is None
    # the default window is ref_len // 4
    step = _flat()
    step[500:] += 1.0
    assert supported_length(step, 128) == supported_length(step, 128, window=32)


def test_supported_length_persist_passes_over_a_bump_that_comes_back_down():
    curve = _flat()
    curve[400:440] += 0.3  # a bump of 40 positions: the smoothed loss crosses 0.1, then falls
    curve[900:] += 1.0  # the real break
    assert supported_length(curve, 128, margin=0.1, window=W) == 400 - 32 + 11 + 16 + 1
    # with persist 128 the bump is not it; the step at 900 is read as before (689 + 200)
    assert supported_length(curve, 128, margin=0.1, window=W, persist=128) == 889
    # a rise within the last `persist` positions counts if it lasts to the end of the curve
    late = _flat()
    late[2000:] += 1.0
    assert supported_length(late, 128, margin=0.1, window=W, persist=128) == 1989
    # a rise that falls back before the end does not
    short = _flat()
    short[1000:1100] += 1.0
    assert supported_length(short, 128, margin=0.1, window=W, persist=128) is None
    assert supported_length(short, 128, margin=0.1, window=W, persist=60) == 989


def test_supported_length_rejects_bad_input():
    with pytest.raises(ValueError, match="loss"):
        supported_length(np.full((2, 300), 1.0), 128)
    with pytest.raises(ValueError, match="loss"):
        supported_length([1.0, float("nan")] * 200, 128)
    with pytest.raises(ValueError, match="longer than ref_len"):
        supported_length(_flat(100), 128)
    with pytest.raises(ValueError, match="margin"):
        supported_length(_flat(), 128, margin=0.0)
    with pytest.raises(ValueError, match="window"):
        supported_length(_flat(), 128, window=129)
    with pytest.raises(ValueError, match="persist"):
        supported_length(_flat(), 128, persist=-1)
    with pytest.raises(ValueError, match="persist"):
        supported_length(_flat(), 128, persist=1.5)


def test_bin_curve():
    context, means = bin_curve([1.0, 2.0, 3.0, 4.0, 5.0], 2)
    assert context.tolist() == [1.5, 3.5, 5.0]
    assert means.tolist() == [1.5, 3.5, 5.0]


# --------------------------------------------------------------------------------------
# the pipeline
# --------------------------------------------------------------------------------------


def test_full_plan_spans_the_regimes():
    plan = full_plan()
    assert plan.d_extra == 12  # 2 ceil(16 log_1e4(128 / 2π)) = 2 ceil(5.24)
    assert plan.eval_len == 32 * plan.train_len and plan.model.head_dim == 32
    # 1e7's T_extra (2650) inside the window; a rise must last a training length
    assert scaling.extrapolation_bound(1e7, 32, 128) < plan.eval_len and plan.persist == 128
    beta1, beta2, beta3 = 2 * 128 / math.pi, 128 / math.pi, 128 / (2 * math.pi)
    small = sorted(r.base for r in plan.runs if r.base < 1e4)
    assert small[-1] > beta1 and beta2 < small[-2] < beta1 and beta3 < small[-3] < beta2
    assert small[0] < beta3
    assert {r.base for r in plan.runs} >= {1e5, 1e6, 1e7}
    longer = [r for r in plan.runs if r.tune_len > plan.train_len]
    assert len(longer) == 1 and plan.train_config(longer[0]).batch_size * longer[0].tune_len == (
        plan.finetune.batch_size * plan.train_len
    )
    by_name = {r.name: r for r in plan.runs}
    for spec in plan.all_runs():
        pred = predicted(plan, spec)
        p = scaling.predict(32, 128, spec.base, tune_len=spec.tune_len)
        assert pred["theorem3"]["regime"] == p.regime
        assert pred["theorem3"]["supported_length"] == p.supported_length
        if spec.base >= 1e4:
            assert pred["t_extra"] == pytest.approx(2 * math.pi * spec.base ** (12 / 32))
        else:
            assert pred["t_extra"] is None
    assert predicted(plan, by_name["ft-16"])["expected_supported_length"] is None
    assert predicted(plan, by_name["ft-1e6-T256"])["expected_supported_length"] == pytest.approx(
        2 * math.pi * 1e6**0.375
    )
    # Theorem 1: every base below 10 000 improves on the control; d'_extra = 2 ceil(16 log_b 20.4)
    for name, d_tune in (("ft-500", 16), ("ft-60", 24), ("ft-30", 30)):
        p = predicted(plan, by_name[name])
        assert (
            p["d_extra_tune"]
            == d_tune
            == 2 * math.ceil(16 * math.log(128 / (2 * math.pi)) / math.log(by_name[name].base))
        )
        assert p["claim"] == "longer than control" and p["expected_supported_length"] is None
        assert p["theorem3"]["supported_length"] == 128.0  # Theorem 3's T_tune stays recorded
    p16 = predicted(plan, by_name["ft-16"])
    assert p16["claim"] == "no hard bound (conjecture)" and p16["d_extra_tune"] == 32
    assert predicted(plan, by_name["ft-1e5"])["claim"] == "bound"
    # above the critical base the pre-training's d_extra governs (Theorem 3), not d'_extra
    assert predicted(plan, by_name["ft-1e5"])["d_extra_tune"] == 12
    assert 2 * math.ceil(16 * math.log(128 / (2 * math.pi)) / math.log(1e5)) == 10
    ablation = predicted(plan, by_name["ablate-1e4"])
    assert by_name["ablate-1e4"].keep_planes == 6
    assert ablation["expected_supported_length"] is None
    assert ablation["theorem3"]["supported_length"] == 128.0
    assert ablation["claim"] == "no hard bound (our reading)" and "1/sqrt(12)" in ablation["note"]


def test_full_plan_stages_seeds_and_checkpoints():
    plan = full_plan()
    assert stage_names(plan) == ["pretrain", "finetune", "testtime", "seed1", "seed2", "baseline"]
    assert plan.replicates == 3 and len(plan.replicated) >= 4
    replicated = {r.base for r in plan.runs if r.name in plan.replicated}
    assert min(replicated) < 128 / (2 * math.pi) and max(replicated) >= 1e7  # small and large
    seeds = set()
    for stage in ("pretrain", "seed1", "seed2"):
        runs = stage_runs(plan, stage)
        r = runs[0].replicate
        assert runs[0].kind == "pretrain" and [x.spec.name for x in runs[1:]] == list(
            plan.replicated if r else []
        )
        for run in runs:
            cfg = plan.train_config(run.spec, run.replicate)
            seeds.add((run.spec.name, cfg.seed))
            assert run.id == (run.spec.name if r == 0 else f"{run.spec.name}-s{r}")
            assert run.parent_id == (None if run.kind == "pretrain" else runs[0].id)
    # no two replicates share batches: pre-training seeds 0, 2, 4; fine-tunes 1, 3, 5
    assert {seed for name, seed in seeds if name == "pretrain"} == {0, 2, 4}
    assert {seed for name, seed in seeds if name == "ft-1e6"} == {3, 5}
    assert [r.id for r in stage_runs(plan, "baseline")] == ["nope"]
    assert plan.train_config(stage_runs(plan, "baseline")[0].spec) == plan.pretrain  # same budget
    assert set(plan.ship) >= {"pretrain", "ft-16", "ft-1e6", "ft-1e7", "nope"}
    assert {"pretrain", "ft-16", "ft-1e6", "ft-1e7"} <= set(plan.testtime_models)
    paths = checkpoint_paths(plan, "c")
    assert (
        len({p.name for p in paths.values()}) == len(paths) == 1 + 11 + 2 * 12 + 1
    )  # every fine-tune in all three seeds
    # replicate 0's checkpoints do not depend on the replicates, baselines or methods: adding
    # a seed or a method never retrains the models that exist
    bare = replace(
        plan, replicates=1, replicated=(), baselines=(), testtime_models=(), methods=(), ship=()
    )
    assert checkpoint_paths(bare, "c") == {k: v for k, v in paths.items() if k in {
        "pretrain", *(r.name for r in plan.runs)
    }}  # fmt: skip
    more = replace(plan, replicates=4)
    assert {k: checkpoint_paths(more, "c")[k] for k in paths} == paths
    with pytest.raises(ValueError, match="stage must be one of"):
        stage_runs(plan, "seed3")
    with pytest.raises(ValueError, match="replicated"):
        replace(plan, replicated=("ft-42",))
    with pytest.raises(ValueError, match="baselines"):
        replace(plan, baselines=("learned",))
    with pytest.raises(ValueError, match="methods"):
        replace(plan, methods=("rerope",))


def test_large_plan_for_a_gpu_spans_the_same_regimes():
    plan = large_plan()
    assert PLANS["large"] is large_plan and PLANS["full"] is full_plan
    assert plan.model.head_dim == 64 and plan.train_len == 256 and plan.eval_len == 4096
    # d_extra = 2 ceil(32 log_1e4(256 / 2π)) = 2 ceil(12.88) = 26
    assert plan.d_extra == 2 * math.ceil(32 * math.log(256 / (2 * math.pi)) / math.log(1e4)) == 26
    beta1, beta2, beta3 = 2 * 256 / math.pi, 256 / math.pi, 256 / (2 * math.pi)
    small = sorted(r.base for r in plan.runs if r.base < 1e4)
    assert small[-1] > beta1 and beta2 < small[-2] < beta1 and beta3 < small[-3] < beta2
    assert small[0] < beta3
    t_extra = predicted(plan, next(r for r in plan.runs if r.name == "ft-1e6"))["t_extra"]
    assert t_extra == pytest.approx(2 * math.pi * 1e6 ** (26 / 64))  # ≈ 1 720 < 4 096
    assert [r.keep_planes for r in plan.runs if r.keep_planes] == [13]
    model = RopeLM(replace(plan.model))
    assert model.num_params() == 6 * 12 * 384**2 + 6 * 9 * 384 + 76 * 384 + 2 * 384  # 10.8 M


def test_extra_plan_reuses_the_pretraining():
    plan = full_plan()
    extra = extra_plan(plan, [3e5, 2e3])
    assert [r.name for r in extra.runs] == ["ft-3e5", "ft-2000"]
    assert all(r.tune_len == 128 and r.keep_planes is None for r in extra.runs)
    old, new = checkpoint_paths(plan, "c"), checkpoint_paths(extra, "c")
    assert new["pretrain"] == old["pretrain"]  # the pre-trained checkpoint is reused
    cut = extra_plan(plan, [1e4], tune_len=256, keep_planes=6)
    assert cut.runs[0].name == "ft-1e4-T256-keep6"
    assert new["ft-3e5"] != checkpoint_paths(cut, "c")["ft-1e4-T256-keep6"]
    assert extra_plan(plan, [1e4]).runs[0] == plan.runs[0]  # the same run as the control
    assert stage_names(extra) == ["pretrain", "finetune"] and extra.ship == ()
    assert [base_label(b) for b in (500, 2.5, 1e4, 3e5, 1.5e6, 1e7, 12345)] == [
        "500", "2.5", "1e4", "3e5", "1.5e6", "1e7", "1.2345e4"
    ]  # fmt: skip
    with pytest.raises(ValueError, match="at least one base"):
        extra_plan(plan, [])
    with pytest.raises(ValueError, match="base"):
        extra_plan(plan, [-5.0])
    with pytest.raises(ValueError, match="tune_len"):
        extra_plan(plan, [1e5], tune_len=4096)


def test_cli_extra_base_and_errors(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    base_cmd = [sys.executable, "-m", "ropelab.lab", "--quick", "--no-progress", "--threads", "1"]
    base_cmd += ["--ckpt-dir", str(tmp_path)]
    proc = subprocess.run(
        [*base_cmd, "--base", "3e5", "--base", "50"], capture_output=True, text=True, env=env,
        timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = json.loads((tmp_path / "extra-results" / "results.json").read_text())
    assert [m["name"] for m in results["models"]] == ["pretrain", "ft-3e5", "ft-50"]
    assert results["meta"]["versions"]["device"] == "cpu"
    t_extra = results["models"][1]["prediction"]["t_extra"]
    assert t_extra == pytest.approx(2 * math.pi * 3e5 ** (6 / 32))  # quick plan: d_extra = 6
    for bad, message in (
        (["--tune-len", "64"], "go with --base"),
        (["--threads", "0"], "--threads must be >= 1"),
        (["--base", "-1"], "base"),
        (["--plan", "huge"], "invalid choice"),
        (["--stage", "seed9"], "--stage must be one of"),
    ):
        proc = subprocess.run([*base_cmd, *bad], capture_output=True, text=True, env=env)
        assert proc.returncode == 2 and message in proc.stderr, (bad, proc.stderr)


def test_quick_pipeline_end_to_end(tmp_path):
    out, ckpt = tmp_path / "out", tmp_path / "ckpt"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    cmd = [sys.executable, "-m", "ropelab.lab", "--quick", "--no-progress", "--threads", "1"]
    cmd += ["--out", str(out), "--ckpt-dir", str(ckpt)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "pretrain" in proc.stdout and "ablate-1e6" in proc.stdout and "alibi" in proc.stdout
    assert "stage testtime" in proc.stderr and "stage seed1" in proc.stderr
    results = load_results(out)
    plan = quick_plan()
    meta = results["meta"]
    assert meta["quick"] is True and meta["plan"]["eval_len"] == 512
    assert meta["command"].startswith("python -m ropelab.lab --quick")
    assert meta["versions"]["torch_threads"] == 1 and meta["versions"]["device"] == "cpu"
    assert meta["corpus_sha256"] == load_corpus(plan.corpus).sha256
    assert meta["d_extra"] == 6  # 2 ceil(16 log_1e4(32/2π)) = 2 ceil(2.83)
    assert list(meta["stages"]) == ["pretrain", "finetune", "testtime", "seed1", "baseline"]
    names = ["pretrain", "ft-1e6", "ft-1e6-T64", "ablate-1e6", "ft-4"]
    assert [m["name"] for m in results["models"]] == names
    assert [m["name"] for m in results["baselines"]] == ["nope", "alibi"]
    assert [m["id"] for m in results["replicates"]] == ["pretrain-s1", "ft-1e6-s1"]
    for m in [*results["models"], *results["baselines"], *results["replicates"]]:
        assert m["command"] == meta["command"]
        assert m["versions"]["torch"].startswith("2.13.0")
        if m["kind"] != "baseline":
            p = scaling.predict(32, 32, m["base"], tune_len=m["tune_len"])
            assert m["prediction"]["theorem3"]["regime"] == p.regime
            assert m["prediction"]["theorem3"]["supported_length"] == p.supported_length
        if m["kind"] != "baseline" and m["base"] >= 1e4:
            assert m["prediction"]["t_extra"] == pytest.approx(2 * math.pi * m["base"] ** (6 / 32))
        measured = m["measured"]["supported_length"]
        assert measured is None or 32 < measured <= 512
        assert m["measured"]["censored"] == (measured is None)
        curve = m["loss_curve"]["loss"]
        assert len(curve) == 512 // 8 and all(0 < v < 10 for v in curve)
        steps = 30 if m["kind"] in ("pretrain", "baseline") else 10
        assert m["train"]["steps"] == steps
        assert m["train"]["wall_time_s"] > 0 and m["eval"]["wall_time_s"] > 0
        assert len(m["qk_split"]["layers"]) == 2
    seed1 = results["replicates"][0]
    assert seed1["train"]["seed"] == 2 and seed1["train"]["model_seed"] == 1
    assert results["replicates"][1]["parent"] == "pretrain-s1"
    nope = results["baselines"][0]
    assert nope["position"] == "nope" and nope["base"] is None
    assert nope["train"]["config"] == results["models"][0]["train"]["config"]  # same budget
    assert nope["prediction"]["claim"] == "baseline"
    ablation = results["models"][3]
    assert (
        ablation["keep_planes"] == 3 and ablation["prediction"]["expected_supported_length"] is None
    )
    assert all(
        v == 0.0 for v in ablation["qk_split"]["layers"][0]["rest"]["head_mean_curve"]
    )  # the cut planes carry nothing
    assert results["models"][2]["train"]["config"]["seq_len"] == 64
    assert results["models"][2]["train"]["config"]["batch_size"] == 4  # same tokens per step
    # test-time methods: every method on three models, the inapplicable ones with a reason
    testtime = results["testtime"]
    assert len(testtime) == 3 * 8
    skipped = {(r["model"], r["method"]) for r in testtime if not r["applicable"]}
    # no T_extra below beta0, nor at it (the pre-trained model: Theorem 3's bound is T_train)
    assert skipped == {
        ("ft-4", "dyn-extra"), ("ft-4", "log-extra"),
        ("pretrain", "dyn-extra"), ("pretrain", "log-extra"),
    }  # fmt: skip
    for r in testtime:
        if r["applicable"]:
            assert len(r["loss_curve"]["loss"]) == 64 and r["eval"]["wall_time_s"] > 0
            ref = next(m for m in results["models"] if m["name"] == r["model"])
            assert r["measured"]["reference_loss"] == ref["measured"]["reference_loss"]
        else:
            assert r["measured"] is None and r["reason"]
    # the compact models load, after the hash check, and give the recorded fingerprint
    assert sorted(p.name for p in (out / "models").iterdir()) == [
        "ft-1e6.pt", "nope.pt", "pretrain.pt"
    ]  # fmt: skip
    val = torch.from_numpy(load_corpus(plan.corpus).val)
    for name in ("pretrain", "ft-1e6", "nope"):
        entry = model_record(results, name)["compact"]
        model = load_compact(name, results_dir=out)
        assert model.config.base == (1e6 if name == "ft-1e6" else 1e4)
        starts = window_starts(val.numel(), 512, 8)[:2]
        chunk = val[torch.from_numpy(starts)[:, None] + torch.arange(513)].long()
        with torch.no_grad():
            _, loss = model(chunk[:, :-1], chunk[:, 1:])
        assert loss.item() == pytest.approx(entry["fingerprint"]["mean_loss"], abs=1e-5)
    rows = (out / "summary.csv").read_text().strip().splitlines()
    assert len(rows) == 1 + 7 + 2 and rows[0].startswith("id,name,replicate,")
    curves = (out / "loss_curves.csv").read_text().strip().splitlines()
    assert len(curves) == 1 + 64 and curves[0].split(",")[-1] == "ft-1e6-s1"
    assert len((out / "testtime.csv").read_text().strip().splitlines()) == 1 + 24

    # an interrupted pipeline resumes to the same numbers: a fresh folder whose pre-training
    # stopped after 12 of 30 steps, then one stage at a time
    other = tmp_path / "ckpt2"
    paths = checkpoint_paths(plan, other)
    torch.manual_seed(plan.model_seed)
    partial = train(
        RopeLM(replace(plan.model)),
        torch.from_numpy(load_corpus(plan.corpus).train),
        plan.pretrain,
        paths["pretrain"],
        progress=False,
        stop_after=12,
    )
    assert partial.step == 12
    for stage in ("pretrain", "baseline", "finetune"):  # the order of stages is free
        assert run_plan(plan, tmp_path / "out2", other, progress=False, stages=[stage]) is None
    assert not (tmp_path / "out2" / "results.json").exists()  # written when all are done
    resumed = run_plan(plan, tmp_path / "out2", other, progress=False, stages=["testtime", "seed1"])
    for key in ("models", "replicates", "testtime"):
        for a, b in zip(results[key], resumed[key], strict=True):
            assert b["loss_curve"] == a["loss_curve"]
            assert b["measured"] == a["measured"]
            if key != "testtime":
                assert b["train"]["final_loss"] == a["train"]["final_loss"]
    # a second run finds everything done: checkpoints, evaluations and compact models are
    # reused, not rewritten
    stamps = {p: p.stat().st_mtime_ns for p in other.iterdir()}
    models = {p: p.stat().st_mtime_ns for p in (tmp_path / "out2" / "models").iterdir()}
    again = run_plan(plan, tmp_path / "out2", other, progress=False)
    assert {p: p.stat().st_mtime_ns for p in other.iterdir()} == stamps
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "out2" / "models").iterdir()} == models
    assert [m["measured"] for m in again["models"]] == [m["measured"] for m in resumed["models"]]
    with pytest.raises(ValueError, match="stages must be of"):
        run_plan(plan, tmp_path / "out2", other, progress=False, stages=["seed2"])
