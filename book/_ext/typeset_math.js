// Typeset the book's mathematics once, at build time (book/_ext/light_pages.py), with the
// MathJax the site serves (npm's `mathjax` package, node_modules/mathjax): TeX in, CommonHTML
// out, with MathJax's assistive MathML beside every equation for screen readers.
//
// stdin:  {"config": {tex, chtml, options}, "pages": [{"fragments": ["<html>", ...]}, ...]}
// stdout: {"pages": [{"fragments": ["<typeset html>", ...], "css": "..."}, ...]}
//
// A fragment is the inside of one element of class "math" (its TeX between \( \), \[ \] or
// $$ $$, and whatever markup the element holds, e.g. Sphinx's equation number). Each page is
// one MathJax document, so its stylesheet holds the glyphs that page uses and no others.
'use strict';

const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
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
    // a fresh stylesheet per page: only the characters this page uses
    output.clearCache();
    const body = page.fragments
      .map((fragment, index) => `<div data-ropelab-math="${index}">${fragment}</div>`)
      .join('\n');
    const doc = mathjax.document(`<!DOCTYPE html><html><head></head><body>${body}</body></html>`, {
      InputJax: input,
      OutputJax: output,
      ...(config.options || {}),
    });
    doc.render();
    const fragments = [];
    for (const node of adaptor.childNodes(adaptor.body(doc.document))) {
      if (adaptor.kind(node) === 'div') {
        fragments[Number(adaptor.getAttribute(node, 'data-ropelab-math'))] = adaptor.innerHTML(node);
      }
    }
    const css = adaptor.textContent(output.styleSheet(doc));
    // an equation MathJax could not read: an error node, or noundefined's red macro name
    const items = Array.from(doc.math);
    const failed = items
      .filter((item) => /<merror|mathcolor="red"/.test(MathJax.startup.toMML(item.root)))
      .map((item) => item.math);
    pages.push({fragments, css, equations: items.length, failed});
  }
  process.stdout.write(JSON.stringify({pages}));
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + '\n');
  process.exit(1);
});
