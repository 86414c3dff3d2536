// The controls: ropelab.interactive.controls.

// The nearest integer, halves up (Math.round; ropelab.interactive.controls.round_half_up).
function roundHalfUp(x) {
  const whole = Math.floor(x);
  return x - whole >= 0.5 ? whole + 1 : whole;
}

// One control's value moved into its range: a value that is not a finite number takes the
// default, a number outside [low, high] the nearest end, whole-number controls round half up
// (even ones to a multiple of two), `floor` (the value of the control named by at_least)
// raises the lower end; a choice keeps a valid option or takes the default.
function clampOne(spec, value, floor) {
  if (spec.options) {
    if (spec.multiple) {
      const given = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
      const kept = Array.from(new Set(given.filter((v) => typeof v === 'string' && spec.options.includes(v))));
      return kept.length ? kept : spec.default.slice();
    }
    return typeof value === 'string' && spec.options.includes(value) ? value : spec.default;
  }
  let number = typeof value === 'number' && Number.isFinite(value) ? value : spec.default;
  const low = floor === null ? spec.low : Math.max(spec.low, floor);
  number = Math.min(Math.max(number, low), spec.high);
  if (spec.even) {
    number = 2 * roundHalfUp(number / 2);
    number = Math.min(Math.max(number, low), spec.high);
  } else if (spec.integer) {
    number = roundHalfUp(number);
  }
  return number;
}

// Every control's value clamped, in the controls' order (ropelab.interactive.clamp).
function clamp(controls, values) {
  const out = {};
  for (const spec of controls) {
    const floor = spec.at_least ? out[spec.at_least] : null;
    out[spec.name] = clampOne(spec, spec.name in values ? values[spec.name] : spec.default, floor);
  }
  return out;
}

// The values a slider reaches, in order: spec.low, the grid points strictly inside the
// range, spec.high. The grid is the multiples of spec.step (linear) or log_base raised to
// them (log), as in the ipywidgets slider; j / (1/step) rather than j·step keeps 0.01·j the
// decimal it stands for. Whole-number controls round each value half up.
// (ropelab.interactive.controls.Control.slider_values)
function sliderValues(spec) {
  const log = spec.scale === 'log';
  const toUnit = log ? (v) => Math.log(v) / Math.log(spec.log_base) : (v) => v;
  const perUnit = 1 / spec.step;
  const values = [spec.low];
  const first = Math.ceil(toUnit(spec.low) * perUnit - 1e-9);
  const last = Math.floor(toUnit(spec.high) * perUnit + 1e-9);
  for (let j = first; j <= last; j++) {
    const value = log ? Math.pow(spec.log_base, j / perUnit) : j / perUnit;
    if (value > spec.low + 1e-9 * Math.abs(spec.low) + 1e-12 && value < spec.high * (1 - 1e-12)) {
      values.push(value);
    }
  }
  values.push(spec.high);
  return spec.integer || spec.even ? values.map(roundHalfUp) : values;
}
