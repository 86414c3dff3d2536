// The drift check's Node side (tests/test_explorable_drift.py): reads JSON from stdin,
//   {"script": path of ropelab-explore.js, "figures": {kind: {controls, constants}},
//    "settings": [{"kind", "raw": {name: value}}]}
// where a number that JSON cannot carry is {"special": "NaN" | "Infinity" | "-Infinity"};
// writes {"kinds", "sliders": {kind: {name: [values]}}, "translations": {labels, options},
//         "results": [{clamped, data, readout, readout_zh}]}
// (readout_zh: the readout of a Chinese page, lang "zh-CN").
'use strict';

const fs = require('fs');

const request = JSON.parse(fs.readFileSync(0, 'utf8'));
const explore = require(request.script);

function decode(value) {
  if (value && typeof value === 'object' && !Array.isArray(value) && 'special' in value) {
    return Number(value.special);
  }
  return value;
}

const sliders = {};
for (const [kind, figure] of Object.entries(request.figures)) {
  sliders[kind] = {};
  for (const control of figure.controls) {
    if (!control.options) {
      sliders[kind][control.name] = explore.sliderValues(control);
    }
  }
}

const results = request.settings.map((setting) => {
  const figure = request.figures[setting.kind];
  const raw = {};
  for (const [name, value] of Object.entries(setting.raw)) {
    raw[name] = decode(value);
  }
  const clamped = explore.clamp(figure.controls, raw);
  const data = explore.compute(setting.kind, clamped, figure.constants);
  return {
    clamped: clamped,
    data: data,
    readout: explore.readout(setting.kind, data),
    readout_zh: explore.readout(setting.kind, data, 'zh-CN'),
  };
});

const translations = explore.translations || { labels: {}, options: {} };
process.stdout.write(
  JSON.stringify({ kinds: explore.kinds, sliders: sliders, translations: translations, results: results }),
);
