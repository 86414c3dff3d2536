// What tools/export_pptx.py needs of a deck laid out by reveal.js's print layout (?print-pdf,
// every slide on a 1280 x 720 page, fitted by ropelab-slides.js): per slide, its title and the
// blocks of its body with their boxes in slide pixels. Text blocks (paragraphs, list items,
// captions, code) come as runs of styled text, inline math as text made from MathJax's
// assistive MathML (sub- and superscripts kept); display equations, figures, tables and
// explorables come as pictures to screenshot, marked with data-pptx-shot="<n>".
// The DOM contract (tools/build_slides.py): `.reveal .slides > section` per slide, its title
// `.slide-title` (else its first h1/h2; in the print layout each sits in a .pdf-page), notes in `aside.notes` (read elsewhere, not here).
() => {
  'use strict';
  const PICTURE = 'img, svg, canvas, video, table, iframe, .ropelab-explorable';
  const TEXT = 'p, h1, h2, h3, h4, h5, h6, figcaption, pre, ul, ol, dt, dd';
  const SKIP = 'script, style, aside.notes, template, noscript, mjx-assistive-mml';
  let shots = 0;
  let heading = null;

  function visible(el) {
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden') {
      return false;
    }
    const rect = el.getBoundingClientRect();
    return rect.width > 0.5 && rect.height > 0.5;
  }

  function zoomOf(el) {
    // Chromium reports the effective CSS zoom of an element (ropelab-slides.js zooms a body).
    return typeof el.currentCSSZoom === 'number' ? el.currentCSSZoom : 1;
  }

  function box(el, origin) {
    const r = el.getBoundingClientRect();
    return [r.left - origin.left, r.top - origin.top, r.width, r.height];
  }

  function colour(value) {
    const m = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(value || '');
    if (!m) {
      return null;
    }
    return [m[1], m[2], m[3]].map((v) => Number(v).toString(16).padStart(2, '0')).join('');
  }

  // A background colour that shows (not transparent), else null.
  function background(el) {
    const value = getComputedStyle(el).backgroundColor || '';
    const alpha = /rgba\([^)]*,\s*([\d.]+)\)/.exec(value);
    return alpha && Number(alpha[1]) === 0 ? null : colour(value);
  }

  function styleOf(el, baseline, highlight = null) {
    const style = getComputedStyle(el);
    return {
      b: Number(style.fontWeight) >= 600,
      i: style.fontStyle === 'italic',
      m: /mono|courier/i.test(style.fontFamily),
      c: colour(style.color),
      h: highlight,
      base: baseline,
    };
  }

  function push(runs, text, style) {
    if (!text) {
      return;
    }
    const last = runs[runs.length - 1];
    const same =
      last && last.b === style.b && last.i === style.i && last.m === style.m &&
      last.c === style.c && last.h === style.h && last.base === style.base;
    if (same) {
      last.t += text;
    } else {
      runs.push({ t: text, ...style });
    }
  }

  // MathML (MathJax's assistive copy of an equation) as runs: identifiers in italic, scripts
  // raised or lowered, fractions and roots spelt on one line.
  function mathRuns(node, style, runs) {
    const tag = node.localName;
    const kids = Array.from(node.children);
    const at = (base) => ({ ...style, base });
    const script = style.base === 0 ? null : style.base;
    switch (tag) {
      case 'mi': {
        const text = node.textContent;
        const upright = node.getAttribute('mathvariant') === 'normal' || text.length > 1;
        push(runs, text, { ...style, i: !upright });
        return;
      }
      case 'mn':
      case 'mtext':
      case 'ms':
        push(runs, node.textContent, { ...style, i: false });
        return;
      case 'mo': {
        const text = node.textContent.replace(/[\u2061-\u2064]/g, '');
        // relations and binary operators spaced as TeX spaces them (on the line, not in scripts)
        const spaced = style.base === 0 && /^[=<>+\u2212\u00b1\u00d7\u2264\u2265\u2248\u2260\u2261\u223c\u2192\u2190\u21d4\u27fa\u21d2\u2208\u2209\u2282\u2286\u221d]$/.test(text);
        push(runs, spaced ? ` ${text} ` : text, { ...style, i: false });
        return;
      }
      case 'mspace':
        push(runs, ' ', style);
        return;
      case 'mphantom':
      case 'annotation':
      case 'annotation-xml':
        return;
      case 'msub':
        mathRuns(kids[0], style, runs);
        mathRuns(kids[1], at(script || -25), runs);
        return;
      case 'msup':
        mathRuns(kids[0], style, runs);
        mathRuns(kids[1], at(script || 30), runs);
        return;
      case 'msubsup':
        mathRuns(kids[0], style, runs);
        mathRuns(kids[1], at(script || -25), runs);
        mathRuns(kids[2], at(script || 30), runs);
        return;
      case 'munder':
      case 'munderover':
        mathRuns(kids[0], style, runs);
        mathRuns(kids[1], at(script || -25), runs);
        if (kids[2]) {
          mathRuns(kids[2], at(script || 30), runs);
        }
        return;
      case 'mover': {
        const accent = kids[1] ? kids[1].textContent : '';
        const combining = { '\u00af': '\u0304', '\u2015': '\u0304', '\u02c9': '\u0304',
          '^': '\u0302', '\u02c6': '\u0302', '~': '\u0303', '\u02dc': '\u0303',
          '\u2192': '\u20d7', '\u02d9': '\u0307', '.': '\u0307' }[accent];
        mathRuns(kids[0], style, runs);
        if (combining) {
          push(runs, combining, style);
        } else if (kids[1]) {
          mathRuns(kids[1], at(script || 30), runs);
        }
        return;
      }
      case 'mfrac': {
        const group = (el) => el.children.length > 1 && el.localName === 'mrow';
        const [top, bottom] = kids;
        push(runs, group(top) ? '(' : '', { ...style, i: false });
        mathRuns(top, style, runs);
        push(runs, (group(top) ? ')' : '') + '/' + (group(bottom) ? '(' : ''), { ...style, i: false });
        mathRuns(bottom, style, runs);
        push(runs, group(bottom) ? ')' : '', { ...style, i: false });
        return;
      }
      case 'msqrt':
      case 'mroot':
        push(runs, '\u221a(', { ...style, i: false });
        mathRuns(kids[0], style, runs);
        push(runs, ')', { ...style, i: false });
        return;
      case 'mtable':
        kids.forEach((row, n) => {
          if (n) {
            push(runs, '; ', { ...style, i: false });
          }
          mathRuns(row, style, runs);
        });
        return;
      case 'mtd':
        mathRuns(node.firstElementChild || node, style, runs);
        push(runs, ' ', style);
        return;
      case 'semantics':
        if (kids[0]) {
          mathRuns(kids[0], style, runs);
        }
        return;
      default:
        for (const kid of kids) {
          mathRuns(kid, style, runs);
        }
    }
  }

  // The runs of an element's text; `code` keeps its spaces and line breaks and the
  // background of highlighted lines (a code slide's .hll).
  function inline(node, runs, baseline, skipLists, code = false, highlight = null) {
    for (const child of node.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) {
        const text = code ? child.textContent : child.textContent.replace(/\s+/g, ' ');
        push(runs, text, styleOf(child.parentElement, baseline, highlight));
        continue;
      }
      if (child.nodeType !== Node.ELEMENT_NODE || child.matches(SKIP)) {
        continue;
      }
      if (skipLists && child.matches('ul, ol')) {
        continue;
      }
      if (child.localName === 'br') {
        push(runs, ' ', styleOf(node, baseline));
        continue;
      }
      if (child.localName === 'mjx-container') {
        const mml = child.querySelector('mjx-assistive-mml math');
        if (mml) {
          mathRuns(mml, styleOf(child, baseline), runs);
        } else {
          push(runs, child.textContent, styleOf(child, baseline));
        }
        continue;
      }
      if (getComputedStyle(child).display === 'none') {
        continue;
      }
      let base = baseline;
      if (child.localName === 'sub') {
        base = -25;
      } else if (child.localName === 'sup') {
        base = 30;
      }
      const marked = code ? background(child) || highlight : null;
      inline(child, runs, base, skipLists, code, marked);
    }
  }

  function paragraph(el, runs, level, bullet) {
    const style = getComputedStyle(el);
    // trim the ends of the paragraph's text
    while (runs.length && !runs[0].t.trimStart()) {
      runs.shift();
    }
    while (runs.length && !runs[runs.length - 1].t.trimEnd()) {
      runs.pop();
    }
    if (!runs.length) {
      return null;
    }
    runs[0].t = runs[0].t.trimStart();
    runs[runs.length - 1].t = runs[runs.length - 1].t.trimEnd();
    return {
      runs,
      level,
      bullet,
      size: parseFloat(style.fontSize) * zoomOf(el),
      align: style.textAlign === 'center' ? 'center' : style.textAlign === 'right' ? 'right' : 'left',
    };
  }

  function listParagraphs(list, level, out) {
    let number = 0;
    for (const item of list.children) {
      if (item.localName !== 'li' || !visible(item)) {
        continue;
      }
      number += 1;
      const runs = [];
      inline(item, runs, 0, true);
      const bullet = list.localName === 'ol' ? `${number}.` : '\u2022';
      const para = paragraph(item, runs, level, bullet);
      if (para) {
        out.push(para);
      }
      for (const nested of item.querySelectorAll(':scope > ul, :scope > ol')) {
        listParagraphs(nested, level + 1, out);
      }
    }
  }

  function textBlock(el, origin) {
    const paragraphs = [];
    if (el.matches('ul, ol')) {
      listParagraphs(el, 0, paragraphs);
    } else if (el.matches('pre')) {
      // one paragraph a line, its indentation kept
      const runs = [];
      inline(el, runs, 0, false, true);
      const lines = [[]];
      for (const run of runs) {
        run.m = true;
        run.t.split('\n').forEach((piece, n) => {
          if (n) {
            lines.push([]);
          }
          if (piece) {
            lines[lines.length - 1].push({ ...run, t: piece });
          }
        });
      }
      while (lines.length && !lines[lines.length - 1].length) {
        lines.pop();
      }
      const sized = el.querySelector('code') || el;
      for (const line of lines) {
        const style = getComputedStyle(sized);
        paragraphs.push({
          runs: line.length ? line : [{ t: ' ', ...styleOf(sized, 0), m: true }],
          level: 0,
          bullet: null,
          code: true,
          size: parseFloat(style.fontSize) * zoomOf(sized),
          align: 'left',
        });
      }
    } else {
      const runs = [];
      inline(el, runs, 0, false);
      const para = paragraph(el, runs, 0, null);
      if (para) {
        paragraphs.push(para);
      }
    }
    if (!paragraphs.length) {
      return null;
    }
    const style = getComputedStyle(el);
    const zoom = zoomOf(el);
    const padding = ['Left', 'Top', 'Right', 'Bottom'].map(
      (side) => parseFloat(style[`padding${side}`]) * zoom || 0,
    );
    return { kind: 'text', rect: box(el, origin), paragraphs, fill: background(el), padding };
  }

  function picture(el, origin) {
    shots += 1;
    el.dataset.pptxShot = String(shots);
    const outer = el.getBoundingClientRect();
    const item = {
      kind: 'picture', shot: shots, rect: box(el, origin), size: [outer.width, outer.height],
      crop: null, src: null,
    };
    if (el.localName === 'img' && /\.(png|jpe?g|gif)$/i.test(el.getAttribute('src') || '')) {
      item.src = el.src;
    }
    if (el.matches('div.math, mjx-container')) {
      // the equation and its number, not the empty width of the column around them
      const parts = Array.from(el.querySelectorAll('mjx-container > mjx-math, .eqno'));
      const rects = (parts.length ? parts : [el]).map((p) => p.getBoundingClientRect());
      const left = Math.min(...rects.map((r) => r.left)) - 4;
      const top = Math.min(...rects.map((r) => r.top)) - 4;
      const right = Math.max(...rects.map((r) => r.right)) + 4;
      const bottom = Math.max(...rects.map((r) => r.bottom)) + 4;
      item.crop = [left - outer.left, top - outer.top, right - left, bottom - top];
      item.rect = [left - origin.left, top - origin.top, right - left, bottom - top];
    }
    return item;
  }

  function walk(el, origin, items) {
    for (const child of el.children) {
      if (child.matches(SKIP) || child === heading || !visible(child)) {
        continue;
      }
      if (child.matches('div.math') || child.matches('mjx-container[display="true"]')) {
        items.push(picture(child, origin));
      } else if (child.matches(PICTURE)) {
        items.push(picture(child, origin));
      } else if (child.matches(TEXT)) {
        const block = textBlock(child, origin);
        if (block) {
          items.push(block);
        }
      } else if (child.children.length) {
        walk(child, origin, items);
      } else if (child.textContent.trim()) {
        const block = textBlock(child, origin);
        if (block) {
          items.push(block);
        }
      }
    }
  }

  const slides = [];
  // (the print layout wraps each slide in a .pdf-page; a vertical stack would nest sections)
  const sections = Array.from(document.querySelectorAll('.reveal .slides section')).filter(
    (section) => !section.parentElement.closest('section'),
  );
  for (const section of sections) {
    // the page the print layout gives the slide (1280 x 720), else the slide itself
    const origin = (section.closest('.pdf-page') || section).getBoundingClientRect();
    heading = section.querySelector('.slide-title') || section.querySelector('h1, h2');
    const items = [];
    walk(section, origin, items);
    slides.push({
      size: [origin.width, origin.height],
      title: heading && visible(heading) ? textBlock(heading, origin) : null,
      items,
    });
  }
  return slides;
}
