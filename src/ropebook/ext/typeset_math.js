// Typeset the book's mathematics once, at build time (src/ropebook/ext/light_pages.py), with the
// MathJax the site serves (npm's `mathjax` package, node_modules/mathjax): TeX in, CommonHTML
// out, with MathJax's assistive MathML beside every equation for screen readers.
//
// stdin:  {"config": {tex, chtml, options}, "pages": [{"fragments": ["<html>", ...]}, ...]}
// stdout: {"pages": [{"fragments": ["<typeset html>", ...], "css": "..."}, ...]}
//
// A fragment is the inside of one element of class "math" (its TeX between \( \), \[ \] or
// $$ $$, and whatever markup the element holds, e.g. Sphinx's equation number). Each page is
// one MathJax document, so its stylesheet holds the glyphs that page uses and no others.
//
// Phones (issue 33): a page's `narrow` maps a fragment's index to the rows of its narrow form
// (src/ropebook/ext/narrow_math.py) or to an author's TeX; the pieces are packed into lines no wider
// than NARROW_EM (measured with MathJax's metrics) and the narrow form is typeset on the same
// page; it comes back in `narrow` (index -> html). Inline math wider than CHUNK_EM is cut
// into unbreakable chunks after its top-level relations, operators and commas, so that it
// can wrap at the end of a line (the page's CSS lets it).
'use strict';

const path = require('path');

// The repository's root (this file is src/ropebook/ext/typeset_math.js).
const ROOT = path.resolve(__dirname, '..', '..', '..');
// The font folder is set per page by the caller (a path relative to the page).
const FONT_URL = '@ROPELAB_MATHJAX_FONTS@';

function readStdin() {
  return new Promise((resolve, reject) => {
    const chunks = [];
    process.stdin.on('data', (c) => chunks.push(c));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}

// A phone's column at 390 px is 343 px, 16.8 em of the book's math (16 px x 1.273); a
// 360-px phone has 313 px. Lines of a narrow form aim at 15 em.
const NARROW_EM = 15;
const CHUNK_EM = 6;
// An inline formula's piece between two places it may break, in characters, past which it
// may break inside brackets too.
const LONGEST_CHUNK = 20;

function widthOf(MathJax, tex) {
  // A character MathJax has no glyph metrics for (CJK in \\text{}, the Chinese edition) is
  // measured through the document, which the quick path below has not got: typeset such a
  // formula in a document of its own instead (slower, so only for those).
  if (/\\text\{[^}]*[^\x00-\x7f]/.test(tex)) {
    return widthInDocument(MathJax, tex);
  }
  const {STATE} = MathJax._.core.MathItem;
  const doc = MathJax.startup.document;
  const output = MathJax.startup.output;
  const root = doc.convert(tex, {display: true, end: STATE.COMPILED});
  output.setDocument(doc);
  output.math = {root, display: true, outputData: {}};
  output.nodeMap = new Map();
  const width = output.factory.wrap(root).getOuterBBox().w;
  output.nodeMap = null;
  return width;
}

// TeX inside HTML text
function escape(tex) {
  return tex.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function widthInDocument(MathJax, tex) {
  const {mathjax} = MathJax._.mathjax;
  const html = `<!DOCTYPE html><html><head></head><body>\\[${escape(tex)}\\]</body></html>`;
  const doc = mathjax.document(html, {
    InputJax: MathJax.startup.input,
    OutputJax: MathJax.startup.output,
  });
  doc.render();
  const item = Array.from(doc.math)[0];
  return MathJax.startup.output.getBBox(item, doc).w;
}

// The rows of src/ropebook/ext/narrow_math.py packed into lines of an `aligned` environment: each
// relation starts a line, aligned on it; a line is continued at a binary operator, indented,
// when it would be wider than NARROW_EM. A wide left-hand side may rather go on a line of its
// own, with the relations indented under it ("hanging"): both are measured, the narrower
// one wins (the aligned one when both fit).
function narrowTeX(MathJax, rows) {
  const measure = (tex) => widthOf(MathJax, tex);
  const leadWidth = Math.max(0, ...rows.map((row) => (row.lead ? measure(row.lead) : 0)));
  const layout = (hanging) => {
    const room = NARROW_EM - (hanging ? 1 : leadWidth);
    const lines = [];
    for (const row of rows) {
      if (hanging && row.lead) lines.push(`& ${row.lead}`);
      let line = null;
      let first = true;
      for (const [kind, tex] of row.pieces) {
        const indent = kind === 'bin' ? '\\quad ' : '';
        const prefix = hanging ? '&\\quad ' : first && row.lead ? `${row.lead} & ` : '& ';
        if (line === null || kind === 'rel') {
          if (line !== null) lines.push(line);
          line = `${prefix}${indent}${tex}`;
          first = false;
          continue;
        }
        const candidate = `${line} ${tex}`;
        const body = candidate.slice(candidate.indexOf('&') + 1);
        if (measure(`{}${body}`) <= room) {
          line = candidate;
        } else {
          lines.push(line);
          const times = kind === 'mul' ? '\\times ' : '';
          line = `${hanging ? '&\\quad' : '&'}\\quad ${times}${tex}`;
        }
      }
      if (line !== null) lines.push(line);
    }
    return `\\begin{aligned}${lines.join('\\\\\n')}\\end{aligned}`;
  };
  const aligned = layout(false);
  const alignedWidth = measure(aligned);
  if (alignedWidth <= NARROW_EM || !rows.some((row) => row.lead)) return aligned;
  const hanging = layout(true);
  return measure(hanging) < alignedWidth - 0.25 ? hanging : aligned;
}

// Cut an inline formula's top-level CHTML into chunks that do not break inside, so that the
// browser may wrap it between them (MathJax 3 never breaks a line itself).
function chunkInline(adaptor, container) {
  const math = adaptor.childNodes(container).find((n) => adaptor.kind(n) === 'mjx-math');
  if (!math) return false;
  let kids = adaptor.childNodes(math);
  // a formula wrapped in one group: its inside
  while (kids.length === 1 && adaptor.kind(kids[0]) === 'mjx-mrow') {
    kids = adaptor.childNodes(kids[0]);
  }
  // Where it may break: after a relation (a thick space, space="4", on both sides), a binary
  // operator ("3"), a comma or a semicolon; never after an invisible operator (a function's
  // application, a product). Outside brackets and |…| only, unless a piece between two such
  // places would be longer than LONGEST_CHUNK characters: then inside them too.
  const glyphs = (node) => {
    const codes = [];
    const walk = (n) => {
      if (adaptor.kind(n) === 'mjx-c') {
        const m = /\bmjx-c([0-9A-F]+)\b/.exec(String(adaptor.getAttribute(n, 'class') || ''));
        if (m) codes.push(m[1]);
      }
      for (const c of adaptor.childNodes(n) || []) if (adaptor.kind(c) !== '#text') walk(c);
    };
    walk(node);
    return codes;
  };
  // the brackets of a top-level node: an operator's own, or those of a script's base
  // ("(R q)^T": the closing bracket is the base of the superscript)
  const bracketsOf = (node) => {
    const kind = adaptor.kind(node);
    if (kind === 'mjx-mo') return glyphs(node);
    if (/^mjx-(msup|msub|msubsup)$/.test(kind)) {
      const base = adaptor.childNodes(node)[0];
      return base && adaptor.kind(base) === 'mjx-mo' ? glyphs(base) : [];
    }
    return [];
  };
  const cutAfter = (outsideOnly) => {
    let depth = 0;
    const bars = {};
    return kids.map((node, i) => {
      for (const code of bracketsOf(node)) {
        if (/^(28|5B|7B)$/.test(code)) depth++;
        if (/^(29|5D|7D)$/.test(code)) depth--;
        if (/^(7C|2016|2223|2225)$/.test(code)) {
          bars[code] = !bars[code];
          depth += bars[code] ? 1 : -1;
          return false;
        }
      }
      if (adaptor.kind(node) !== 'mjx-mo' || (outsideOnly && depth !== 0)) return false;
      // a relation or a binary operator has its space on both sides (the one after it is the
      // next node's space="…"); the node after a relation has it on its left only
      const space = adaptor.getAttribute(node, 'space');
      const next = kids[i + 1] ? adaptor.getAttribute(kids[i + 1], 'space') : null;
      const codes = glyphs(node);
      return ((space === '3' || space === '4') && next === space) || codes.includes('2C') || codes.includes('3B');
    });
  };
  const split = (cuts) => {
    const groups = [[]];
    kids.forEach((node, i) => {
      groups[groups.length - 1].push(node);
      if (cuts[i] && i < kids.length - 1) groups.push([]);
    });
    return groups;
  };
  let groups = split(cutAfter(true));
  const length = (group) => group.reduce((sum, node) => sum + glyphs(node).length, 0);
  if (groups.some((group) => length(group) > LONGEST_CHUNK)) groups = split(cutAfter(false));
  if (groups.length < 2) return false;
  const parent = adaptor.parent(kids[0]);
  for (const group of groups) {
    const chunk = adaptor.node('mjx-chunk');
    adaptor.insert(chunk, group[0]);
    for (const node of group) adaptor.append(chunk, node);
  }
  adaptor.setAttribute(math, 'breakable', 'true');
  return parent !== null;
}

async function main() {
  const request = JSON.parse(await readStdin());
  const config = request.config || {};
  const MathJax = await require(path.join(ROOT, 'node_modules', 'mathjax')).init({
    loader: {load: ['input/tex-full', 'output/chtml', 'adaptors/liteDOM', 'a11y/assistive-mml']},
    tex: config.tex || {},
    chtml: Object.assign({}, config.chtml || {}, {fontURL: FONT_URL}),
    options: config.options || {},
    startup: {typeset: false},
  });
  const {mathjax} = MathJax._.mathjax;
  const adaptor = MathJax.startup.adaptor;
  const input = MathJax.startup.input;
  const output = MathJax.startup.output;
  const pages = [];
  for (const page of request.pages) {
    // the narrow forms first (measuring adds nothing to the page's stylesheet)
    const narrow = {};
    for (const [index, request] of Object.entries(page.narrow || {})) {
      // an equation a phone shows whole has no narrow form, nor one that gains nothing
      const wide = widthOf(MathJax, request.wide);
      if (wide <= NARROW_EM && !request.tex) continue;
      const tex = request.tex || narrowTeX(MathJax, request.rows);
      if (request.tex || widthOf(MathJax, tex) < wide - 0.5) narrow[index] = tex;
    }
    // a fresh stylesheet per page: only the characters this page uses
    output.clearCache();
    const body = page.fragments
      .map((fragment, index) => `<div data-ropelab-math="${index}">${fragment}</div>`)
      .concat(Object.entries(narrow).map(
        ([index, tex]) => `<div data-ropelab-narrow="${index}">\\[${escape(tex)}\\]</div>`))
      .join('\n');
    const doc = mathjax.document(`<!DOCTYPE html><html><head></head><body>${body}</body></html>`, {
      InputJax: input,
      OutputJax: output,
      ...(config.options || {}),
    });
    doc.render();
    let chunked = 0;
    for (const item of doc.math) {
      if (!item.display && item.typesetRoot) {
        const width = output.getBBox(item, doc).w;
        if (width > CHUNK_EM && chunkInline(adaptor, item.typesetRoot)) chunked++;
      }
    }
    const fragments = [];
    const narrowHtml = {};
    for (const node of adaptor.childNodes(adaptor.body(doc.document))) {
      if (adaptor.kind(node) !== 'div') continue;
      const index = adaptor.getAttribute(node, 'data-ropelab-math');
      if (index !== null && index !== undefined) {
        fragments[Number(index)] = adaptor.innerHTML(node);
      } else {
        narrowHtml[adaptor.getAttribute(node, 'data-ropelab-narrow')] = adaptor.innerHTML(node);
      }
    }
    const css = adaptor.textContent(output.styleSheet(doc));
    // an equation MathJax could not read: an error node, or noundefined's red macro name
    const items = Array.from(doc.math);
    const failed = items
      .filter((item) => /<merror|mathcolor="red"/.test(MathJax.startup.toMML(item.root)))
      .map((item) => item.math);
    pages.push({fragments, narrow: narrowHtml, narrowTeX: narrow, chunked, css, equations: items.length, failed});
  }
  process.stdout.write(JSON.stringify({pages}));
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + '\n');
  process.exit(1);
});
