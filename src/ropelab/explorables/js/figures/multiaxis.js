// Chapter 9: 2D and multimodal RoPE. Its data (the keys of ropelab.explorables.explorable_data('multiaxis')),
// readouts in both languages and drawing; private to this figure's block of the bundle.

// The axis of every plane: contiguous sections (Qwen2-VL's M-RoPE), sections interleaved
// plane by plane (Qwen3-VL: plane j on height when j % 3 = 1 and j < 3·h, on width when
// j % 3 = 2 and j < 3·w, else time), or half row, half column (axial 2D)
// (ropelab.multimodal.plane_axes)
function planeAxes(allocation, planes, sections) {
  if (allocation === 'axial') {
    return range(planes).map((i) => (i < planes / 2 ? 0 : 1));
  }
  if (allocation === 'sections') {
    return sections.flatMap((count, axis) => new Array(count).fill(axis));
  }
  return range(planes).map((j) => (j % 3 === 1 && j < 3 * sections[1] ? 1 : j % 3 === 2 && j < 3 * sections[2] ? 2 : 0));
}

// Σ_i 2cos(Δ_{a(i)} θ_i): the all-ones score at an offset vector Δ
// (ropelab.multimodal.multiaxis_ones_score)
function multiaxisOnesScore(offset, theta, axes) {
  let sum = 0;
  theta.forEach((t, i) => {
    sum += Math.cos(offset[axes[i]] * t);
  });
  return 2 * sum;
}

// Chapter 9 (ropelab.multimodal.multiaxis_explorer_data): sections (t, min(h, d/2 − t), rest),
// frequencies β^(−2i/d) (axial: β^(−4j/d) for each half), the two tokens' angles and the
// all-ones score against an offset along each axis.
function multiaxisData(p, constants) {
  const planes = constants.head_dim / 2;
  const t = Math.min(p.t_planes, planes);
  const h = Math.min(p.h_planes, planes - t);
  const sections = [t, h, planes - t - h];
  const axial = p.allocation === 'axial';
  const names = axial ? ['row', 'col'] : ['t', 'h', 'w'];
  const theta = axial
    ? invFreq(constants.head_dim / 2, constants.base).concat(invFreq(constants.head_dim / 2, constants.base))
    : invFreq(constants.head_dim, constants.base);
  const axes = planeAxes(p.allocation, planes, sections);
  const a = axial ? [p.h_a, p.w_a] : [p.t_a, p.h_a, p.w_a];
  const b = axial ? [p.h_b, p.w_b] : [p.t_b, p.h_b, p.w_b];
  const delta = b.map((v, i) => v - a[i]);
  const offsets = range(2 * constants.max_offset + 1).map((k) => k - constants.max_offset);
  return {
    allocation: p.allocation,
    axis_names: names,
    axes: axes,
    theta: theta,
    position_a: a,
    position_b: b,
    angle_a: theta.map((th, i) => a[axes[i]] * th),
    angle_b: theta.map((th, i) => b[axes[i]] * th),
    relative_angle: theta.map((th, i) => delta[axes[i]] * th),
    offsets: offsets,
    axis_scores: names.map((_, axis) =>
      offsets.map((o) => multiaxisOnesScore(names.map((__, j) => (j === axis ? o : 0)), theta, axes)),
    ),
    score: multiaxisOnesScore(delta, theta, axes),
    sections: sections,
    planes_per_axis: names.map((_, axis) => axes.filter((x) => x === axis).length),
  };
}

// The numbers both readouts write, computed once: the data and the offset b − a, each plane's turn
// |relative angle|, the widest turn and its plane, and the score at offset 0.
function multiaxisFacts(d) {
  const turns = d.relative_angle.map(Math.abs);
  let widest = 0;
  turns.forEach((value, i) => {
    if (value > turns[widest]) {
      widest = i;
    }
  });
  return Object.assign({}, d, {
    offset: d.position_b.map((v, i) => v - d.position_a[i]),
    widest: widest,
    widest_turn: turns[widest],
    widest_axis: d.axis_names[d.axes[widest]],
    score_at_zero: 2 * turns.length,
  });
}

function multiaxisReadout(d) {
  const names = d.axis_names;
  const point = (values) => `(${names.map((n, i) => `${n} ${fmtG(values[i], 6)}`).join(', ')})`;
  const share = names.map((n, a) => `${n} ${d.planes_per_axis[a]}`).join(', ');
  return [
    `${d.allocation} allocation: planes per axis ${share}`,
    `a = ${point(d.position_a)}, b = ${point(d.position_b)}, offset ${point(d.offset)}`,
    `all-ones score at the offset ${fmtF(d.score, 3)} (it is ${d.score_at_zero} at offset 0)`,
    `widest turn ${fmtF(d.widest_turn, 3)} rad: plane ${d.widest}, axis ${d.widest_axis}`,
  ].join('\n');
}

function multiaxisReadoutZh(d) {
  const names = d.axis_names;
  const point = (values) => `(${names.map((n, i) => `${n} ${fmtG(values[i], 6)}`).join(', ')})`;
  const share = names.map((n, a) => `${n} ${d.planes_per_axis[a]}`).join('，');
  return [
    `${ALLOCATION_ZH[d.allocation] || d.allocation}分配：各轴的子空间数 ${share}`,
    `a = ${point(d.position_a)}，b = ${point(d.position_b)}，偏移 ${point(d.offset)}`,
    `该偏移处的全一分数 ${fmtF(d.score, 3)}（偏移为 0 时是 ${d.score_at_zero}）`,
    `最大转角 ${fmtF(d.widest_turn, 3)} rad：子空间 ${d.widest}，轴 ${d.widest_axis}`,
  ].join('\n');
}

// Chapter 9: left, each plane's turn between the two tokens, coloured by its axis; right, the
// all-ones score against an offset along one axis at a time, the offset's components dotted.
function drawMultiaxis(svg, d) {
  const axisColours = ['#1f77b4', '#ff7f0e', '#2ca02c'];
  const turns = d.relative_angle;
  const high = Math.max(0.1, Math.max.apply(null, turns.map(Math.abs)));
  const left = panel(svg, { x: 72, y: 60, w: 260, h: 260 }, {
    x: { min: -0.5, max: d.axes.length - 0.5, integer: true, label: 'plane index i' },
    y: { min: -1.05 * high, max: 1.05 * high, label: 'turn (b − a)θ_{i} (rad)' },
    title: 'each plane turns along its own axis',
  });
  hline(left, 0, { color: COLOURS.neutral, width: 0.8 });
  turns.forEach((value, i) => area(left, i - 0.4, i + 0.4, 0, value, axisColours[d.axes[i]], 1));
  const scores = [].concat.apply([], d.axis_scores);
  const right = panel(svg, { x: 420, y: 60, w: 260, h: 260 }, {
    x: { min: d.offsets[0], max: d.offsets[d.offsets.length - 1], label: 'offset along one axis' },
    y: { min: Math.min.apply(null, scores) - 2, max: Math.max.apply(null, scores) + 2, label: 'all-ones score', labelGap: 42 },
    title: 'the score sees only the offset',
  });
  const offset = d.position_b.map((v, i) => v - d.position_a[i]);
  d.axis_names.forEach((name, a) => {
    line(right, d.offsets, d.axis_scores[a], { color: axisColours[a], width: 1.4 });
    if (offset[a] >= d.offsets[0] && offset[a] <= d.offsets[d.offsets.length - 1]) {
      vline(right, offset[a], { color: axisColours[a], width: 1, dash: '2 3' });
    }
  });
  text(svg, WIDTH / 2, 22, `${d.allocation}: planes per axis ${d.axis_names.map((n, a) => `${n} ${d.planes_per_axis[a]}`).join(', ')}; score at the offset ${fmtF(d.score, 3)}`, { anchor: 'middle', size: 14 });
  legend(svg, 60, 384, d.axis_names.map((n, a) => ({ text: `axis ${n}`, color: axisColours[a], kind: 'box' })));
}

register('multiaxis', {
  compute: multiaxisData,
  draw: drawMultiaxis,
  facts: multiaxisFacts,
  readouts: { en: multiaxisReadout, zh: multiaxisReadoutZh },
  height: 450,
  split: 350,
});
