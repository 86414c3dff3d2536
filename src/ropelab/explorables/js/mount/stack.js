

// ---------------------------------------------------------------------------------------
// On a phone (issue 33): the panels of a figure stacked, no label under 11 px.
// ---------------------------------------------------------------------------------------
// A figure box narrower than this is a phone's: its panels go one under the other.
const STACK_BELOW = 520;
const SMALLEST_LABEL = 11; // CSS pixels
// Past this, labels would crowd their panel: the figure keeps a readable size and scrolls.
const MOST_ENLARGED = 1.3;

// What a figure says across its whole width (a text centred at WIDTH / 2), as HTML lines
// above the stacked panels, with its indices as <sub> and <sup>.
function headerLines(texts) {
  return texts.map((node) => {
    const line = document.createElement('div');
    line.className = 'ropelab-figure-line';
    for (const span of node.querySelectorAll('tspan')) {
      const index = span.hasAttribute('font-size');
      const part = document.createElement(index ? (parseFloat(span.getAttribute('dy')) > 0 ? 'sub' : 'sup') : 'span');
      part.textContent = span.textContent;
      line.appendChild(part);
    }
    if (node.getAttribute('font-weight')) line.style.fontWeight = node.getAttribute('font-weight');
    return line;
  });
}

// Re-lay a drawn figure for a narrow box: the header texts become HTML lines, the panels
// left and right of `split` (SVG units; null for one panel) go one under the other, the
// drawing is cropped to what it holds, then labels smaller than SMALLEST_LABEL are enlarged
// (up to MOST_ENLARGED), or the figure keeps a size where they are readable and scrolls.
function stackFigure(figure, svg, split) {
  const lines = [];
  const columns = [[], []];
  for (const node of [...svg.children]) {
    if (node.tagName === 'text' && node.getAttribute('x') === String(WIDTH / 2)) {
      lines.push(node);
      continue;
    }
    const b = node.getBBox();
    columns[split !== null && b.x + b.width / 2 > split ? 1 : 0].push(node);
  }
  const notes = document.createElement('div');
  notes.className = 'ropelab-figure-notes';
  for (const line of headerLines(lines)) notes.appendChild(line);
  for (const node of lines) node.remove();
  let top = 4;
  let width = 0;
  const groups = [];
  for (const nodes of columns.filter((c) => c.length)) {
    const g = document.createElementNS(SVG_NS, 'g');
    svg.appendChild(g);
    for (const node of nodes) g.appendChild(node);
    const b = g.getBBox();
    groups.push([g, b]);
    width = Math.max(width, b.width + 8);
  }
  for (const [g, b] of groups) {
    g.setAttribute('transform', `translate(${((width - b.width) / 2 - b.x).toFixed(1)} ${(top - b.y).toFixed(1)})`);
    top += b.height + 18;
  }
  svg.setAttribute('viewBox', `0 0 ${width.toFixed(1)} ${(top - 14).toFixed(1)}`);
  if (lines.length) figure.insertBefore(notes, svg);
  const unit = figure.clientWidth / width;
  const sizes = [...svg.querySelectorAll('text')].map((node) => parseFloat(node.getAttribute('font-size')));
  const smallest = Math.min(...sizes);
  let enlarge = SMALLEST_LABEL / (smallest * unit);
  if (enlarge > MOST_ENLARGED) {
    // as wide as it must be for the labels at MOST_ENLARGED; the box scrolls (with a cue)
    svg.style.minWidth = `${Math.ceil((width * SMALLEST_LABEL) / (smallest * MOST_ENLARGED))}px`;
    figure.classList.add('ropelab-figure-scrolls');
    enlarge = MOST_ENLARGED;
  }
  if (enlarge > 1) {
    for (const node of svg.querySelectorAll('text, tspan[font-size]')) {
      node.setAttribute('font-size', (parseFloat(node.getAttribute('font-size')) * enlarge).toFixed(2));
    }
  }
}
