// ---------------------------------------------------------------------------------------
// (f) The view
// ---------------------------------------------------------------------------------------

const STYLE = `
.ropelab-decoder { margin: 1em 0; }
.ropelab-decoder textarea { box-sizing: border-box; width: 100%; font-family: monospace; font-size: 0.85em; }
.ropelab-decoder select { max-width: 100%; }
.ropelab-decoder button { margin: 0.4em 0; }
.ropelab-decoder-output table { display: block; max-width: 100%; overflow-x: auto; border-collapse: collapse; font-size: 0.9em; }
.ropelab-decoder-output th, .ropelab-decoder-output td { padding: 0.15em 0.6em; text-align: left; vertical-align: top; border-bottom: 1px solid #ddd; overflow-wrap: anywhere; }
.ropelab-decoder-output th { font-weight: normal; color: #444; }
.ropelab-decoder-gguf td { white-space: nowrap; overflow-wrap: normal; }
.ropelab-decoder-figure { width: 100%; max-width: 640px; height: auto; display: block; margin: 0.5em 0; }
.ropelab-decoder-warnings li { color: #8a4b00; overflow-wrap: anywhere; }
.ropelab-decoder-error { color: #a00000; font-weight: bold; }
.ropelab-decoder-output h4, .ropelab-decoder-output h5 { overflow-wrap: anywhere; }
`;

function addStyle() {
  if (document.querySelector('style[data-ropelab-decoder]')) {
    return;
  }
  const style = document.createElement('style');
  style.setAttribute('data-ropelab-decoder', '');
  style.textContent = STYLE;
  document.head.appendChild(style);
}

function el(tag, attrs, parent, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    node.setAttribute(k, v);
  }
  if (text !== undefined) {
    node.textContent = String(text); // text, never markup
  }
  if (parent) {
    parent.appendChild(node);
  }
  return node;
}

// the frequencies of one layer type against plain RoPE, log scale
function figure(layer, texts, parent) {
  const width = 640;
  const height = 220;
  const box = { left: 56, right: 12, top: 12, bottom: 36 };
  const svg = document.createElementNS(core.SVG_NS, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('class', 'ropelab-decoder-figure');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', texts.figure);
  const values = layer.inv_freq.concat(layer.plain).filter((t) => t > 0);
  const lo = Math.log10(Math.min(...values));
  const hi = Math.log10(Math.max(...values));
  const n = Math.max(layer.inv_freq.length - 1, 1);
  const x = (i) => box.left + ((width - box.left - box.right) * i) / n;
  const y = (t) => box.top + ((height - box.top - box.bottom) * (hi - Math.log10(t))) / Math.max(hi - lo, 1e-9);
  const add = (tag, attrs, content) => {
    const node = document.createElementNS(core.SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) {
      node.setAttribute(k, v);
    }
    if (content !== undefined) {
      node.textContent = content;
    }
    svg.appendChild(node);
    return node;
  };
  add('rect', { x: box.left, y: box.top, width: width - box.left - box.right, height: height - box.top - box.bottom, fill: 'none', stroke: '#999' });
  for (let e = Math.ceil(lo); e <= Math.floor(hi); e += Math.max(1, Math.ceil((hi - lo) / 6))) {
    add('text', { x: box.left - 6, y: y(Math.pow(10, e)) + 4, 'text-anchor': 'end', 'font-size': 11 }, `1e${e}`);
  }
  add('text', { x: width / 2, y: height - 6, 'text-anchor': 'middle', 'font-size': 12 }, texts.axis);
  const path = (ts) => ts.map((t, i) => (t > 0 ? `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(t).toFixed(1)}` : '')).join(' ');
  add('path', { d: path(layer.plain), fill: 'none', stroke: '#888', 'stroke-dasharray': '4 3' });
  add('path', { d: path(layer.inv_freq), fill: 'none', stroke: '#1f77b4', 'stroke-width': 2 });
  add('text', { x: width - box.right - 4, y: box.top + 14, 'text-anchor': 'end', 'font-size': 11, fill: '#1f77b4' }, texts.curve);
  add('text', { x: width - box.right - 4, y: box.top + 28, 'text-anchor': 'end', 'font-size': 11, fill: '#666' }, texts.plain);
  parent.appendChild(svg);
}

function render(out, record, lang) {
  out.textContent = '';
  const texts = view(record, lang);
  if (texts.error) {
    el('p', { class: 'ropelab-decoder-error', role: 'alert' }, out, texts.error);
    return;
  }
  el('h4', {}, out, texts.title);
  el('p', {}, out, texts.summary);
  if (texts.warnings.length) {
    const list = el('ul', { class: 'ropelab-decoder-warnings' }, out);
    for (const [code, message] of texts.warnings) {
      el('li', { 'data-code': code }, list, message);
    }
  }
  if (texts.layerMap) {
    const section = el('section', { class: 'ropelab-decoder-map' }, out);
    el('h5', {}, section, texts.layerMap.heading);
    const table = el('table', {}, section);
    for (const [group, layers] of texts.layerMap.rows) {
      const tr = el('tr', {}, table);
      el('th', {}, tr, group);
      el('td', {}, tr, layers);
    }
    if (texts.layerMap.reasons.length) {
      el('p', {}, section, texts.layerMap.reasons.join('; '));
    }
  }
  record.layers.forEach((layer, i) => {
    const layerTexts = texts.layers[i];
    const section = el('section', { class: 'ropelab-decoder-layer', 'data-layer-type': layer.layer_type }, out);
    el('h5', {}, section, layerTexts.heading);
    const table = el('table', {}, section);
    for (const [name, value] of layerTexts.rows) {
      const tr = el('tr', {}, table);
      el('th', {}, tr, name);
      el('td', {}, tr, value);
    }
    figure(layer, layerTexts, section);
  });
  for (const note of texts.notes) {
    el('p', {}, out, note);
  }
  el('h5', {}, out, texts.gguf.heading);
  if (!texts.gguf.rows.length) {
    el('p', {}, out, texts.gguf.none);
  }
  const gguf = el('table', { class: 'ropelab-decoder-gguf' }, out);
  for (const [key, value] of texts.gguf.rows) {
    const tr = el('tr', {}, gguf);
    el('th', {}, tr, key);
    el('td', {}, tr, value);
  }
}
