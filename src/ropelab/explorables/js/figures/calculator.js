// Chapter 6: the scaling-law calculator. Its data (the keys of ropelab.explorables.explorable_data('calculator')),
// readouts in both languages and drawing; private to this figure's block of the bundle.

// The regimes of Theorem 3, named by what they mean (ropelab.scaling.REGIME_*).
const REGIME_LARGER_BASE = 'β > β0: bound = T_extra';

const REGIME_SMALLER_BASE = 'β ≤ β0: bound = T_tune';

const REGIME_EVERY_PLANE = "d'_extra = d: no hard bound (conjecture)";

// Theorem 3 (ropelab.scaling.predict): above β0 the bound is T_extra; at or below it the
// bound is T_tune with d'_extra = critical_dim(d, T_tune, β), and no bound is predicted once
// d'_extra = d (every plane completes a period within T_tune: the source's conjecture).
function predict(dim, trainLen, base, tuneLen, pretrainBase) {
  const beta0 = criticalBase(trainLen, tuneLen, pretrainBase);
  if (base > beta0) {
    return {
      regime: REGIME_LARGER_BASE,
      d_extra: criticalDim(dim, trainLen, pretrainBase),
      supported_length: extrapolationBound(base, dim, trainLen, pretrainBase),
      critical_base: beta0,
    };
  }
  const dExtra = criticalDim(dim, tuneLen, base);
  if (dExtra === dim) {
    return {
      regime: REGIME_EVERY_PLANE,
      d_extra: dim,
      supported_length: null,
      critical_base: beta0,
    };
  }
  return { regime: REGIME_SMALLER_BASE, d_extra: dExtra, supported_length: tuneLen, critical_base: beta0 };
}

// Chapter 6 (ropelab.calculator.calculator_data without the method bands).
function calculatorData(p, constants) {
  const pre = constants.pretrain_base;
  const prediction = predict(p.dim, p.train_len, p.base, p.tune_len, pre);
  return {
    dim: p.dim,
    train_len: p.train_len,
    base: p.base,
    tune_len: p.tune_len,
    planes: range(p.dim / 2),
    wavelengths: wavelengths(p.dim, p.base),
    pretrain_wavelengths: wavelengths(p.dim, pre),
    d_extra: criticalDim(p.dim, p.train_len, pre),
    full_period_planes: fullPeriodPlanes(p.dim, p.train_len, pre),
    extra_len: extrapolationBound(p.base, p.dim, p.train_len, pre),
    critical_base: prediction.critical_base,
    regime: prediction.regime,
    effective_d_extra: prediction.d_extra,
    supported_length: prediction.supported_length,
    thresholds: smallBaseThresholds(p.tune_len),
  };
}

// The numbers both readouts write: the data and which bound the prediction is ('none': no
// hard bound, 'extra': T_extra above β0, 'tune': T_tune).
function calculatorFacts(d) {
  const bound = d.supported_length === null ? 'none' : d.regime === REGIME_LARGER_BASE ? 'extra' : 'tune';
  return Object.assign({}, d, { bound: bound });
}

function calculatorReadout(d) {
  const grouped = (x) => fmtF(x, 0, { comma: true });
  const tune = grouped(d.tune_len);
  let supported;
  let original;
  if (d.bound === 'none') {
    supported = 'no hard bound (a conjecture of the source)';
    original = `T_tune = ${tune} tokens (no bound is predicted)`;
  } else if (d.bound === 'extra') {
    supported = `${grouped(d.supported_length)} tokens`;
    original = `T_extra = ${grouped(d.supported_length)} tokens, not T_tune = ${tune}`;
  } else {
    supported = `${grouped(d.supported_length)} tokens`;
    original = `T_tune = ${tune} tokens`;
  }
  const t = d.thresholds.map(grouped);
  return [
    `regime: ${d.regime}`,
    `supported length (prediction): ${supported}`,
    `d_extra = ${d.d_extra} of ${d.dim} dims (${d.full_period_planes} planes saw a full period in pre-training)`,
    `Theorem 2's T_extra = 2π·β^(d_extra/d) = ${grouped(d.extra_len)}; critical base β0 = ${formatNumber(d.critical_base)}`,
    `Theorem 1 thresholds at T_tune: β1 = ${t[0]}, β2 = ${t[1]}, β3 = ${t[2]}`,
    "a test-time method on top starts from the reliable length L0 (the paper's",
    "rule for log scaling, xPos and dynamic NTK; the book's for YaRN, Llama 3):",
    `  ${original}`,
  ].join('\n');
}

const REGIME_ZH = {};
REGIME_ZH[REGIME_LARGER_BASE] = 'β > β0：上界 = T_extra';
REGIME_ZH[REGIME_SMALLER_BASE] = 'β ≤ β0：上界 = T_tune';
REGIME_ZH[REGIME_EVERY_PLANE] = "d'_extra = d：无硬上界（猜想）";

function calculatorReadoutZh(d) {
  const grouped = (x) => fmtF(x, 0, { comma: true });
  const tune = grouped(d.tune_len);
  let supported;
  let original;
  if (d.bound === 'none') {
    supported = '无硬上界（原文的猜想）';
    original = `T_tune = ${tune} 个 token（不预测上界）`;
  } else if (d.bound === 'extra') {
    supported = `${grouped(d.supported_length)} 个 token`;
    original = `T_extra = ${grouped(d.supported_length)} 个 token，而不是 T_tune = ${tune}`;
  } else {
    supported = `${grouped(d.supported_length)} 个 token`;
    original = `T_tune = ${tune} 个 token`;
  }
  const t = d.thresholds.map(grouped);
  return [
    `情形：${REGIME_ZH[d.regime] || d.regime}`,
    `支持长度（预测）：${supported}`,
    `d_extra = ${d.d_extra}（共 ${d.dim} 维；${d.full_period_planes} 个子空间在预训练中转满了全周期）`,
    `定理 2 的 T_extra = 2π·β^(d_extra/d) = ${grouped(d.extra_len)}；临界底数 β0 = ${formatNumber(d.critical_base)}`,
    `T_tune 处定理 1 的阈值：β1 = ${t[0]}，β2 = ${t[1]}，β3 = ${t[2]}`,
    '在其上再用测试阶段的方法时，从可靠长度 L0 起算（对数校正、xPos、dynamic NTK 依论文；YaRN、Llama 3 为本书的推广）：',
    original,
  ].join('\n');
}

// Chapter 6: every plane's wavelength at β against T_train, T_tune and T_extra, filled inside
// the critical dimension that governs the prediction, open beyond it.
function drawCalculator(svg, d) {
  const critical = d.effective_d_extra / 2;
  const inside = d.planes.filter((i) => i < critical);
  const beyond = d.planes.filter((i) => i >= critical);
  const refs = [{ value: d.train_len, text: `T_{train} = ${formatNumber(d.train_len)}`, color: COLOURS.text, dash: '6 3' }];
  if (d.tune_len !== d.train_len) {
    refs.push({ value: d.tune_len, text: `T_{tune} = ${formatNumber(d.tune_len)}`, color: COLOURS.text, dash: '2 3' });
  }
  if (d.regime === REGIME_LARGER_BASE) {
    refs.push({ value: d.extra_len, text: `T_{extra} = ${formatNumber(d.extra_len)}`, color: COLOURS.accent });
  }
  const domain = logDomain(d.wavelengths.concat(d.pretrain_wavelengths, refs.map((r) => r.value)), 0.04);
  const p = panel(svg, { x: 80, y: 84, w: 600, h: 270 }, {
    x: { min: -0.5, max: d.planes.length - 0.5, integer: true, label: 'plane index i' },
    y: Object.assign({ log: true, maxTicks: 9, label: 'wavelength (tokens)', labelGap: 52 }, domain),
  });
  line(p, d.planes, d.pretrain_wavelengths, { color: COLOURS.neutral, width: 1.3 });
  if (beyond.length && inside.length) {
    vline(p, critical - 0.5, { color: COLOURS.neutral, width: 1, dash: '2 3' });
  }
  for (const ref of refs) {
    hline(p, ref.value, { color: ref.color, width: 1.2, dash: ref.dash });
  }
  const r = d.planes.length > 64 ? 2 : 2.8;
  markers(p, inside, inside.map((i) => d.wavelengths[i]), { color: COLOURS.query, r: r });
  markers(p, beyond, beyond.map((i) => d.wavelengths[i]), { color: COLOURS.key, r: r, open: true });
  // The wavelengths grow with i, so the left of the panel stays clear above the first planes.
  lineLabels(p, refs, 'left');

  const bound = d.supported_length === null ? '' : ` = ${formatNumber(d.supported_length)} tokens`;
  text(svg, WIDTH / 2, 20, `d = ${d.dim}, T_{train} = ${formatNumber(d.train_len)}, base ${formatNumber(d.base)}, T_{tune} = ${formatNumber(d.tune_len)}`, { anchor: 'middle', size: 14 });
  const regime = d.regime.replace(/T_(extra|tune)/, 'T_{$1}').replace('β0', 'β_{0}');
  text(svg, WIDTH / 2, 42, `${regime}${bound}`, { anchor: 'middle', size: 15, weight: 600 });
  text(svg, WIDTH / 2, 62, `critical base β_{0} = ${formatNumber(d.critical_base)}, critical dimension ${d.effective_d_extra} of ${d.dim}`, { anchor: 'middle', size: 14 });
  legend(svg, 70, 416, [
    { text: 'base 10,000 (pre-training)', color: COLOURS.neutral, width: 1.3 },
    { text: `base ${formatNumber(d.base)}: inside the critical dimension (${count(inside.length, 'plane')})`, color: COLOURS.query, kind: 'dot' },
    { text: `base ${formatNumber(d.base)}: beyond it (${count(beyond.length, 'plane')})`, color: COLOURS.key, kind: 'open' },
  ]);
}

register('calculator', {
  compute: calculatorData,
  draw: drawCalculator,
  facts: calculatorFacts,
  readouts: { en: calculatorReadout, zh: calculatorReadoutZh },
  height: 475,
});
