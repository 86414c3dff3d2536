// Chapter 4: the θ_i spectrum. Its data (the keys of ropelab.explorables.explorable_data('spectrum')),
// readouts in both languages and drawing; private to this figure's block of the bundle.

// Chapter 4 (ropelab.spectrum.spectrum_data with a reference base).
function spectrumData(p, constants) {
  const theta = invFreq(p.dim, p.base);
  const wavelength = theta.map((t) => TWO_PI / t);
  const nFull = fullPeriodPlanes(p.dim, p.train_len, p.base);
  return {
    dim: p.dim,
    base: p.base,
    train_len: p.train_len,
    plane: range(p.dim / 2),
    theta: theta,
    wavelength: wavelength,
    // turns_i = T_train / λ_i
    turns: wavelength.map((lambda) => p.train_len / lambda),
    full_period: wavelength.map((lambda) => lambda <= p.train_len),
    theta_threshold: TWO_PI / p.train_len,
    // (d/2) log_β(T_train/2π): the real plane index whose wavelength is exactly T_train
    boundary: ((p.dim / 2) * Math.log(p.train_len / TWO_PI)) / Math.log(p.base),
    n_planes: p.dim / 2,
    n_full: nFull,
    n_partial: p.dim / 2 - nFull,
    critical_dim: criticalDim(p.dim, p.train_len, p.base),
    reference_base: constants.reference_base,
    reference_theta: invFreq(p.dim, constants.reference_base),
  };
}

// The numbers both readouts write, computed once: the data and the shortest and longest wavelengths.
function spectrumFacts(d) {
  return Object.assign({}, d, { shortest: d.wavelength[0], longest: d.wavelength[d.wavelength.length - 1] });
}

function spectrumReadout(d) {
  return [
    `full period within T_train = ${formatNumber(d.train_len)} tokens in ${d.n_full} of ${count(d.n_planes, 'plane')}`,
    `  (λ_i ≤ T_train, i.e. θ_i ≥ 2π/T_train = ${fmtG(d.theta_threshold, 4)}); ${d.n_partial} do not`,
    `boundary (d/2)·log_β(T_train/2π) = ${fmtF(d.boundary, 3)}; d_extra = ${d.critical_dim}`,
    `wavelengths from ${formatNumber(d.shortest)} to ${formatNumber(d.longest)} tokens`,
  ].join('\n');
}

function spectrumReadoutZh(d) {
  return [
    `${countZh(d.n_planes, '子空间')}中有 ${d.n_full} 个在 T_train = ${formatNumber(d.train_len)} 个 token 内转满全周期`,
    `  （λ_i ≤ T_train，即 θ_i ≥ 2π/T_train = ${fmtG(d.theta_threshold, 4)}）；其余 ${d.n_partial} 个没有`,
    `分界 (d/2)·log_β(T_train/2π) = ${fmtF(d.boundary, 3)}；d_extra = ${d.critical_dim}`,
    `周期从 ${formatNumber(d.shortest)} 到 ${formatNumber(d.longest)} 个 token`,
  ].join('\n');
}

// Chapter 4: left, θ_i on a log axis with the threshold 2π/T_train and the reference base;
// right, each plane's period as a bar against the training window.
function drawSpectrum(svg, d, constants) {
  const colours = d.full_period.map((full) => (full ? COLOURS.accent : COLOURS.key));
  const planeAxis = { min: -0.5, max: d.n_planes - 0.5, integer: true, label: 'plane index i' };
  const thetaDomain = logDomain(d.theta.concat(d.reference_theta, [d.theta_threshold]), 0.05);
  const left = panel(svg, { x: 72, y: 60, w: 250, h: 270 }, {
    x: planeAxis,
    y: Object.assign({ log: true, maxTicks: 9, label: 'θ_{i} (radians per token)' }, thetaDomain),
    title: 'frequencies θ_{i} = β^{-2i/d}',
  });
  line(left, d.plane, d.reference_theta, { color: COLOURS.neutral, width: 1.2, dash: '5 3' });
  hline(left, d.theta_threshold, { color: COLOURS.neutral, width: 1.2, dash: '2 3' });
  lineLabels(left, [{ value: d.theta_threshold, text: '2π/T_{train}', color: COLOURS.neutral }], 'right');
  markers(left, d.plane, d.theta, { colors: colours, r: d.n_planes > 64 ? 2 : 2.8 });

  const longest = Math.max(Math.max.apply(null, d.wavelength), d.train_len);
  const right = panel(svg, { x: 430, y: 60, w: 250, h: 270 }, {
    x: { min: 1, max: Math.pow(10, Math.ceil(Math.log10(longest * 1.5))), log: true, maxTicks: 5, label: 'wavelength λ_{i} (tokens)' },
    y: Object.assign({ reverse: true, labelGap: 40 }, planeAxis),
    title: 'periods against T_{train}',
  });
  area(right, 1, d.train_len, -0.5, d.n_planes - 0.5, COLOURS.query, 0.1);
  hbars(right, d.plane, 1, d.wavelength, colours, 0.7);
  vline(right, d.train_len, { color: COLOURS.query, width: 1.4 });

  text(svg, WIDTH / 2, 20, `d = ${d.dim}, β = ${formatNumber(d.base)}, T_{train} = ${formatNumber(d.train_len)}: full period in ${d.n_full} of ${count(d.n_planes, 'plane')}`, { anchor: 'middle', size: 14 });
  legend(svg, 60, 392, [
    { text: `full period within T_{train}: ${count(d.n_full, 'plane')}`, color: COLOURS.accent, kind: 'dot' },
    { text: `no full period: ${count(d.n_partial, 'plane')}`, color: COLOURS.key, kind: 'dot' },
  ]);
  legend(svg, 380, 392, [
    { text: `β = ${formatNumber(constants.reference_base)} for comparison`, color: COLOURS.neutral, width: 1.2, dash: '5 3' },
    { text: `training window, T_{train} = ${formatNumber(d.train_len)}`, color: COLOURS.query, kind: 'box', opacity: 0.25 },
  ]);
}

register('spectrum', {
  compute: spectrumData,
  draw: drawSpectrum,
  facts: spectrumFacts,
  readouts: { en: spectrumReadout, zh: spectrumReadoutZh },
  height: 440,
  split: 360,
});
