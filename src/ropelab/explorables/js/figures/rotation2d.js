// Chapter 1: the 2D rotation. Its data (the keys of ropelab.explorables.explorable_data('rotation2d')),
// readouts in both languages and drawing; private to this figure's block of the bundle.

// qᵀ R_r k with R_r = R(rθ), r = n − m   (ropelab.rotation2d.relative_score_2d)
function relativeScore2d(q, k, offset, theta) {
  const turned = rotate2d(k, offset * theta);
  return q[0] * turned[0] + q[1] * turned[1];
}

// Chapter 1 (ropelab.rotation2d.relative_rotation_data): q, k turned by their positions
// and by a shift s of both.
function rotationData(p, constants) {
  const { q, k } = constants;
  const shifts = range(constants.max_shift + 1);
  return {
    m: p.m,
    n: p.n,
    theta: p.theta,
    shift: p.shift,
    q: q,
    k: k,
    rotated_q: rotate2d(q, p.m * p.theta),
    rotated_k: rotate2d(k, p.n * p.theta),
    shifted_q: rotate2d(q, (p.m + p.shift) * p.theta),
    shifted_k: rotate2d(k, (p.n + p.shift) * p.theta),
    score: ropeScore2d(q, k, p.m, p.n, p.theta),
    shifted_score: ropeScore2d(q, k, p.m + p.shift, p.n + p.shift, p.theta),
    relative_score: relativeScore2d(q, k, p.n - p.m, p.theta),
    key_only_score: ropeScore2d(q, k, p.m, p.n + p.shift, p.theta),
    // ropelab.rotation2d.shifted_scores over s = 0 .. max_shift
    shifts: shifts,
    both: shifts.map((s) => ropeScore2d(q, k, p.m + s, p.n + s, p.theta)),
    key_only: shifts.map((s) => ropeScore2d(q, k, p.m, p.n + s, p.theta)),
  };
}

// The numbers both readouts write, computed once: the data and the gap between the two scores and
// the offset n − m.
function rotationFacts(d) {
  return Object.assign({}, d, { gap: Math.abs(d.score - d.shifted_score), offset: d.n - d.m });
}

function rotationReadout(d) {
  const gapText = d.gap < 1e-12 ? 'less than 1e-12 (rounding)' : fmtE(d.gap, 2);
  return [
    `m = ${d.m}, n = ${d.n}, θ = ${fmtF(d.theta, 2)} rad, shift s = ${d.shift}`,
    `score(m, n)         (R_m q)·(R_n k)          = ${fmtF(d.score, 6, { plus: true })}`,
    `score(m + s, n + s) (R_m+s q)·(R_n+s k)      = ${fmtF(d.shifted_score, 6, { plus: true })}`,
    `relative form       qᵀ R_(n−m) k, n − m = ${fmtSignedInt(d.offset)} = ${fmtF(d.relative_score, 6, { plus: true })}`,
    `key moved alone     (R_m q)·(R_n+s k)        = ${fmtF(d.key_only_score, 6, { plus: true })}`,
    `score(m, n) and score(m + s, n + s) differ by ${gapText}`,
  ].join('\n');
}

function rotationReadoutZh(d) {
  const gapText = d.gap < 1e-12 ? '小于 1e-12（舍入误差）' : fmtE(d.gap, 2);
  return [
    `m = ${d.m}，n = ${d.n}，θ = ${fmtF(d.theta, 2)} rad，平移 s = ${d.shift}`,
    `分数 score(m, n)         (R_m q)·(R_n k)          = ${fmtF(d.score, 6, { plus: true })}`,
    `分数 score(m + s, n + s) (R_m+s q)·(R_n+s k)      = ${fmtF(d.shifted_score, 6, { plus: true })}`,
    `相对形式                 qᵀ R_(n−m) k，n − m = ${fmtSignedInt(d.offset)} = ${fmtF(d.relative_score, 6, { plus: true })}`,
    `只移动键                 (R_m q)·(R_n+s k)        = ${fmtF(d.key_only_score, 6, { plus: true })}`,
    `score(m, n) 与 score(m + s, n + s) 相差 ${gapText}`,
  ].join('\n');
}

// Chapter 1: left, q and k turned by their positions and shifted; right, the score as both
// positions shift together, against shifting the key alone.
function drawRotation(svg, d) {
  const limit = 1.2 * Math.max(Math.hypot(d.q[0], d.q[1]), Math.hypot(d.k[0], d.k[1]));
  const plane = panel(svg, { x: 70, y: 44, w: 250, h: 250 }, {
    x: { min: -limit, max: limit, label: 'first coordinate' },
    y: { min: -limit, max: limit, label: 'second coordinate' },
    title: 'query and key in the plane',
  });
  hline(plane, 0, { color: COLOURS.neutral, width: 0.8 });
  vline(plane, 0, { color: COLOURS.neutral, width: 0.8 });
  circle(plane, Math.hypot(d.q[0], d.q[1]), { color: COLOURS.query, width: 0.8, opacity: 0.3 });
  circle(plane, Math.hypot(d.k[0], d.k[1]), { color: COLOURS.key, width: 0.8, opacity: 0.3 });
  const thin = { width: 1.2, opacity: 0.4 };
  const dashed = { width: 2, dash: '5 3', opacity: 0.75 };
  const pairs = [
    [d.q, d.k, thin],
    [d.rotated_q, d.rotated_k, { width: 2 }],
    [d.shifted_q, d.shifted_k, dashed],
  ];
  for (const [q, k, style] of pairs) {
    arrow(plane, q, Object.assign({ color: COLOURS.query }, style));
    arrow(plane, k, Object.assign({ color: COLOURS.key }, style));
  }
  const pair = [COLOURS.query, COLOURS.key];
  legend(svg, 60, 352, [
    Object.assign({ text: 'q, k (position 0)', colors: pair }, thin),
    { text: 'R_{m} q, R_{n} k', colors: pair, width: 2 },
    Object.assign({ text: 'R_{m+s} q, R_{n+s} k', colors: pair }, dashed),
  ]);

  const bound = 1.05 * Math.hypot(d.q[0], d.q[1]) * Math.hypot(d.k[0], d.k[1]);
  const chart = panel(svg, { x: 420, y: 44, w: 260, h: 250 }, {
    x: { min: 0, max: d.shifts[d.shifts.length - 1], label: 'shift s (positions)' },
    y: { min: -bound, max: bound, label: 'attention score', labelGap: 44 },
    title: 'score as both positions shift',
  });
  line(chart, d.shifts, d.key_only, { color: COLOURS.key, width: 1.2 });
  markers(chart, d.shifts, d.key_only, { color: COLOURS.key, r: 1.8 });
  line(chart, d.shifts, d.both, { color: COLOURS.query, width: 2.2 });
  vline(chart, d.shift, { color: COLOURS.neutral, width: 1, dash: '2 3' });
  markers(chart, [d.shift], [d.both[d.shift]], { color: COLOURS.query, r: 4.5 });
  legend(svg, 384, 352, [
    { text: 'both moved: (R_{m+s} q)·(R_{n+s} k)', color: COLOURS.query, width: 2.2 },
    { text: 'key moved only: (R_{m} q)·(R_{n+s} k)', color: COLOURS.key, width: 1.2 },
    { text: `current s = ${d.shift}`, color: COLOURS.query, kind: 'dot' },
  ]);
}

register('rotation2d', {
  compute: rotationData,
  draw: drawRotation,
  facts: rotationFacts,
  readouts: { en: rotationReadout, zh: rotationReadoutZh },
  height: 410,
  split: 360,
});
