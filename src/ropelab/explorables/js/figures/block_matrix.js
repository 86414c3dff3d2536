// Chapter 3: the block-diagonal rotation matrix. Its data (the keys of ropelab.explorables.explorable_data('block_matrix')),
// readouts in both languages and drawing; private to this figure's block of the bundle.

// R^d_{Θ,m} = diag(R(mθ_0), ..., R(mθ_{d/2−1})); plane i sits on coordinates (2i, 2i+1)
// ("interleaved") or (i, i + d/2) ("half")   (ropelab.core.rotation_matrix)
function rotationMatrix(position, dim, base, layout) {
  const matrix = range(dim).map(() => new Array(dim).fill(0));
  invFreq(dim, base).forEach((theta, i) => {
    const [a, b] = planeCoordinates(i, dim, layout);
    const angle = position * theta;
    matrix[a][a] = Math.cos(angle);
    matrix[a][b] = -Math.sin(angle);
    matrix[b][a] = Math.sin(angle);
    matrix[b][b] = Math.cos(angle);
  });
  return matrix;
}

// The coordinates (a, b) of plane i   (ropelab.core.plane_coordinates)
function planeCoordinates(i, dim, layout) {
  return layout === 'interleaved' ? [2 * i, 2 * i + 1] : [i, i + dim / 2];
}

// Chapter 3 (ropelab.core.block_matrix_data): the dense rotation matrix.
function blockData(p) {
  return {
    dim: p.dim,
    base: p.base,
    position: p.position,
    layout: p.layout,
    theta: invFreq(p.dim, p.base),
    matrix: rotationMatrix(p.position, p.dim, p.base, p.layout),
  };
}

// The numbers both readouts write, computed once: the data and the plane count, the slowest plane and
// the angles m·θ_i of the first and the slowest plane.
function blocksFacts(d) {
  const last = d.dim / 2 - 1;
  return Object.assign({}, d, {
    planes: d.dim / 2,
    last: last,
    first_angle: d.position * d.theta[0],
    last_angle: last > 0 ? d.position * d.theta[last] : null,
  });
}

function blocksReadout(d) {
  const last = d.last;
  const angle = (i, value) => `mθ_${i} = ${fmtF(value, 4)} rad`;
  const slowest = last > 0 ? `; θ_${last} = ${fmtG(d.theta[last], 4)} rad per position` : '';
  const turns = last > 0 ? `, the slowest plane by ${angle(last, d.last_angle)}` : '';
  return [
    `${count(d.planes, 'plane')} of the ${d.dim}×${d.dim} matrix, ${d.layout} layout${slowest}`,
    `at m = ${d.position}: plane 0 turns by ${angle(0, d.first_angle)}${turns}`,
  ].join('\n');
}

function blocksReadoutZh(d) {
  const last = d.last;
  const angle = (i, value) => `mθ_${i} = ${fmtF(value, 4)} rad`;
  const slowest = last > 0 ? `；θ_${last} = 每个位置 ${fmtG(d.theta[last], 4)} rad` : '';
  const turns = last > 0 ? `，最慢的子空间转过 ${angle(last, d.last_angle)}` : '';
  return [
    `${d.dim}×${d.dim} 矩阵的 ${countZh(d.planes, '子空间')}，${LAYOUT_ZH[d.layout] || d.layout}布局${slowest}`,
    `在 m = ${d.position} 处：子空间 0 转过 ${angle(0, d.first_angle)}${turns}`,
  ].join('\n');
}

const LAYOUT_TITLES = {
  interleaved: 'interleaved: plane i on (2i, 2i+1)',
  half: 'half split: plane i on (i, i+d/2)',
};

// Chapter 3: the heatmap of R^d_{Θ,m}, planes 0 and 1 outlined, with a colour bar.
function drawBlocks(svg, d) {
  const every = Math.max(1, Math.floor(d.dim / 8));
  const ticks = range(d.dim)
    .filter((i) => i % every === 0)
    .map((i) => ({ value: i, label: String(i) }));
  const axis = { min: -0.5, max: d.dim - 0.5, ticks: ticks };
  const p = panel(svg, { x: 110, y: 62, w: 360, h: 360 }, {
    x: Object.assign({ label: 'column (coordinate of x)' }, axis),
    y: Object.assign({ label: 'row (coordinate of R x)', reverse: true, labelGap: 40 }, axis),
  });
  text(svg, 290, 22, LAYOUT_TITLES[d.layout], { anchor: 'middle', size: 14, weight: 600 });
  text(svg, 290, 44, `d = ${d.dim}, β = ${formatNumber(d.base)}, m = ${d.position}`, { anchor: 'middle', size: 14 });
  heatmap(p, d.matrix);
  const outlines = [COLOURS.query, COLOURS.accent];
  const cell = Math.abs(p.x(1) - p.x(0));
  outlines.slice(0, d.dim / 2).forEach((colour, i) => {
    const [a, b] = planeCoordinates(i, d.dim, d.layout);
    for (const row of [a, b]) {
      for (const col of [a, b]) {
        svgNode('rect', { x: p.x(col) - cell / 2, y: p.y(row) - cell / 2, width: cell, height: cell, fill: 'none', stroke: colour, 'stroke-width': 2 }, svg);
      }
    }
  });
  colourBar(svg, { x: 500, y: 62, w: 16, h: 360 }, 'entry value');
  legend(svg, 575, 80, [
    { text: 'plane 0', color: COLOURS.query, kind: 'outline' },
    { text: 'plane 1', color: COLOURS.accent, kind: 'outline' },
  ].slice(0, d.dim / 2));
}

register('block_matrix', {
  compute: blockData,
  draw: drawBlocks,
  facts: blocksFacts,
  readouts: { en: blocksReadout, zh: blocksReadoutZh },
  height: 470,
});
