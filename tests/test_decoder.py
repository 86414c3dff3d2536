"""ropelab.decoder: the record the browser decoder and ``--json`` show, checked against
describe_config, frequencies_by_layer_type, the GGUF metadata written by ropelab.gguf_meta,
and the warnings chapter 8 motivates."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ropelab import decoder, frequencies_by_layer_type, gguf_meta
from ropelab.configs import load_config, shipped_configs
from ropelab.scaling import critical_dim, extrapolation_bound, full_period_planes


@pytest.mark.parametrize("name", shipped_configs())
def test_record_holds_the_frequencies_and_the_gguf_keys(name):
    config = load_config(name)
    record = decoder.decode_config(config)
    groups = frequencies_by_layer_type(config)
    assert [layer["layer_type"] for layer in record["layers"]] == list(groups)
    for layer in record["layers"]:
        inv, attention = groups[layer["layer_type"]]
        np.testing.assert_allclose(layer["inv_freq"], inv, rtol=1e-11)
        assert layer["attention_factor"] == pytest.approx(attention, rel=1e-11)
        bounds = layer["bounds"]
        if bounds is not None:
            trained, dim, base = bounds["trained_length"], layer["rotary_dim"], layer["base"]
            assert bounds["full_period_planes"] == full_period_planes(dim, trained, base)
            assert bounds["critical_dim"] == critical_dim(dim, trained, base)
            assert bounds["bound"] == pytest.approx(
                extrapolation_bound(base, dim, trained, pretrain_base=base), rel=1e-11
            )
    pytest.importorskip("gguf")
    rope = gguf_meta.gguf_rope_metadata(config)
    scalars = {k: v for k, v in record["gguf"] if not k.startswith("tensor ")}
    assert scalars.keys() == rope.values.keys()
    for key, value in rope.values.items():
        assert scalars[key] == (value if isinstance(value, str) else pytest.approx(value))
    tensors = {k.removeprefix("tensor "): v for k, v in record["gguf"] if k.startswith("tensor ")}
    assert tensors == {k: f"{v.size} values" for k, v in rope.tensors.items()}


def test_gguf_keys_carry_llama_cpps_architecture_name():
    """qwen3_moe is llama.cpp's qwen3moe (gguf.MODEL_ARCH_NAMES), as gguf_meta writes it."""
    record = decoder.decode_config(load_config("qwen3-30b-a3b-yarn"))
    keys = list(json.dumps(record["gguf"]).split('"'))
    assert "qwen3moe.rope.freq_base" in keys
    assert gguf_meta.ARCHITECTURES["qwen3_moe"] == "qwen3moe"


def codes(name_or_config):
    config = load_config(name_or_config) if isinstance(name_or_config, str) else name_or_config
    return [code for code, _ in decoder.decode_config(config)["warnings"]]


def test_warnings_flag_the_mix_ups():
    assert "factor-vs-lengths" in codes("llama-3.1-8b-instruct")  # 8 vs 131,072 / 8,192
    assert "factor-vs-lengths" not in codes("qwen2.5-7b-instruct-yarn")  # 4 = 131,072/32,768
    assert "yarn-truncate" in codes("gpt-oss-20b")
    assert "nope-layers" in codes("qwen3-next-80b-a3b-instruct")
    assert "spelling" in codes("ministral-3-8b-instruct-2512")
    assert codes("codellama-7b") == []
    assert "transformers" in codes("kimi-k2-instruct")
    assert "transformers" in codes("llama-4-scout-17b-16e-instruct")  # tuning: 4
    assert "transformers" in codes("phi-3-mini-128k-instruct")  # type "su"
    assert "transformers" not in codes("phi-4-mini-instruct")
    noop = {"head_dim": 64, "rope_scaling": {"rope_type": "linear", "factor": 1.0}}
    assert codes(noop) == ["no-op-block"]
    dynamic = {
        "head_dim": 64,
        "max_position_embeddings": 4096,
        "rope_scaling": {"rope_type": "dynamic", "factor": 2.0},
    }
    assert codes(dynamic) == ["dynamic-cache"]


def test_text_is_parsed_never_evaluated_and_errors_name_the_field():
    assert decoder.decode_text("__import__('os')")["error"].startswith("not JSON")
    assert "must be a JSON object" in decoder.decode_text("[1]")["error"]
    bad = decoder.decode_text(json.dumps({"head_dim": 64, "rope_theta": math.inf}))
    assert "error" in bad
    missing = decoder.decode_text('{"head_dim": 64, "rope_scaling": {"rope_type": "llama3"}}')
    assert missing["error"].startswith("rope_scaling['factor'] is required")
    record = decoder.decode_text(json.dumps({"model_type": "<b>x</b>", "head_dim": 64}))
    assert record["model_type"] == "<b>x</b>"  # kept as data; the page shows it as text


def test_the_output_carries_the_configs_only_inline(monkeypatch):
    from ropelab.explorables import SCRIPT_MODE_VARIABLE, config_decoder

    monkeypatch.setenv(SCRIPT_MODE_VARIABLE, "page")
    page = config_decoder("qwen3-8b").data
    assert "ropelabDecoderConfigs" not in page and 'data-default="qwen3-8b"' in page
    monkeypatch.setenv(SCRIPT_MODE_VARIABLE, "inline")
    inline = config_decoder("qwen3-8b").data
    assert "window.ropelabDecoderConfigs = {" in inline
    assert "window.ropelabDecoder = " in inline and "window.ropelabExplore = " in inline
    body = inline.split("window.ropelabDecoderConfigs = ", 1)[1].split(";\n", 1)[0]
    assert "</" not in body  # no config text can close the script early
    assert json.loads(body.replace("<\\/", "</")) == {n: load_config(n) for n in shipped_configs()}
    with pytest.raises(ValueError, match="default must be one of"):
        config_decoder("no-such-model")


def test_the_site_serves_the_decoders_scripts_in_order(tmp_path):
    """ropebook.ext.ropelab_explore: a page with the decoder gets the explorables' script,
    the configs and the decoder, in that order; the build copies all three."""
    import types

    from ropebook.ext import ropelab_explore as ext

    added: list[str] = []
    app = types.SimpleNamespace(
        add_js_file=added.append,
        outdir=str(tmp_path),
        builder=types.SimpleNamespace(format="html"),
    )
    ext._add_to_pages_with_explorables(app, "p", "page.html", {"body": "x"}, None)
    assert added == []
    body = '<div class="ropelab-decoder tex2jax_ignore">'
    ext._add_to_pages_with_explorables(app, "p", "page.html", {"body": body}, None)
    assert added == [ext.ASSET, ext.CONFIGS_ASSET, ext.DECODER_ASSET]
    ext._copy_script(app, None)
    static = tmp_path / "_static" / "ropelab"
    assert {p.name for p in static.iterdir()} == {
        "ropelab-explore.js",
        "ropelab-decoder.js",
        "ropelab-decoder-configs.js",
    }
    configs = (static / "ropelab-decoder-configs.js").read_text(encoding="utf-8")
    assert configs.startswith("window.ropelabDecoderConfigs = {")
