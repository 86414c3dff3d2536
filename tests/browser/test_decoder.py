"""The config decoder of chapter 8A on the built page, in Chromium, offline.

The decoder mounts with its default config; its record (``root.ropelabRecord``) equals
:func:`ropelab.decoder.decode_text` for that config, for another shipped config picked in the
menu, and for a pasted one. A pasted ``model_type`` holding markup shows as text and runs
nothing; text that is not JSON, and a config with a missing field, show a message naming the
problem. The page asks the network for nothing and logs no error. Screenshots of the decoder
at 1280 and 390 px go to the screenshots folder. A hybrid stack (Qwen3-Next: linear
attention and attention with RoPE) shows its layer map, and a stack without RoPE shows its
map and no base.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ropelab.configs import load_config
from ropelab.decoder import decode_text
from tests.test_decoder_drift import compare

PAGE = "notebooks/08a_engines_and_checkpoints.html"

RECORD = "() => document.querySelector('.ropelab-decoder').ropelabRecord"

PASTE = """text => {
    const root = document.querySelector('.ropelab-decoder');
    root.querySelector('textarea').value = text;
    root.querySelector('button').click();
    return root.ropelabRecord;
}"""

PICK = """name => {
    const select = document.querySelector('.ropelab-decoder select');
    select.value = name;
    select.dispatchEvent(new Event('change'));
    return document.querySelector('.ropelab-decoder').ropelabRecord;
}"""


def test_the_decoder_on_the_page(open_page, screenshots_dir):
    page, log = open_page(PAGE)
    root = page.locator(".ropelab-decoder")
    assert root.get_attribute("data-mounted") == "true"
    record = page.evaluate(RECORD)
    compare("olmo-3-7b", decode_text(json.dumps(load_config("olmo-3-7b"))), record)
    assert root.locator(".ropelab-decoder-layer").count() == 2
    assert root.locator("svg path").count() >= 4, "the figures are not drawn"
    root.scroll_into_view_if_needed()
    root.screenshot(path=str(screenshots_dir / "decoder-1280.png"))

    record = page.evaluate(PICK, "qwen3-next-80b-a3b-instruct")
    text = json.dumps(load_config("qwen3-next-80b-a3b-instruct"), indent=2)
    compare("qwen3-next", decode_text(text), record)
    layer_map = root.locator(".ropelab-decoder-map")
    assert "layer map (48 layers)" in layer_map.inner_text()
    assert "36 linear attention" in layer_map.inner_text()

    markup = {"model_type": '<img src=x onerror="window.hacked=1">', "head_dim": 64}
    record = page.evaluate(PASTE, json.dumps(markup))
    compare("markup", decode_text(json.dumps(markup)), record)
    assert root.locator(".ropelab-decoder-output img").count() == 0
    assert "<img src=x" in root.locator(".ropelab-decoder-output").inner_text()
    assert page.evaluate("() => window.hacked") is None

    record = page.evaluate(PASTE, '{"head_dim": 64, "rope_scaling": {"rope_type": "linear"}}')
    assert "rope_scaling['factor'] is required" in record["error"]
    alert = root.locator("[role=alert]")
    assert "rope_scaling['factor'] is required" in alert.inner_text()
    record = page.evaluate(PASTE, '{"head_dim": 64,')
    assert record["error"].startswith("not JSON")
    assert alert.inner_text().startswith("Cannot decode this config: not JSON")

    assert log.console_errors == [], f"console errors: {log.console_errors}"
    assert log.page_errors == [], f"page errors: {log.page_errors}"
    assert log.external_requests == [], f"requests to the network: {log.external_requests}"


def test_the_decoder_at_390_px(open_page, screenshots_dir):
    page, log = open_page(PAGE, width=390, height=844)
    root = page.locator(".ropelab-decoder")
    record = page.evaluate(PICK, "llama-3.2-1b-instruct")
    compare(
        "llama-3.2", decode_text(json.dumps(load_config("llama-3.2-1b-instruct"), indent=2)), record
    )
    width = page.evaluate("() => document.querySelector('.ropelab-decoder').scrollWidth")
    box = root.bounding_box()
    assert width <= box["width"] + 1, f"the decoder overflows: {width} > {box['width']}"
    root.scroll_into_view_if_needed()
    root.screenshot(path=str(screenshots_dir / "decoder-390.png"))
    assert log.page_errors == [] and log.external_requests == []


#: Where the hybrid screenshots go (outside the repository; ROPELAB_HYBRID_SHOTS to move them).
HYBRID_SHOTS = Path(os.environ.get("ROPELAB_HYBRID_SHOTS", "/tmp/ropelab-decoder-hybrid"))

#: A stack without RoPE: Jamba's attention has no rotary embedding (transformers 5.23).
NO_ROPE = {
    "model_type": "jamba",
    "num_hidden_layers": 8,
    "hidden_size": 1024,
    "num_attention_heads": 8,
}


def test_a_hybrid_stack_shows_its_layer_map(open_page):
    HYBRID_SHOTS.mkdir(parents=True, exist_ok=True)
    text = json.dumps(load_config("qwen3-next-80b-a3b-instruct"), indent=2)
    for width, height in ((1280, 900), (390, 844)):
        page, log = open_page(PAGE, width=width, height=height)
        root = page.locator(".ropelab-decoder")
        record = page.evaluate(PASTE, text)
        compare("qwen3-next pasted", decode_text(text), record)
        layer_map = root.locator(".ropelab-decoder-map")
        rows = layer_map.locator("tr").all_inner_texts()
        assert len(rows) == 2, rows
        assert rows[0].startswith("36 linear attention") and "0-2, 4-6, 8-10, …, 44-46" in rows[0]
        assert rows[1].startswith("12 attention with RoPE")
        assert "3, 7, …, 47: default, base 10,000,000" in rows[1]
        assert "linear attention blocks have no positions to rotate" in layer_map.inner_text()
        assert root.locator(".ropelab-decoder-layer").count() == 1
        width_now = page.evaluate("() => document.querySelector('.ropelab-decoder').scrollWidth")
        assert width_now <= root.bounding_box()["width"] + 1
        root.locator("h4").evaluate("e => e.scrollIntoView({block: 'start'})")
        page.screenshot(path=str(HYBRID_SHOTS / f"decoder-qwen3-next-{width}.png"))

        record = page.evaluate(PASTE, json.dumps(NO_ROPE))
        compare("no rope", decode_text(json.dumps(NO_ROPE)), record)
        assert record["layers"] == []
        output = root.locator(".ropelab-decoder-output").inner_text()
        assert "no layer applies RoPE; layer map (8 layers):" in output
        # Jamba's default attn_layer_period 8, attn_layer_offset 4: layer 4 attends
        assert "7 state-space" in output and "1 attention without RoPE" in output
        assert "jamba's attention has no rotary" in output
        assert "converter writes no rope key" in output  # never an empty GGUF table
        assert "base" not in output and root.locator(".ropelab-decoder-layer").count() == 0
        if width == 390:
            root.locator("h4").evaluate("e => e.scrollIntoView({block: 'start'})")
            page.screenshot(path=str(HYBRID_SHOTS / "decoder-no-rope-390.png"))
        assert log.page_errors == [] and log.external_requests == []
