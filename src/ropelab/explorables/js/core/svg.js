// (b) The SVG plotting layer: nodes, text, ticks, scales and panels.

const SVG_NS = 'http://www.w3.org/2000/svg';

const COLOURS = {
  query: '#1f77b4',
  key: '#d62728',
  neutral: '#7f7f7f',
  accent: '#2ca02c',
  text: '#222222',
  axis: '#555555',
  grid: '#e4e4e4',
};

const FONT = 13;

const WIDTH = 700;

function svgNode(tag, attrs, parent) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const name of Object.keys(attrs)) {
    node.setAttribute(name, attrs[name]);
  }
  parent.appendChild(node);
  return node;
}

// Text with TeX-like indices: "R_{m+s} q" and "10^{-3}" become sub- and superscripts.
function text(parent, x, y, source, style) {
  const s = Object.assign({ size: FONT, anchor: 'start', color: COLOURS.text }, style);
  const attrs = { x: x, y: y, 'font-size': s.size, fill: s.color, 'text-anchor': s.anchor };
  if (s.weight) {
    attrs['font-weight'] = s.weight;
  }
  if (s.rotate) {
    attrs.transform = `rotate(${s.rotate} ${x} ${y})`;
  }
  const node = svgNode('text', attrs, parent);
  let offset = 0;
  for (const part of source.split(/([_^]\{[^}]*\})/)) {
    if (part === '') {
      continue;
    }
    const index = /^([_^])\{(.*)\}$/.exec(part);
    const shift = index ? (index[1] === '_' ? 0.3 : -0.4) * s.size : 0;
    const span = svgNode('tspan', { dy: shift - offset }, node);
    if (index) {
      span.setAttribute('font-size', 0.75 * s.size);
    }
    // A minus sign before a number; hyphens in words stay.
    span.textContent = (index ? index[2] : part).replace(/-(?=\d)/g, '−');
    offset = shift;
  }
  return node;
}

// Round tick values for a linear axis: steps of 1, 2 or 5 × 10^k, at most about `most`;
// steps of at least 1 on an axis of indices (`integer`).
function linearTicks(lo, hi, most, integer) {
  const ideal = Math.max((hi - lo) / most, integer ? 1 : 0);
  const power = Math.pow(10, Math.floor(Math.log10(ideal)));
  const step = [1, 2, 5, 10].map((f) => f * power).find((s) => s >= ideal * (1 - 1e-9));
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  const ticks = [];
  for (let j = Math.ceil(lo / step - 1e-9); j <= Math.floor(hi / step + 1e-9); j++) {
    const value = Number((j * step).toPrecision(12));
    ticks.push({ value: value, label: decimals ? value.toFixed(decimals) : fmtF(value, 0, { comma: true }) });
  }
  return ticks;
}

// Ticks for a logarithmic axis: powers of ten (every k-th when there are more than
// `most`), written 10^k; an axis spanning under two decades gets 1, 2, 5 × 10^k as plain
// numbers.
function logTicks(lo, hi, most) {
  const first = Math.ceil(Math.log10(lo) - 1e-9);
  const last = Math.floor(Math.log10(hi) + 1e-9);
  if (Math.log10(hi / lo) < 2) {
    const ticks = [];
    for (let e = first - 1; e <= last; e++) {
      for (const f of [1, 2, 5]) {
        const value = Number((f * Math.pow(10, e)).toPrecision(12));
        if (value >= lo * (1 - 1e-9) && value <= hi * (1 + 1e-9)) {
          ticks.push({ value: value, label: formatNumber(value) });
        }
      }
    }
    return ticks;
  }
  const every = Math.ceil((last - first + 1) / most);
  const ticks = [];
  for (let e = first; e <= last; e++) {
    if ((e - first) % every === 0) {
      ticks.push({ value: Math.pow(10, e), label: `10^{${e}}` });
    }
  }
  return ticks;
}

// A map from an axis' domain onto pixels [p0, p1], linear or logarithmic, with its ticks
// (at most about axis.maxTicks of them, 6 unless given; whole numbers if axis.integer).
function scale(axis, p0, p1) {
  const t = axis.log ? Math.log10 : (v) => v;
  const [lo, hi] = axis.reverse ? [axis.max, axis.min] : [axis.min, axis.max];
  const f = (v) => p0 + ((t(v) - t(lo)) / (t(hi) - t(lo))) * (p1 - p0);
  const most = axis.maxTicks || 6;
  f.ticks = axis.ticks || (axis.log ? logTicks : linearTicks)(axis.min, axis.max, most, axis.integer);
  return f;
}

// A log-axis domain around `values`: padded by `pad` of its span in decades each side, and
// at least one decade wide.
function logDomain(values, pad) {
  const logs = values.map(Math.log10);
  let lo = Math.min.apply(null, logs);
  let hi = Math.max.apply(null, logs);
  const widen = Math.max(0, 1 - (hi - lo)) / 2;
  lo -= widen + pad * (hi - lo);
  hi += widen + pad * (hi - lo);
  return { min: Math.pow(10, lo), max: Math.pow(10, hi) };
}

// One set of axes in `box` (pixels): grid, frame, ticks, axis labels and a title.
// spec.x / spec.y: {min, max, log, integer, reverse, label, labelGap, ticks, maxTicks};
// returns {x, y, box, svg}.
function panel(svg, box, spec) {
  const x = scale(spec.x, box.x, box.x + box.w);
  const y = scale(spec.y, box.y + box.h, box.y);
  const grid = svgNode('g', { stroke: COLOURS.grid, 'stroke-width': 1 }, svg);
  const labels = svgNode('g', {}, svg);
  for (const tick of x.ticks) {
    const px = x(tick.value);
    svgNode('line', { x1: px, x2: px, y1: box.y, y2: box.y + box.h }, grid);
    svgNode('line', { x1: px, x2: px, y1: box.y + box.h, y2: box.y + box.h + 4, stroke: COLOURS.axis }, labels);
    text(labels, px, box.y + box.h + 17, tick.label, { anchor: 'middle' });
  }
  for (const tick of y.ticks) {
    const py = y(tick.value);
    svgNode('line', { x1: box.x, x2: box.x + box.w, y1: py, y2: py }, grid);
    svgNode('line', { x1: box.x - 4, x2: box.x, y1: py, y2: py, stroke: COLOURS.axis }, labels);
    text(labels, box.x - 7, py + 4, tick.label, { anchor: 'end' });
  }
  svgNode('rect', { x: box.x, y: box.y, width: box.w, height: box.h, fill: 'none', stroke: COLOURS.axis }, svg);
  if (spec.x.label) {
    text(svg, box.x + box.w / 2, box.y + box.h + 36, spec.x.label, { anchor: 'middle' });
  }
  if (spec.y.label) {
    const lx = box.x - (spec.y.labelGap || 46);
    text(svg, lx, box.y + box.h / 2, spec.y.label, { anchor: 'middle', rotate: -90 });
  }
  if (spec.title) {
    text(svg, box.x + box.w / 2, box.y - 9, spec.title, { anchor: 'middle', size: 14, weight: 600 });
  }
  return { x: x, y: y, box: box, svg: svg };
}

// Pixel coordinates of a polyline as an SVG path.
function pathData(p, xs, ys) {
  return xs.map((v, i) => `${i ? 'L' : 'M'}${p.x(v).toFixed(1)} ${p.y(ys[i]).toFixed(1)}`).join('');
}

// Stroke attributes from a style {color, width, dash, opacity}.
function stroke(style) {
  const attrs = { fill: 'none', stroke: style.color, 'stroke-width': style.width || 1.5 };
  if (style.dash) {
    attrs['stroke-dasharray'] = style.dash;
  }
  if (style.opacity !== undefined) {
    attrs.opacity = style.opacity;
  }
  return attrs;
}

function line(p, xs, ys, style) {
  const attrs = stroke(style);
  attrs.d = pathData(p, xs, ys);
  attrs['stroke-linejoin'] = 'round';
  svgNode('path', attrs, p.svg);
}

// Dots at (xs[i], ys[i]); style.colors gives one colour per dot, style.open hollow ones.
function markers(p, xs, ys, style) {
  const g = svgNode('g', {}, p.svg);
  xs.forEach((v, i) => {
    const colour = style.colors ? style.colors[i] : style.color;
    svgNode(
      'circle',
      {
        cx: p.x(v).toFixed(1),
        cy: p.y(ys[i]).toFixed(1),
        r: style.r || 2.5,
        fill: style.open ? '#ffffff' : colour,
        stroke: colour,
        'stroke-width': style.open ? 1.2 : 0,
      },
      g,
    );
  });
}
