// Chapter 10: training-free position remapping. Its data (the keys of ropelab.explorables.explorable_data('remapping')),
// readouts in both languages and drawing; private to this figure's block of the bundle.

// The relative position a method gives the score of query m and key n (0 <= n <= m), for
// params {window, group, chunk_size, local_size, shift, local}
// (ropelab.remapping.relative_positions)
function remappedPosition(method, m, n, q) {
  const d = m - n;
  if (method === 'ReRoPE') {
    return Math.min(d, q.window);
  }
  if (method === 'Self-Extend') {
    return d < q.window ? d : Math.floor(m / q.group) - Math.floor(n / q.group) + q.window - Math.floor(q.window / q.group);
  }
  if (method === 'DCA') {
    const c = q.chunk_size - q.local_size;
    const apart = Math.floor(m / c) - Math.floor(n / c);
    const query = apart === 0 ? m % c : apart === 1 ? Math.min((m % c) + c, q.chunk_size) : Math.min(2 * c - 1, q.chunk_size);
    return query - (n % c);
  }
  if (method === 'STRING') {
    return d >= q.shift ? d - q.shift + q.local : d;
  }
  return d;
}

// The largest relative position any score sees on `length` tokens (ropelab.remapping.max_relative)
function maxRemapped(method, length, q) {
  const top = length - 1;
  if (method === 'ReRoPE') {
    return Math.min(top, q.window);
  }
  if (method === 'Self-Extend') {
    return top < q.window ? top : Math.max(q.window - 1, Math.floor(top / q.group) + q.window - Math.floor(q.window / q.group));
  }
  if (method === 'DCA') {
    const c = q.chunk_size - q.local_size;
    const chunks = Math.floor(top / c);
    if (chunks === 0) {
      return top;
    }
    if (chunks === 1) {
      return Math.max(c - 1, Math.min((top % c) + c, q.chunk_size));
    }
    return Math.max(c - 1, Math.min(2 * c - 1, q.chunk_size));
  }
  if (method === 'STRING') {
    return top < q.shift ? top : Math.max(q.shift - 1, top - q.shift + q.local);
  }
  return top;
}

// `points` positions from 0 to length − 1, evenly spaced (ropelab.remapping.sample_positions)
function remapGrid(length, points) {
  const step = (length - 1) / (points - 1);
  return range(points).map((i) => Math.floor((i === points - 1 ? length - 1 : i * step) + 0.5 - 1e-9));
}

// Chapter 10 (ropelab.remapping.remapping_data): DCA's chunk is the training length and its
// local size the window; STRING shifts by floor(0.33 L) with the local value min(w, S).
function remappingData(p, constants) {
  const window = Math.min(p.window, p.train_len - 1);
  const shift = Math.max(1, Math.floor(0.33 * p.train_len));
  const q = { window: window, group: p.group, chunk_size: p.train_len, local_size: window, shift: shift, local: Math.min(window, shift) };
  const grid = remapGrid(p.length, constants.points);
  const keys = remapGrid(p.length, constants.row_points);
  const largest = maxRemapped(p.method, p.length, q);
  return {
    method: p.method,
    length: p.length,
    train_len: p.train_len,
    window: window,
    group: p.group,
    shift: shift,
    grid: grid,
    relative: grid.map((m) => grid.map((n) => (n <= m ? remappedPosition(p.method, m, n, q) : -1))),
    keys: keys,
    row: keys.map((n) => remappedPosition(p.method, p.length - 1, n, q)),
    max_relative: largest,
    within: largest < p.train_len,
    self_extend_max_length: (p.train_len - window) * p.group + window,
  };
}

// The numbers both readouts write, computed once: the data and RoPE's relative position of the last
// query and the first key.
function remappingFacts(d) {
  return Object.assign({}, d, { rope_relative: d.length - 1 });
}

function remappingReadout(d) {
  return [
    `${d.method} on ${formatNumber(d.length)} tokens, trained on ${formatNumber(d.train_len)}`,
    `largest relative position: ${formatNumber(d.max_relative)} (${d.within ? 'within' : 'beyond'} the training length)`,
    `last query, first key: ${formatNumber(d.row[0])} (RoPE: ${formatNumber(d.rope_relative)})`,
    `w = ${formatNumber(d.window)}, G = ${d.group}, S = ${formatNumber(d.shift)}; Self-Extend (w, G) covers ${formatNumber(d.self_extend_max_length)} tokens`,
  ].join('\n');
}

function remappingReadoutZh(d) {
  return [
    `${d.method}：输入 ${formatNumber(d.length)} 个 token，训练长度 ${formatNumber(d.train_len)}`,
    `最大相对位置：${formatNumber(d.max_relative)}（${d.within ? '在训练长度之内' : '超出训练长度'}）`,
    `最后一个查询与第一个键：${formatNumber(d.row[0])}（RoPE：${formatNumber(d.rope_relative)}）`,
    `w = ${formatNumber(d.window)}，G = ${d.group}，S = ${formatNumber(d.shift)}；Self-Extend (w, G) 覆盖 ${formatNumber(d.self_extend_max_length)} 个 token`,
  ].join('\n');
}

// Chapter 10: left, the relative position each (query, key) cell of the input sees, blue
// below the training length L, white at L, red beyond (dark red from 2L); right, what the
// last query gives each key, against RoPE's m − n and L.
function drawRemapping(svg, d) {
  const top = d.grid[d.grid.length - 1];
  const half = top / (d.grid.length - 1) / 2;
  const left = panel(svg, { x: 80, y: 60, w: 250, h: 250 }, {
    x: { min: -half, max: top + half, label: 'key position n', maxTicks: 3 },
    y: { min: -half, max: top + half, reverse: true, label: 'query position m', labelGap: 62, maxTicks: 4 },
    title: `${d.method}: r(m, n)`,
  });
  const cell = Math.abs(left.x(top / (d.grid.length - 1)) - left.x(0));
  const g = svgNode('g', { 'shape-rendering': 'crispEdges' }, svg);
  d.relative.forEach((row, i) => {
    row.forEach((value, j) => {
      if (value < 0) {
        return;
      }
      const shade = Math.max(-1, Math.min(1, value / Math.max(d.train_len - 1, 1) - 1));
      svgNode('rect', { x: (left.x(d.grid[j]) - cell / 2).toFixed(2), y: (left.y(d.grid[i]) - cell / 2).toFixed(2), width: (cell + 0.4).toFixed(2), height: (cell + 0.4).toFixed(2), fill: diverging(shade) }, g);
    });
  });
  colourBar(svg, { x: 340, y: 60, w: 12, h: 250 }, 'r / L − 1 (white: r = L)');
  const high = Math.max(d.length - 1, d.train_len) * 1.05;
  const right = panel(svg, { x: 480, y: 60, w: 200, h: 250 }, {
    x: { min: 0, max: top, label: 'key position n', maxTicks: 3 },
    y: { min: 0, max: high, label: 'relative position seen', labelGap: 56, maxTicks: 5 },
    title: 'the last query',
  });
  line(right, d.keys, d.keys.map((n) => d.length - 1 - n), { color: COLOURS.neutral, width: 1, dash: '2 3' });
  line(right, d.keys, d.row, { color: COLOURS.query, width: 1.8 });
  hline(right, d.train_len, { color: COLOURS.key, width: 1, dash: '5 4' });
  text(svg, WIDTH / 2, 22, `${d.method}: ${formatNumber(d.length)} tokens, L = ${formatNumber(d.train_len)}; largest relative position ${formatNumber(d.max_relative)}`, { anchor: 'middle', size: 14 });
  legend(svg, 80, 380, [
    { text: 'RoPE: m − n', color: COLOURS.neutral, width: 1, dash: '2 3' },
    { text: `${d.method}`, color: COLOURS.query, width: 1.8 },
    { text: 'training length L', color: COLOURS.key, width: 1, dash: '5 4' },
  ]);
}

register('remapping', {
  compute: remappingData,
  draw: drawRemapping,
  facts: remappingFacts,
  readouts: { en: remappingReadout, zh: remappingReadoutZh },
  height: 450,
  split: 400,
});
