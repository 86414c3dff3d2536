/* ropelab-decoder.js: the config decoder of chapter 8A, in the browser, without a kernel.
 *
 * A classic script (ES2020, no dependencies, no network requests). It needs the number
 * formats of ropelab-explore.js (window.ropelabExplore.format; in Node, require), the shared
 * helpers of the book's browser code, and defines window.ropelabDecoder once:
 *   decodeText(text)      the record of ropelab.decoder.decode_text: the pasted text parsed as
 *                         JSON (never evaluated), or {error: message naming the field};
 *   decodeConfig(config)  the record of ropelab.decoder.decode_config (throws an Error
 *                         naming the field for a config it cannot read);
 *   mountAll()            wires every .ropelab-decoder element of the page; its menu lists
 *                         window.ropelabDecoderConfigs (the shipped configs, served by the
 *                         site or carried by the output).
 * In Node it exports decodeText and decodeConfig: tests/test_decoder_drift.py compares them
 * with Python on every shipped config and a few hundred seeded random ones; and view(record,
 * lang), the texts the page shows, in English or, on a page whose <html lang> starts with
 * "zh", in Chinese with the same numbers (the test checks both languages).
 *
 * Sections: (a) checks, as ropelab._checks; (b) reading a config, as
 * ropelab.config_fields.normalize_config; (c) the rope types, as ropelab.rope_config;
 * (d) the description, as ropelab.describe; (e) the decoder's additions, as
 * ropelab.decoder; (f) the view: every string from the config is inserted as text
 * (textContent), never as markup.
 */
