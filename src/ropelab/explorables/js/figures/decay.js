// Chapter 5: long-range decay. Its data (the keys of ropelab.explorables.explorable_data('decay')),
// readouts in both languages and drawing; private to this figure's block of the bundle.

// s(r) = Σ_i 2cos(rθ_i), the score of q = k = (1, ..., 1)   (ropelab.decay.ones_score)
function onesScore(r, theta) {
  let sum = 0;
  for (const t of theta) {
    sum += Math.cos(r * t);
  }
  return 2 * sum;
}

// (1/(d/2)) Σ_j |S_j| with S_j = Σ_{k<j} e^(irθ_k), RoFormer's relative upper bound
// (ropelab.decay.relative_upper_bound over ropelab.decay.partial_sums)
function relativeUpperBound(r, theta) {
  let re = 0;
  let im = 0;
  let total = 0;
  for (const t of theta) {
    re += Math.cos(r * t);
    im += Math.sin(r * t);
    total += Math.hypot(re, im);
  }
  return total / theta.length;
}

// Chapter 5 (ropelab.decay.decay_data).
function decayData(p, constants) {
  const theta = invFreq(p.dim, p.base);
  const distances = decayDistances(p.max_distance, constants.num_distances);
  return {
    dim: p.dim,
    base: p.base,
    max_distance: p.max_distance,
    distances: distances,
    ones_score: distances.map((r) => onesScore(r, theta)),
    relative_upper_bound: distances.map((r) => relativeUpperBound(r, theta)),
  };
}

// The last integer before the first gap in a sorted list that starts at 1.
function firstGap(values) {
  const gap = values.findIndex((v, i) => v !== i + 1);
  return gap === -1 ? values[values.length - 1] : gap;
}

// The numbers both readouts write, computed once: the data and the values at the first and the
// farthest distance, √d, the bound at r = 0 and the integers covered without a gap.
function decayFacts(d) {
  const last = d.distances.length - 1;
  return Object.assign({}, d, {
    score_near: d.ones_score[0],
    score_far: d.ones_score[last],
    band: Math.sqrt(d.dim),
    bound_near: d.relative_upper_bound[0],
    bound_far: d.relative_upper_bound[last],
    bound_zero: (d.dim / 2 + 1) / 2,
    count: d.distances.length,
    contiguous: firstGap(d.distances),
  });
}

function decayReadout(d) {
  const far = formatNumber(d.max_distance);
  return [
    `ones score: s(1) = ${fmtF(d.score_near, 3)}, s(${far}) = ${fmtF(d.score_far, 3)}; band ±√d = ±${fmtF(d.band, 3)}`,
    `relative upper bound: ${fmtF(d.bound_near, 3)} at r = 1, ${fmtF(d.bound_far, 3)} at r = ${far} (${fmtF(d.bound_zero, 1)} at r = 0)`,
    `${d.count} distances, every integer up to ${d.contiguous}`,
  ].join('\n');
}

function decayReadoutZh(d) {
  const far = formatNumber(d.max_distance);
  return [
    `全一向量的分数：s(1) = ${fmtF(d.score_near, 3)}，s(${far}) = ${fmtF(d.score_far, 3)}；范围 ±√d = ±${fmtF(d.band, 3)}`,
    `相对上界：r = 1 处为 ${fmtF(d.bound_near, 3)}，r = ${far} 处为 ${fmtF(d.bound_far, 3)}（r = 0 处为 ${fmtF(d.bound_zero, 1)}）`,
    `共 ${d.count} 个距离，${d.contiguous} 以内的每个整数都在其中`,
  ].join('\n');
}

// Chapter 5: the ones score with the band ±√d, and the relative upper bound, on a
// logarithmic distance axis.
function drawDecay(svg, d) {
  const distanceAxis = { min: 1, max: d.max_distance, log: true, maxTicks: 6, label: 'distance r (log scale)' };
  const left = panel(svg, { x: 72, y: 60, w: 260, h: 260 }, {
    x: distanceAxis,
    y: { min: -1.05 * d.dim, max: 1.05 * d.dim, label: 'score s(r) of q = k = 1' },
    title: 'ones score',
  });
  const floor = Math.sqrt(d.dim);
  area(left, 1, d.max_distance, -floor, floor, COLOURS.neutral, 0.25);
  hline(left, 0, { color: COLOURS.neutral, width: 0.8 });
  line(left, d.distances, d.ones_score, { color: COLOURS.query, width: 0.9 });

  const top = (1.05 * (d.dim / 2 + 1)) / 2;
  const right = panel(svg, { x: 420, y: 60, w: 260, h: 260 }, {
    x: distanceAxis,
    y: { min: 0, max: top, label: 'relative upper bound', labelGap: 42 },
    title: 'RoFormer\u2019s relative upper bound',
  });
  line(right, d.distances, d.relative_upper_bound, { color: COLOURS.key, width: 1.1 });

  text(svg, WIDTH / 2, 20, `d = ${d.dim}, base = ${formatNumber(d.base)}, r up to ${formatNumber(d.max_distance)}`, { anchor: 'middle', size: 14 });
  legend(svg, 60, 384, [
    { text: 's(r) = Σ_{i} 2cos(rθ_{i})', color: COLOURS.query, width: 1.5 },
    { text: `band ±√d = ±${floor.toFixed(2)}`, color: COLOURS.neutral, kind: 'box', opacity: 0.35 },
  ]);
  legend(svg, 410, 384, [
    { text: '(1/(d/2)) Σ_{j} |S_{j}|,  S_{j} = Σ_{k<j} e^{irθₖ}', color: COLOURS.key, width: 1.5 },
  ]);
}

register('decay', {
  compute: decayData,
  draw: drawDecay,
  facts: decayFacts,
  readouts: { en: decayReadout, zh: decayReadoutZh },
  height: 420,
  split: 350,
});
