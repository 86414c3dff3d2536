// The registry of the explorables: each figure file registers itself here (its block of the
// bundle calls register), and the functions of the script's API look the figure up by kind.

// kind → {compute, draw, facts, readouts: {en, zh}, height, split}, in registration order
// (the bundle's order: the chapters').
const KINDS = {};

// Register figure `kind`: compute(params, constants) → data (the keys of
// ropelab.explorables.explorable_data), draw(svg, data, constants), facts(data) → the numbers
// both readouts write (computed once), readouts.en / readouts.zh (facts → text), the SVG
// height and, for two panels side by side, `split` (the x between them, "Equations on a
// phone" in DEVELOPERS.md).
function register(kind, figure) {
  if (Object.prototype.hasOwnProperty.call(KINDS, kind)) {
    throw new Error(`explorable ${kind} is registered twice`);
  }
  for (const key of ['compute', 'draw', 'facts']) {
    if (typeof figure[key] !== 'function') {
      throw new Error(`explorable ${kind} has no ${key} function`);
    }
  }
  if (!figure.readouts || typeof figure.readouts.en !== 'function' || typeof figure.readouts.zh !== 'function') {
    throw new Error(`explorable ${kind} needs readouts in English and Chinese`);
  }
  KINDS[kind] = figure;
}

// The data of figure `kind` for clamped parameters (ropelab.interactive: spec.compute).
function compute(kind, params, constants) {
  return KINDS[kind].compute(params, constants);
}

// The readout of figure `kind` for its data (ropelab.interactive: spec.readout), in English
// or, for a `lang` starting with "zh", in Chinese: both from the one facts(data).
function readout(kind, data, lang) {
  const figure = KINDS[kind];
  return figure.readouts[language(lang)](figure.facts(data));
}

// A control's label in the language `lang` (the English label where no Chinese is given).
function controlLabel(label, lang) {
  return language(lang) === 'zh' && Object.prototype.hasOwnProperty.call(LABELS_ZH, label) ? LABELS_ZH[label] : label;
}

// The text a menu shows for option `value` of control `name`.
function optionText(name, value, lang) {
  const table = language(lang) === 'zh' ? OPTIONS_ZH[name] : null;
  return table && Object.prototype.hasOwnProperty.call(table, value) ? table[value] : value;
}
