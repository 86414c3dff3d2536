"""The config decoder of chapter 8A on the built page, in Chromium, offline.

The decoder mounts with its default config; its record (``root.ropelabRecord``) equals
:func:`ropelab.decoder.decode_text` for that config, for another shipped config picked in the
menu, and for a pasted one. A pasted ``model_type`` holding markup shows as text and runs
nothing; text that is not JSON, and a config with a missing field, show a message naming the
problem. The page asks the network for nothing and logs no error. Screenshots of the decoder
at 1280 and 390 px go to the screenshots folder.
"""

from __future__ import annotations

import json

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
    assert "36 layers apply no RoPE" in root.inner_text()

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
