// The script's API, after every figure has registered: in Node (`require`) only the pure
// functions (the drift checks compare them with Python), in the browser the same object
// becomes window.ropelabExplore with the mounting functions (mount.js). `core` is every name
// of the core parts (the bundle writes it): the config decoder reads the rope mathematics,
// the formats and the language from it, so the browser code has one copy of each.
const api = {
  kinds: Object.keys(KINDS),
  compute: compute,
  readout: readout,
  controlLabel: controlLabel,
  optionText: optionText,
  language: language,
  translations: { labels: LABELS_ZH, options: OPTIONS_ZH },
  clamp: clamp,
  sliderValues: sliderValues,
  format: { fixed: fmtF, exponential: fmtE, general: fmtG, signedInt: fmtSignedInt, number: formatNumber },
  core: core,
};
if (typeof module === 'object' && module.exports) {
  module.exports = api;
}
if (!inBrowser) {
  return;
}
