// Chapter 2: the score as a complex product. Its data (the keys of ropelab.explorables.explorable_data('complex_score')),
// readouts in both languages and drawing; private to this figure's block of the bundle.

// f_q·conj(f_k) = (a0 + i a1)(b0 − i b1) for complex numbers a = [a0, a1], b = [b0, b1]
// (ropelab.rotation2d.complex_score_data)
function conjugateProduct(a, b) {
  return [a[0] * b[0] + a[1] * b[1], a[1] * b[0] - a[0] * b[1]];
}

// Chapter 2 (ropelab.rotation2d.complex_score_data): q e^(imθ), k e^(inθ), their product
// with the conjugate, whose real part is the score.
function complexScoreData(p) {
  const q = [p.q_abs * Math.cos(p.q_arg), p.q_abs * Math.sin(p.q_arg)];
  const k = [p.k_abs * Math.cos(p.k_arg), p.k_abs * Math.sin(p.k_arg)];
  const rotatedQ = rotate2d(q, p.m * p.theta);
  const rotatedK = rotate2d(k, p.n * p.theta);
  const product = conjugateProduct(rotatedQ, rotatedK);
  return {
    q_abs: p.q_abs,
    q_arg: p.q_arg,
    k_abs: p.k_abs,
    k_arg: p.k_arg,
    m: p.m,
    n: p.n,
    theta: p.theta,
    q: q,
    k: k,
    rotated_q: rotatedQ,
    rotated_k: rotatedK,
    product: product,
    score: product[0],
    dot: ropeScore2d(q, k, p.m, p.n, p.theta),
    angle: (p.m - p.n) * p.theta,
  };
}

// The numbers both readouts write: the data itself (nothing is derived from it).
function complexScoreFacts(d) {
  return d;
}

function complexScoreReadout(d) {
  return [
    `q = ${fmtF(d.q_abs, 2)}·e^(${fmtF(d.q_arg, 2)}i), k = ${fmtF(d.k_abs, 2)}·e^(${fmtF(d.k_arg, 2)}i), m = ${d.m}, n = ${d.n}, θ = ${fmtF(d.theta, 2)} rad`,
    `q·e^(imθ) = ${complexText(d.rotated_q)},  k·e^(inθ) = ${complexText(d.rotated_k)}`,
    `q·conj(k)·e^(i(m−n)θ) = ${complexText(d.product)}, (m − n)θ = ${fmtF(d.angle, 4, { plus: true })} rad`,
    `score: its real part ${fmtF(d.score, 6, { plus: true })}; (R_m q)·(R_n k) = ${fmtF(d.dot, 6, { plus: true })}`,
  ].join('\n');
}

function complexScoreReadoutZh(d) {
  return [
    `q = ${fmtF(d.q_abs, 2)}·e^(${fmtF(d.q_arg, 2)}i)，k = ${fmtF(d.k_abs, 2)}·e^(${fmtF(d.k_arg, 2)}i)，m = ${d.m}，n = ${d.n}，θ = ${fmtF(d.theta, 2)} rad`,
    `q·e^(imθ) = ${complexText(d.rotated_q)}，  k·e^(inθ) = ${complexText(d.rotated_k)}`,
    `q·conj(k)·e^(i(m−n)θ) = ${complexText(d.product)}，(m − n)θ = ${fmtF(d.angle, 4, { plus: true })} rad`,
    `分数取它的实部：${fmtF(d.score, 6, { plus: true })}；(R_m q)·(R_n k) = ${fmtF(d.dot, 6, { plus: true })}`,
  ].join('\n');
}

// Chapter 2: the complex plane with q, k, q e^(imθ), k e^(inθ) and their product with the
// conjugate, its real part (the score) marked on the real axis.
function drawComplexScore(svg, d) {
  const radius = (z) => Math.hypot(z[0], z[1]);
  const limit = 1.15 * Math.max(radius(d.q), radius(d.k), radius(d.product), 1e-9);
  const plane = panel(svg, { x: 150, y: 66, w: 320, h: 320 }, {
    x: { min: -limit, max: limit, label: 'real part' },
    y: { min: -limit, max: limit, label: 'imaginary part' },
    title: 'the score is the real part of a complex product',
  });
  hline(plane, 0, { color: COLOURS.neutral, width: 0.8 });
  vline(plane, 0, { color: COLOURS.neutral, width: 0.8 });
  circle(plane, radius(d.q), { color: COLOURS.query, width: 0.8, opacity: 0.3 });
  circle(plane, radius(d.k), { color: COLOURS.key, width: 0.8, opacity: 0.3 });
  const thin = { width: 1.2, opacity: 0.4 };
  arrow(plane, d.q, Object.assign({ color: COLOURS.query }, thin));
  arrow(plane, d.k, Object.assign({ color: COLOURS.key }, thin));
  arrow(plane, d.rotated_q, { color: COLOURS.query, width: 2 });
  arrow(plane, d.rotated_k, { color: COLOURS.key, width: 2 });
  const drop = stroke({ color: COLOURS.accent, width: 1.2, dash: '2 3' });
  drop.d = `M${plane.x(d.product[0]).toFixed(1)} ${plane.y(d.product[1]).toFixed(1)}V${plane.y(0).toFixed(1)}`;
  svgNode('path', drop, plane.svg);
  arrow(plane, d.product, { color: COLOURS.accent, width: 2.6 });
  markers(plane, [d.product[0]], [0], { color: COLOURS.accent, r: 4.5 });
  text(svg, WIDTH / 2, 22, `m = ${d.m}, n = ${d.n}, θ = ${fmtF(d.theta, 2)}: score = Re[q·conj(k)·e^{i(m−n)θ}] = ${fmtF(d.score, 4, { plus: true })}`, { anchor: 'middle', size: 14 });
  legend(svg, 500, 100, [
    Object.assign({ text: 'q, k', colors: [COLOURS.query, COLOURS.key] }, thin),
    { text: 'q e^{imθ}, k e^{inθ}', colors: [COLOURS.query, COLOURS.key], width: 2 },
    { text: 'q·conj(k)·e^{i(m−n)θ}', color: COLOURS.accent, width: 2.6 },
    { text: 'its real part: the score', color: COLOURS.accent, kind: 'dot' },
  ]);
}

register('complex_score', {
  compute: complexScoreData,
  draw: drawComplexScore,
  facts: complexScoreFacts,
  readouts: { en: complexScoreReadout, zh: complexScoreReadoutZh },
  height: 440,
});
