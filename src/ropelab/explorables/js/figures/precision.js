// Chapter 3A: the angles' precision. Its data (the keys of ropelab.explorables.explorable_data('precision')),
// readouts in both languages and drawing; private to this figure's block of the bundle.

// Chapter 3A's precision: a double rounded to a dtype, ties to even; float32 by Math.fround,
// float16 and bfloat16 to p significant bits with the spacing of the smallest normal below
// it and ±Infinity past the largest finite value   (ropelab.precision.round_to_dtype)
const DTYPE_FORMATS = { float16: [11, -14, 15], bfloat16: [8, -126, 127] };

function roundToDtype(x, dtype) {
  if (dtype === 'float64' || x === 0 || !Number.isFinite(x)) {
    return x;
  }
  if (dtype === 'float32') {
    return Math.fround(x);
  }
  const [bits, emin, emax] = DTYPE_FORMATS[dtype];
  const size = Math.abs(x);
  let exponent = Math.floor(Math.log2(size));
  if (Math.pow(2, exponent) > size) {
    exponent -= 1;
  } else if (Math.pow(2, exponent + 1) <= size) {
    exponent += 1;
  }
  const spacing = Math.pow(2, Math.max(exponent, emin) - bits + 1);
  const q = x / spacing;
  const floor = Math.floor(q);
  const rest = q - floor;
  const n = rest > 0.5 ? floor + 1 : rest < 0.5 ? floor : floor % 2 === 0 ? floor : floor + 1;
  const rounded = n * spacing;
  const largest = (2 - Math.pow(2, 1 - bits)) * Math.pow(2, emax);
  return Math.abs(rounded) > largest ? Math.sign(rounded) * Infinity : rounded;
}

// The largest angle and cos-table errors over the planes at position m, the angles formed
// as fl(fl(m)·fl(θ_i)) in `work` from θ_i rounded to `thetaDtype`, the cos rounded to
// `table`; float64 is the reference: its bound ½ulp(m) = 2^(⌊log2 m⌋ − 53), and that plus
// 2^−54 for the cos   (ropelab.precision.precision_explorer_data)
function formedErrors(m, theta, work, thetaDtype, table) {
  if (work === 'float64') {
    const half = Math.pow(2, Math.floor(Math.log2(m)) - 53);
    return { angle: half, cos: half + Math.pow(2, -54) };
  }
  let angle = 0;
  let cos = 0;
  for (const t of theta) {
    const exact = m * t;
    const frequency = roundToDtype(roundToDtype(t, thetaDtype), work);
    const approx = roundToDtype(roundToDtype(m, work) * frequency, work);
    angle = Math.max(angle, Math.abs(approx - exact));
    cos = Math.max(cos, Math.abs(roundToDtype(Math.cos(approx), table) - Math.cos(exact)));
  }
  return { angle: angle, cos: cos };
}

// [name, precision of the angles, of θ_i, of the table]   (ropelab.precision.PRECISION_SERIES)
const PRECISION_SERIES = [
  ['float64', 'float64', 'float64', 'float64'],
  ['float32', 'float32', 'float64', 'float32'],
  ['bfloat16', 'bfloat16', 'float64', 'bfloat16'],
  ['float16', 'float16', 'float64', 'float16'],
  ['bf16_theta', 'float32', 'bfloat16', 'bfloat16'],
];

// Chapter 3A (ropelab.precision.precision_explorer_data): float16's arrays stop at the last
// position it holds.
function precisionData(p, constants) {
  const theta = invFreq(p.dim, p.base);
  const positions = decayDistances(p.max_position, constants.num_positions);
  const finite = positions.filter((m) => Number.isFinite(roundToDtype(m, 'float16'))).length;
  const data = { dim: p.dim, base: p.base, max_position: p.max_position, positions: positions };
  for (const [name, work, thetaDtype, table] of PRECISION_SERIES) {
    const rows = name === 'float16' ? positions.slice(0, finite) : positions;
    const errors = rows.map((m) => formedErrors(m, theta, work, thetaDtype, table));
    data[`angle_${name}`] = errors.map((e) => e.angle);
    data[`cos_${name}`] = errors.map((e) => e.cos);
  }
  data.float16_positions = finite;
  return data;
}

// [series, label]   (ropelab.interactive.readouts.PRECISION_LABELS)
const PRECISION_LABELS = [
  ['float64', 'float64 (bound)'],
  ['float32', 'float32 angles'],
  ['bfloat16', 'bfloat16 angles'],
  ['float16', 'float16 angles'],
  ['bf16_theta', 'θ_i in bfloat16'],
];

// The numbers both readouts write, computed once: the data and per series (PRECISION_LABELS' order)
// the largest angle and cos errors and the first position whose cos error passes 0.01 (null:
// nowhere), and whether float16's curves stop early.
function precisionFacts(d) {
  const series = PRECISION_LABELS.map(([name]) => {
    const cos = d[`cos_${name}`];
    const above = cos.findIndex((c) => c > 0.01);
    return {
      name: name,
      angle: Math.max.apply(null, d[`angle_${name}`]),
      cos: Math.max.apply(null, cos),
      first: above === -1 ? null : d.positions[above],
    };
  });
  return Object.assign({}, d, { series: series, float16_stops: d.float16_positions < d.positions.length });
}

function precisionReadout(d) {
  const lines = [
    `d = ${d.dim}, base ${formatNumber(d.base)}, positions 1 to ${formatNumber(d.max_position)}; largest error over them:`,
  ];
  d.series.forEach((row, i) => {
    const label = PRECISION_LABELS[i][1];
    const first = row.first === null ? 'nowhere' : `from m = ${formatNumber(row.first)}`;
    lines.push(`${label.padEnd(17)}angle ${fmtE(row.angle, 1)} rad, cos ${fmtE(row.cos, 1)}; cos > 0.01 ${first}`);
  });
  if (d.float16_stops) {
    lines.push('float16 holds no position above 65,504: its curves stop there');
  }
  return lines.join('\n');
}

const PRECISION_LABELS_ZH = {
  float64: 'float64（基准）',
  float32: 'float32 角度',
  bfloat16: 'bfloat16 角度',
  float16: 'float16 角度',
  bf16_theta: 'θ_i 用 bfloat16',
};

function precisionReadoutZh(d) {
  const lines = [
    `d = ${d.dim}，底数 ${formatNumber(d.base)}，位置 1 到 ${formatNumber(d.max_position)}；其中的最大误差：`,
  ];
  for (const row of d.series) {
    const first = row.first === null ? '无' : `从 m = ${formatNumber(row.first)} 起`;
    lines.push(`${padWide(PRECISION_LABELS_ZH[row.name], 17)}角度 ${fmtE(row.angle, 1)} rad，cos ${fmtE(row.cos, 1)}；cos > 0.01：${first}`);
  }
  if (d.float16_stops) {
    lines.push('float16 表示不了 65,504 以上的位置：它的曲线到此为止');
  }
  return lines.join('\n');
}

// Chapter 3A: the largest angle error (left) and cos-table error (right) over the planes
// against the position, log-log, one line per way of forming the angles; points at 0 (an
// exact product) are left out, float16's lines stop at 65,504.
const PRECISION_STYLES = {
  float64: { color: COLOURS.neutral, text: 'angles in float64 (bound)' },
  float32: { color: COLOURS.query, text: 'angles in float32' },
  bfloat16: { color: COLOURS.key, text: 'angles in bfloat16' },
  float16: { color: COLOURS.accent, text: 'angles in float16' },
  bf16_theta: { color: '#9467bd', dash: '5 3', text: 'θ_{i} in bfloat16, angles in float32' },
};

function drawPrecision(svg, d) {
  const positive = (values) => values.filter((v) => v > 0);
  const every = [];
  for (const name of Object.keys(PRECISION_STYLES)) {
    every.push(...positive(d[`angle_${name}`]), ...positive(d[`cos_${name}`]));
  }
  const lo = Math.pow(10, Math.floor(Math.log10(Math.min.apply(null, every))));
  const hi = Math.pow(10, Math.ceil(Math.log10(Math.max.apply(null, every))));
  const xAxis = { min: 1, max: d.max_position, log: true, maxTicks: 6, label: 'position m (log scale)' };
  const yAxis = { min: lo, max: hi, log: true, maxTicks: 7 };
  const panels = [
    ['angle', panel(svg, { x: 72, y: 60, w: 260, h: 260 }, { x: xAxis, y: Object.assign({ label: 'error (log scale)' }, yAxis), title: 'largest angle error (rad)' })],
    ['cos', panel(svg, { x: 420, y: 60, w: 260, h: 260 }, { x: xAxis, y: yAxis, title: 'largest cos table error' })],
  ];
  hline(panels[1][1], 0.01, { color: COLOURS.neutral, width: 0.8, dash: '2 3' });
  for (const [key, p] of panels) {
    for (const [name, style] of Object.entries(PRECISION_STYLES)) {
      const values = d[`${key}_${name}`];
      const xs = [];
      const ys = [];
      values.forEach((v, i) => {
        if (v > 0) {
          xs.push(d.positions[i]);
          ys.push(v);
        }
      });
      if (xs.length) {
        line(p, xs, ys, { color: style.color, width: 1.4, dash: style.dash });
      }
    }
  }
  text(svg, WIDTH / 2, 20, `d = ${d.dim}, base = ${formatNumber(d.base)}, positions up to ${formatNumber(d.max_position)}`, { anchor: 'middle', size: 14 });
  const items = Object.values(PRECISION_STYLES).map((s) => ({ text: s.text, color: s.color, dash: s.dash, width: 2 }));
  legend(svg, 60, 378, items.slice(0, 3));
  legend(svg, 400, 378, items.slice(3).concat([{ text: 'cos error 0.01', color: COLOURS.neutral, dash: '2 3', width: 1 }]));
}

register('precision', {
  compute: precisionData,
  draw: drawPrecision,
  facts: precisionFacts,
  readouts: { en: precisionReadout, zh: precisionReadoutZh },
  height: 450,
  split: 350,
});
