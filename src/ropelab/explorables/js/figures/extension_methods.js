// Chapters 6 and 8: the context-extension methods, plane by plane. Its data (the keys of ropelab.explorables.explorable_data('extension_methods')),
// readouts in both languages and drawing; private to this figure's block of the bundle.

// θ'_i and the attention factor of a method extending L_orig to L_target
// (ropelab.extension.method_frequencies, through ropelab.frequencies_from_config)
function methodFrequencies(p) {
  const factor = p.target_len / p.original_len;
  const theta = invFreq(p.dim, p.base);
  switch (p.method) {
    case 'PI':
      return { theta: theta.map((t) => t / factor), attention: 1 };
    case 'NTK-aware':
      return { theta: invFreq(p.dim, p.base * Math.pow(factor, p.dim / (p.dim - 2))), attention: 1 };
    case 'dynamic NTK': {
      const base = dynamicNtkBase(p.base, p.dim, factor, p.target_len, p.original_len);
      return { theta: invFreq(p.dim, base), attention: 1 };
    }
    case 'YaRN': {
      const weight = yarnRamp(p.dim, p.base, p.original_len, p.beta_fast, p.beta_slow);
      const scaled = theta.map((t, i) => (1 - weight[i]) * t + weight[i] * (t / factor));
      return { theta: scaled, attention: yarnAttentionFactor(factor) };
    }
    case 'Llama 3':
      return {
        theta: llama3Frequencies(theta, factor, p.original_len, p.low_freq_factor, p.high_freq_factor),
        attention: 1,
      };
    default: {
      const factors = illustrativeLongropeFactors(p.dim, factor);
      const rescale = p.target_len > p.original_len ? factors.long : factors.short;
      return {
        theta: theta.map((t, i) => t / rescale[i]),
        attention: longropeAttentionFactor(factor, p.original_len),
      };
    }
  }
}

// Chapters 6 and 8 (ropelab.extension.method_explorer_data): each plane before and after.
function extensionMethodsData(p) {
  const factor = p.target_len / p.original_len;
  const theta = invFreq(p.dim, p.base);
  const after = methodFrequencies(p);
  const ratio = after.theta.map((t, i) => t / theta[i]);
  const band = ratio.map((r) => (Math.abs(r - 1) <= 1e-9 ? 0 : Math.abs(r * factor - 1) <= 1e-9 ? 2 : 1));
  const counted = (value) => band.filter((b) => b === value).length;
  return {
    method: p.method,
    dim: p.dim,
    base: p.base,
    original_len: p.original_len,
    target_len: p.target_len,
    beta_fast: p.beta_fast,
    beta_slow: p.beta_slow,
    low_freq_factor: p.low_freq_factor,
    high_freq_factor: p.high_freq_factor,
    factor: factor,
    planes: range(p.dim / 2),
    wavelength_before: theta.map((t) => TWO_PI / t),
    wavelength_after: after.theta.map((t) => TWO_PI / t),
    ratio: ratio,
    band: band,
    kept: counted(0),
    stretched: counted(1),
    interpolated: counted(2),
    attention_factor: after.attention,
    critical_dim: criticalDim(p.dim, p.original_len, p.base),
    full_period_planes: fullPeriodPlanes(p.dim, p.original_len, p.base),
  };
}

// The numbers both readouts write, computed once: the data and the longest wavelength before and after.
function extensionMethodsFacts(d) {
  const last = d.planes.length - 1;
  return Object.assign({}, d, { longest_before: d.wavelength_before[last], longest_after: d.wavelength_after[last] });
}

function extensionMethodsReadout(d) {
  const grouped = (x) => fmtF(x, 0, { comma: true });
  return [
    `${d.method}, s = ${fmtG(d.factor, 4)} (${grouped(d.original_len)} → ${grouped(d.target_len)} tokens): ${d.kept} planes kept, ${d.stretched} stretched, ${d.interpolated} interpolated`,
    `attention factor ${fmtF(d.attention_factor, 4)}; d_extra = ${d.critical_dim} of ${d.dim} at the original length (${d.full_period_planes} planes saw a full period)`,
    `longest wavelength ${formatNumber(d.longest_before)} → ${formatNumber(d.longest_after)} tokens`,
  ].join('\n');
}

function extensionMethodsReadoutZh(d) {
  const grouped = (x) => fmtF(x, 0, { comma: true });
  return [
    `${d.method}，s = ${fmtG(d.factor, 4)}（${grouped(d.original_len)} → ${grouped(d.target_len)} 个 token）：保留 ${d.kept} 个子空间，拉伸 ${d.stretched} 个，内插 ${d.interpolated} 个`,
    `注意力因子 ${fmtF(d.attention_factor, 4)}；原始长度下 d_extra = ${d.critical_dim}（共 ${d.dim} 维；${d.full_period_planes} 个子空间转满了全周期）`,
    `最长周期 ${formatNumber(d.longest_before)} → ${formatNumber(d.longest_after)} 个 token`,
  ].join('\n');
}

// The numbers of ropelab.widgets.extension.summary_text.
// Chapters 6 and 8: each plane's wavelength before (grey) and after the method (coloured by
// band) against the original and target lengths, and the bands as a strip.
function drawExtensionMethods(svg, d) {
  const bandColours = [COLOURS.query, '#f4b183', '#c0504d'];
  const bandNames = ['kept', 'stretched', 'interpolated'];
  const refs = [
    { value: d.original_len, text: `original ${formatNumber(d.original_len)}`, color: COLOURS.key, dash: '6 3' },
    { value: d.target_len, text: `target ${formatNumber(d.target_len)}`, color: COLOURS.key, dash: '2 3' },
  ];
  const domain = logDomain(d.wavelength_before.concat(d.wavelength_after, [d.original_len, d.target_len]), 0.04);
  const axis = { min: -0.5, max: d.planes.length - 0.5, integer: true };
  const p = panel(svg, { x: 80, y: 62, w: 600, h: 270 }, {
    x: axis,
    y: Object.assign({ log: true, maxTicks: 9, label: 'wavelength (tokens)', labelGap: 52 }, domain),
  });
  line(p, d.planes, d.wavelength_before, { color: COLOURS.neutral, width: 1.3 });
  for (const ref of refs) {
    hline(p, ref.value, { color: ref.color, width: 1.2, dash: ref.dash });
  }
  vline(p, d.critical_dim / 2 - 0.5, { color: COLOURS.neutral, width: 1, dash: '2 3' });
  const r = d.planes.length > 64 ? 2 : 2.8;
  markers(p, d.planes, d.wavelength_after, { colors: d.band.map((b) => bandColours[b]), r: r });
  lineLabels(p, refs, 'left');
  const strip = panel(svg, { x: 80, y: 346, w: 600, h: 22 }, {
    x: Object.assign({ label: 'plane index i' }, axis),
    y: { min: 0, max: 1, ticks: [] },
  });
  d.band.forEach((b, i) => area(strip, i - 0.5, i + 0.5, 0, 1, bandColours[b], b === 0 ? 0.35 : 1));
  text(svg, WIDTH / 2, 20, `${d.method}: s = ${fmtG(d.factor, 4)}, ${formatNumber(d.original_len)} → ${formatNumber(d.target_len)} tokens, d = ${d.dim}, β = ${formatNumber(d.base)}`, { anchor: 'middle', size: 14 });
  text(svg, WIDTH / 2, 42, `attention factor ${fmtF(d.attention_factor, 3)}; critical dimension ${d.critical_dim} of ${d.dim} (dashed)`, { anchor: 'middle', size: 13 });
  legend(svg, 70, 420, [
    { text: 'before the method', color: COLOURS.neutral, width: 1.3 },
  ].concat(bandNames.map((name, b) => ({ text: `after: ${name} (${d[name]})`, color: bandColours[b], kind: 'dot' }))));
}

register('extension_methods', {
  compute: extensionMethodsData,
  draw: drawExtensionMethods,
  facts: extensionMethodsFacts,
  readouts: { en: extensionMethodsReadout, zh: extensionMethodsReadoutZh },
  height: 500,
});
