// The decoder's Node side (tests/test_decoder_drift.py): reads JSON from stdin,
//   {"script": path of ropelab-decoder.js, "texts": [pasted text, ...]}
// and writes [decodeText(text), ...].
'use strict';

const fs = require('fs');

const request = JSON.parse(fs.readFileSync(0, 'utf8'));
const decoder = require(request.script);
process.stdout.write(JSON.stringify(request.texts.map((text) => decoder.decodeText(text))));
