// The decoder's Node side (tests/test_decoder_drift.py): reads JSON from stdin,
//   {"script": path of ropelab-decoder.js, "texts": [pasted text, ...], "views": optional}
// and writes [decodeText(text), ...]; with "views": true, [[view in English, view in
// Chinese], ...] instead (the texts the page shows, for a page in each language).
'use strict';

const fs = require('fs');

const request = JSON.parse(fs.readFileSync(0, 'utf8'));
const decoder = require(request.script);
const records = request.texts.map((text) => decoder.decodeText(text));
const out = request.views ? records.map((r) => [decoder.view(r, 'en'), decoder.view(r, 'zh-CN')]) : records;
process.stdout.write(JSON.stringify(out));
