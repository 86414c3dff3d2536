// (b) The SVG plotting layer: reference lines, areas, arrows, heat maps, legends.

// A horizontal or vertical reference line across the panel at data value `at`.
function hline(p, at, style) {
  const attrs = stroke(style);
  attrs.d = `M${p.box.x} ${p.y(at).toFixed(1)}H${p.box.x + p.box.w}`;
  svgNode('path', attrs, p.svg);
}

function vline(p, at, style) {
  const attrs = stroke(style);
  attrs.d = `M${p.x(at).toFixed(1)} ${p.box.y}V${p.box.y + p.box.h}`;
  svgNode('path', attrs, p.svg);
}

// A shaded rectangle between data values x0..x1 and y0..y1.
function area(p, x0, x1, y0, y1, colour, opacity) {
  const [left, right] = [p.x(x0), p.x(x1)].sort((a, b) => a - b);
  const [top, bottom] = [p.y(y0), p.y(y1)].sort((a, b) => a - b);
  svgNode(
    'rect',
    { x: left, y: top, width: right - left, height: bottom - top, fill: colour, opacity: opacity },
    p.svg,
  );
}

// Horizontal bars, bar i from `from` to ends[i] at height rows[i], `thickness` of a row.
function hbars(p, rows, from, ends, colours, thickness) {
  const g = svgNode('g', {}, p.svg);
  const rowPixels = Math.abs(p.y(1) - p.y(0));
  const h = Math.min(24, Math.max(0.8, thickness * rowPixels));
  rows.forEach((row, i) => {
    const x0 = p.x(from);
    svgNode(
      'rect',
      { x: x0, y: p.y(row) - h / 2, width: Math.max(0, p.x(ends[i]) - x0), height: h, fill: colours[i] },
      g,
    );
  });
}

// An arrow from the origin to `tip` (data units) with a triangular head.
function arrow(p, tip, style) {
  const x0 = p.x(0);
  const y0 = p.y(0);
  const x1 = p.x(tip[0]);
  const y1 = p.y(tip[1]);
  const length = Math.hypot(x1 - x0, y1 - y0);
  if (length < 1) {
    return;
  }
  const [ux, uy] = [(x1 - x0) / length, (y1 - y0) / length];
  const head = Math.min(11, length / 2);
  const g = svgNode('g', { opacity: style.opacity === undefined ? 1 : style.opacity }, p.svg);
  const shaft = stroke({ color: style.color, width: style.width, dash: style.dash });
  Object.assign(shaft, { x1: x0, y1: y0, x2: x1 - ux * head * 0.8, y2: y1 - uy * head * 0.8 });
  svgNode('line', shaft, g);
  const corners = [
    [x1, y1],
    [x1 - ux * head - uy * head * 0.4, y1 - uy * head + ux * head * 0.4],
    [x1 - ux * head + uy * head * 0.4, y1 - uy * head - ux * head * 0.4],
  ];
  svgNode('polygon', { points: corners.map((c) => c.map((v) => v.toFixed(1)).join(',')).join(' '), fill: style.color }, g);
}

// A circle of `radius` (data units) around the origin; the panel must have equal aspect.
function circle(p, radius, style) {
  const attrs = stroke(style);
  Object.assign(attrs, { cx: p.x(0), cy: p.y(0), r: p.x(radius) - p.x(0) });
  svgNode('circle', attrs, p.svg);
}

// matplotlib's RdBu_r: the diverging map of src/ropelab/plots/style.py, from −1 to 1.
const RDBU_R = [
  '#053061', '#2166ac', '#4393c3', '#92c5de', '#d1e5f0', '#f7f7f7',
  '#fddbc7', '#f4a582', '#d6604d', '#b2182b', '#67001f',
];

// The colour of `value` in [−1, 1], interpolated linearly between the map's eleven colours.
function diverging(value) {
  const position = ((Math.max(-1, Math.min(1, value)) + 1) / 2) * (RDBU_R.length - 1);
  const i = Math.min(RDBU_R.length - 2, Math.floor(position));
  const w = position - i;
  const mix = (from, to) => Math.round(from + (to - from) * w);
  const rgb = [1, 3, 5].map((o) =>
    mix(parseInt(RDBU_R[i].substr(o, 2), 16), parseInt(RDBU_R[i + 1].substr(o, 2), 16)),
  );
  return `rgb(${rgb.join(',')})`;
}

// matrix[row][col] as cells on the panel (row 0 at the top, on a reversed y axis).
function heatmap(p, matrix) {
  const g = svgNode('g', { 'shape-rendering': 'crispEdges' }, p.svg);
  const size = Math.abs(p.x(1) - p.x(0));
  matrix.forEach((row, r) => {
    row.forEach((value, c) => {
      svgNode(
        'rect',
        {
          x: (p.x(c) - size / 2).toFixed(2),
          y: (p.y(r) - size / 2).toFixed(2),
          width: (size + 0.4).toFixed(2),
          height: (size + 0.4).toFixed(2),
          fill: diverging(value),
        },
        g,
      );
    });
  });
}

// A vertical colour bar for the diverging map from −1 (bottom) to 1 (top).
function colourBar(svg, box, label) {
  const steps = 64;
  for (let j = 0; j < steps; j++) {
    const value = 1 - (2 * (j + 0.5)) / steps;
    svgNode(
      'rect',
      { x: box.x, y: box.y + (j * box.h) / steps, width: box.w, height: box.h / steps + 0.5, fill: diverging(value) },
      svg,
    );
  }
  svgNode('rect', { x: box.x, y: box.y, width: box.w, height: box.h, fill: 'none', stroke: COLOURS.axis }, svg);
  for (const value of [-1, -0.5, 0, 0.5, 1]) {
    const py = box.y + ((1 - value) / 2) * box.h;
    svgNode('line', { x1: box.x + box.w, x2: box.x + box.w + 4, y1: py, y2: py, stroke: COLOURS.axis }, svg);
    text(svg, box.x + box.w + 7, py + 4, value.toFixed(1));
  }
  text(svg, box.x + box.w + 44, box.y + box.h / 2, label, { anchor: 'middle', rotate: -90 });
}

// A legend: one row per item, a sample then its text. An item is {text, color | colors,
// kind: 'line' | 'dot' | 'open' | 'box' | 'outline', width, dash, opacity}; `colors` draws one
// sample per colour (a query and a key, for example).
function legend(svg, x, y, items) {
  items.forEach((item, row) => {
    const cy = y + row * 19;
    const colours = item.colors || [item.color];
    colours.forEach((colour, j) => {
      const sx = x + j * 26;
      if (item.kind === 'dot' || item.kind === 'open') {
        const open = item.kind === 'open';
        svgNode('circle', { cx: sx + 11, cy: cy, r: 3.5, fill: open ? '#ffffff' : colour, stroke: colour, 'stroke-width': 1.2 }, svg);
      } else if (item.kind === 'box' || item.kind === 'outline') {
        const fill = item.kind === 'box' ? colour : 'none';
        svgNode('rect', { x: sx + 4, y: cy - 6, width: 14, height: 12, fill: fill, stroke: colour, 'stroke-width': item.kind === 'box' ? 0 : 2, opacity: item.opacity === undefined ? 1 : item.opacity }, svg);
      } else {
        const attrs = stroke({ color: colour, width: item.width || 2, dash: item.dash, opacity: item.opacity });
        Object.assign(attrs, { x1: sx, x2: sx + 22, y1: cy, y2: cy });
        svgNode('line', attrs, svg);
      }
    });
    text(svg, x + colours.length * 26 + 4, cy + 4, item.text);
  });
}

// Labels for reference lines at the `side` ('left' or 'right') of a panel, just above their
// lines, pushed apart to be 15 px or more, each on a white box so that lines and data they
// cross do not hide them (the box width is estimated from the number of characters).
function lineLabels(p, entries, side) {
  const size = 12;
  const placed = entries
    .map((e) => ({ e: e, y: p.y(e.value) - 5 }))
    .sort((a, b) => b.y - a.y);
  placed.forEach((item, i) => {
    if (i > 0) {
      item.y = Math.min(item.y, placed[i - 1].y - 15);
    }
    const width = 0.6 * size * item.e.text.replace(/[_^{}]/g, '').length + 6;
    const x = side === 'left' ? p.box.x + 4 : p.box.x + p.box.w - 4 - width;
    svgNode('rect', { x: x, y: item.y - size, width: width, height: size + 4, fill: '#ffffff', opacity: 0.85 }, p.svg);
    text(p.svg, x + 3, item.y, item.e.text, { color: item.e.color, size: size });
  });
}
