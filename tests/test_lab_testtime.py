"""ropelab.lab.testtime: the test-time methods of chapter 7 against formulas computed here, and
an attention layer with a method installed against a float64 attention written out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from ropelab.lab.corpus import VOCAB, CorpusConfig, load_corpus
from ropelab.lab.evaluate import evaluate
from ropelab.lab.model import LMConfig, RopeLM
from ropelab.lab.testtime import (
    METHODS,
    _rotary_for,
    describe,
    evaluate_method,
    installed,
    method_window_loss,
    plan_method,
    reliable_length,
)

D, T_TRAIN, L = 32, 128, 2048  # the full plan's head dimension, training and evaluated length


@pytest.fixture(autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def setup(method: str, base: float, eval_len: int = L):
    return plan_method(
        method, base=base, head_dim=D, train_len=T_TRAIN, pretrain_base=1e4, eval_len=eval_len
    )


def theta(base: float) -> np.ndarray:
    return base ** (-np.arange(D // 2) * 2.0 / D)


def t_extra(base: float) -> float:
    return 2 * math.pi * base ** (12 / 32)  # d_extra = 12 for d = 32, T = 128, base 1e4


# --------------------------------------------------------------------------------------
# the settings of each method
# --------------------------------------------------------------------------------------


def test_reliable_length_is_t_extra_above_the_pretraining_base_else_t_train():
    assert reliable_length(1e6, D, T_TRAIN, 1e4) == round(t_extra(1e6)) == 1117
    assert reliable_length(1e4, D, T_TRAIN, 1e4) == T_TRAIN  # beta = beta0: Theorem 3 gives T_tune
    assert reliable_length(500.0, D, T_TRAIN, 1e4) == T_TRAIN


def test_static_methods_scale_as_their_formulas():
    for base in (1e4, 1e5, 1e6):
        l0 = round(t_extra(base)) if base > 1e4 else T_TRAIN  # Theorem 3's bound
        s = L / l0
        pi = setup("pi", base)
        np.testing.assert_allclose(pi.segments[0].inv_freq, theta(base) / s, rtol=1e-12)
        assert pi.ref_len == l0 and pi.settings["factor"] == pytest.approx(s)
        ntk = setup("ntk", base)  # NTK-aware: base * s^(d/(d-2))
        np.testing.assert_allclose(
            ntk.segments[0].inv_freq, theta(base * s ** (D / (D - 2))), rtol=1e-12
        )
        yarn = setup("yarn", base)
        got = yarn.segments[0].inv_freq
        turns = l0 / (2 * np.pi / theta(base))  # turns of each plane within L0
        fast, slow = turns > 32, turns < 1  # YaRN's beta_fast = 32, beta_slow = 1
        np.testing.assert_allclose(got[fast], theta(base)[fast], rtol=1e-12)
        np.testing.assert_allclose(got[slow], theta(base)[slow] / s, rtol=1e-12)
        assert np.all(got <= theta(base) * (1 + 1e-12)) and np.all(got >= theta(base) / s * 0.999)
        assert yarn.segments[0].attention_factor == pytest.approx(0.1 * math.log(s) + 1)
    small = setup("pi", 16.0)  # below the pre-training base: the original length is T_train
    assert small.ref_len == T_TRAIN and small.settings["factor"] == 16


def test_dynamic_ntk_follows_eq_20_exactly():
    dyn = setup("dyn-train", 1e4)
    # alpha_t = max(1, 2^(ceil(log2(t / T)) + 1) - 1): 1 up to T, 3 up to 2T, 7, 15, 31
    assert [(s.start, s.stop) for s in dyn.segments] == [
        (0, 128), (128, 256), (256, 512), (512, 1024), (1024, 2048)
    ]  # fmt: skip
    for seg, alpha in zip(dyn.segments, (1, 3, 7, 15, 31), strict=True):
        assert seg.base == 1e4 * alpha
        np.testing.assert_allclose(seg.inv_freq, theta(1e4 * alpha), rtol=1e-12)
    extra = setup("dyn-extra", 1e6)  # T_extra = 1117: one step within 2048
    assert [(s.start, s.stop, s.base) for s in extra.segments] == [
        (0, 1117, 1e6), (1117, 2048, 3e6)
    ]  # fmt: skip
    for t in (1, 128, 129, 1117, 1118, 2048):  # position t - 1 has length t
        seg = next(s for s in extra.segments if s.start <= t - 1 < s.stop)
        alpha = max(1, 2 ** (math.ceil(math.log2(t / 1117)) + 1) - 1)
        assert seg.base == 1e6 * alpha


def test_log_scaling_and_xpos_settings():
    for method, ref in (("log-train", 128), ("log-extra", round(t_extra(1e5)))):
        log = setup(method, 1e5)
        t = np.arange(1, L + 1)
        np.testing.assert_allclose(
            log.query_scale, np.maximum(1.0, np.log(t) / math.log(ref)), rtol=1e-12
        )
        assert log.ref_len == ref
    xpos = setup("xpos", 1e6)
    assert xpos.xpos_len == 1117 and xpos.settings["gamma"] == 0.4
    assert setup("xpos", 16.0).xpos_len == T_TRAIN


def test_methods_that_change_nothing_are_not_applicable():
    for method in ("pi", "ntk", "yarn", "dyn-extra", "log-extra"):  # T_extra(1e7) = 2650 > 2048
        applied = setup(method, 1e7)
        assert not applied.applicable and "2650" in applied.reason
    for method in ("dyn-train", "log-train", "xpos"):
        assert setup(method, 1e7).applicable
    for method in ("dyn-extra", "log-extra"):  # no T_extra below the pre-training base
        applied = setup(method, 500.0)
        assert not applied.applicable and "no T_extra" in applied.reason
    assert set(METHODS) == {
        "pi", "ntk", "yarn", "dyn-train", "dyn-extra", "log-train", "log-extra", "xpos"
    }  # fmt: skip
    assert "not applicable" in describe(setup("pi", 1e7))
    assert describe(setup("dyn-train", 1e4)).startswith("dynamic NTK (T_train): alpha [1, 3")
    with pytest.raises(ValueError, match="method must be one of"):
        setup("rerope", 1e4)


# --------------------------------------------------------------------------------------
# the methods inside attention, against a float64 attention written out here
# --------------------------------------------------------------------------------------


def reference_attention(attn, x, inv_freq, attention_factor=1.0, q_scale=None, plane_decay=None):
    """Causal attention in float64 from the layer's weights: q, k rotated in the half layout
    by angle position * inv_freq, scores of plane n times plane_decay(t, s)[n] and of query t
    times q_scale[t], softmax over s <= t, values, output projection."""
    W = {n: getattr(attn, n).weight.detach().double() for n in ("q_proj", "k_proj", "v_proj")}
    Wo = attn.o_proj.weight.detach().double()
    x = x.double()
    B, T, _ = x.shape
    H, hd = attn.n_heads, attn.head_dim
    half = hd // 2

    def heads(w):
        return (x @ w.T).view(B, T, H, hd).transpose(1, 2)  # (B, H, T, hd)

    q, k, v = heads(W["q_proj"]), heads(W["k_proj"]), heads(W["v_proj"])
    angle = torch.arange(T, dtype=torch.float64)[:, None] * torch.as_tensor(inv_freq)  # (T, hd/2)
    cos, sin = torch.cos(angle) * attention_factor, torch.sin(angle) * attention_factor

    def rotate(z):
        a, b = z[..., :half], z[..., half:]
        return torch.cat((a * cos - b * sin, b * cos + a * sin), dim=-1)

    qr, kr = rotate(q), rotate(k)
    per_plane = qr[..., :, None, :half] * kr[..., None, :, :half]  # (B, H, T, T, hd/2)
    per_plane = per_plane + qr[..., :, None, half:] * kr[..., None, :, half:]
    if plane_decay is not None:
        per_plane = per_plane * plane_decay  # (T, T, hd/2)
    scores = per_plane.sum(-1) / math.sqrt(hd)  # (B, H, T, T)
    if q_scale is not None:
        scores = scores * torch.as_tensor(q_scale)[:, None]
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    weights = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
    y = (weights @ v).transpose(1, 2).reshape(B, T, H * hd)
    return y @ Wo.T


@pytest.mark.parametrize("method", ["pi", "yarn", "log-train", "xpos", "dyn-train"])
def test_an_installed_method_is_the_attention_of_its_formula(method):
    torch.manual_seed(0)
    model = RopeLM(LMConfig(n_layer=1, n_head=2, head_dim=D, base=1e4))
    attn = model.blocks[0].attn
    length = 300
    applied = setup(method, 1e4, eval_len=length)
    seg = applied.segments[-1]  # dynamic NTK: the last segment reads all 300 positions
    x = torch.randn(2, seg.stop, model.config.d_model, generator=torch.Generator().manual_seed(1))
    q_scale = plane_decay = None
    if applied.query_scale is not None:
        q_scale = applied.query_scale[: seg.stop]
    if applied.xpos_len is not None:
        t = np.arange(seg.stop)
        zeta = (0.4 + 2 * np.arange(D // 2) / D) / 1.4  # xPos: (gamma + 2n/d) / (1 + gamma)
        plane_decay = torch.from_numpy(
            zeta ** ((t[:, None] - t[None, :])[..., None] / applied.xpos_len)
        )
    expected = reference_attention(
        attn, x, seg.inv_freq, seg.attention_factor, q_scale=q_scale, plane_decay=plane_decay
    )
    with torch.no_grad(), installed(model, _rotary_for(model, applied, seg)):
        got = attn(x).double()
    torch.testing.assert_close(got, expected, rtol=2e-4, atol=2e-5)
    assert model.blocks[0].attn.rotary.base == 1e4  # the model's own rotary is back


def test_plain_frequencies_installed_reproduce_the_model():
    torch.manual_seed(0)
    model = RopeLM(LMConfig(n_layer=2, n_head=2, head_dim=D, base=1e5))
    idx = torch.randint(0, len(VOCAB), (2, 200), generator=torch.Generator().manual_seed(2))
    plain = setup("dyn-train", 1e5, eval_len=200).segments[0]  # alpha = 1: base 1e5 itself
    applied = setup("dyn-train", 1e5, eval_len=200)
    with torch.no_grad():
        before, _ = model(idx)
        with installed(model, _rotary_for(model, applied, plain)):
            during, _ = model(idx)
        after, _ = model(idx)
    assert torch.equal(before, during) and torch.equal(before, after)


@pytest.fixture(scope="module")
def small_val():
    corpus = load_corpus(CorpusConfig(train_chars=60_000, val_chars=20_000, seed=0))
    return torch.from_numpy(corpus.val)


def test_evaluate_method_reads_each_segment_with_its_base(small_val):
    """Dynamic NTK: the loss at a position of segment j is the plain loss of the model with base
    base * alpha_j (set_base, an independent path), over the same windows."""
    torch.manual_seed(0)
    model = RopeLM(LMConfig(n_layer=2, n_head=2, head_dim=D, base=1e4))
    applied = plan_method(
        "dyn-train", base=1e4, head_dim=D, train_len=32, pretrain_base=1e4, eval_len=256
    )
    assert [s.stop for s in applied.segments] == [32, 64, 128, 256]
    loss, sem = evaluate_method(model, small_val, applied, 4, batch_size=2)
    assert loss.shape == sem.shape == (256,)
    for seg in applied.segments:
        other = RopeLM(LMConfig(n_layer=2, n_head=2, head_dim=D, base=seg.base))
        other.load_state_dict(model.state_dict())
        plain = evaluate(other, small_val, 256, 4, d_extra=6, batch_size=2, progress=False)
        np.testing.assert_allclose(
            loss[seg.start : seg.stop], plain.loss[seg.start : seg.stop], rtol=1e-5, atol=1e-6
        )
    with pytest.raises(ValueError, match="applicable"):
        evaluate_method(model, small_val, setup("pi", 1e7), 4)


def test_methods_need_a_rope_model():
    torch.manual_seed(0)
    model = RopeLM(LMConfig(n_layer=1, n_head=2, head_dim=D, position="nope"))
    with pytest.raises(ValueError, match="RoPE"):
        with installed(model, torch.nn.Identity()):
            pass


def test_ref_len_overrides_the_starting_length():
    """The controls of lab/PLAN.md section 7 start NTK-aware scaling and YaRN from T_train."""
    ntk = plan_method(
        "ntk", base=1e6, head_dim=D, train_len=T_TRAIN, pretrain_base=1e4, eval_len=L,
        ref_len=T_TRAIN,
    )  # fmt: skip
    s = L / T_TRAIN
    assert ntk.ref_len == T_TRAIN and ntk.settings["factor"] == s
    assert ntk.settings["base"] == pytest.approx(1e6 * s ** (D / (D - 2)), rel=1e-12)
    yarn = plan_method(
        "yarn", base=1e6, head_dim=D, train_len=T_TRAIN, pretrain_base=1e4, eval_len=L,
        ref_len=T_TRAIN,
    )  # fmt: skip
    assert yarn.settings["attention_factor"] == pytest.approx(0.1 * math.log(s) + 1, rel=1e-12)
    assert setup("ntk", 1e6).ref_len == round(t_extra(1e6))  # the default: L0 = T_extra
    with pytest.raises(ValueError, match="ref_len"):
        plan_method(
            "ntk", base=1e6, head_dim=D, train_len=T_TRAIN, pretrain_base=1e4, eval_len=L,
            ref_len=1,
        )  # fmt: skip


def test_method_window_loss_averages_to_evaluate_method(small_val):
    torch.manual_seed(0)
    model = RopeLM(LMConfig(n_layer=1, n_head=2, head_dim=D, base=1e6))
    applied = setup("dyn-train", 1e6, eval_len=512)
    rows = method_window_loss(model, small_val, applied, 4, batch_size=3)
    loss, sem = evaluate_method(model, small_val, applied, 4, batch_size=2)
    assert rows.shape == (4, 512)
    np.testing.assert_allclose(rows.mean(0), loss, rtol=0, atol=1e-12)
    np.testing.assert_allclose(rows.std(0, ddof=1) / 2, sem, rtol=0, atol=1e-12)
