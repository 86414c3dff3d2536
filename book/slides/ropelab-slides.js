// Start a chapter's deck (tools/build_slides.py) once MathJax has typeset, then fit every slide
// into 1280 x 720 (16:9): a slide whose content is taller gets smaller type (--fit, down to
// 70 %), then is zoomed as a whole (a tall explorable) until it fits. Slides are flex columns
// (title, body): reveal.js shows them with display: flex. With ?print-pdf reveal.js lays the
// deck out for printing (one page a slide): every slide is fitted first.
(function () {
  'use strict';
  const WIDTH = 1280;
  const HEIGHT = 720;

  // How much taller a slide's content is than the room it has (1: it fits): the body's
  // content against the body (the title takes its own line), both in the slide's own units.
  function excess(section) {
    const body = section.querySelector('.slide-body') || section;
    return body.scrollHeight / Math.max(1, body.clientHeight);
  }

  // How many pixels a display equation's formula needs beyond its room: the box's width,
  // less its number's (the formula's own drawn width, not its container's).
  function tooWide(math) {
    const formula = math.querySelector('mjx-container > mjx-math');
    const number = math.querySelector(':scope > .eqno');
    if (!formula || !number) {
      return math.scrollWidth - math.clientWidth;
    }
    const drawn = formula.getBoundingClientRect();
    const room = math.getBoundingClientRect();
    const numberBox = number.getBoundingClientRect();
    const scale = room.width / Math.max(1, math.offsetWidth);
    // the formula must end before the number starts, and start inside the box
    return Math.max(drawn.right - numberBox.left + 4 * scale, room.left - drawn.left, 0) / scale;
  }

  function fit(section) {
    if (!section || section.dataset.fit) {
      return;
    }
    let scale = 1;
    section.style.setProperty('--fit', '1');
    // Text first: smaller type, down to 70 %.
    const overflows = () => {
      const body = section.querySelector('.slide-body') || section;
      return body.scrollHeight > body.clientHeight + 1;
    };
    while (overflows() && scale > 0.7) {
      scale = Math.round((scale - 0.05) * 100) / 100;
      section.style.setProperty('--fit', String(scale));
    }
    // Then everything (a tall explorable or figure): zoom the slide's content to fit.
    let zoom = 1;
    // (the body only: the title keeps its size)
    const body = section.querySelector('.slide-body') || section;
    for (let step = 0; step < 8 && overflows(); step += 1) {
      zoom = Math.floor((zoom / Math.min(Math.max(excess(section), 1.01), 1.25)) * 100) / 100;
      body.style.zoom = String(zoom);
    }
    // A display equation wider than the slide, or than the room its number leaves: its type
    // made smaller until it fits (the number keeps its size, clear of the formula).
    // Never below half its size: what still does not fit is left for the checks to report.
    for (const math of section.querySelectorAll('.slide-body div.math')) {
      const original = parseFloat(getComputedStyle(math).fontSize);
      const smallest = original / 2;
      for (let step = 0; step < 6 && tooWide(math) > 1; step += 1) {
        const size = parseFloat(getComputedStyle(math).fontSize);
        const smaller = Math.floor(size * (1 - tooWide(math) / math.clientWidth) * 0.98);
        if (size <= smallest) {
          break;
        }
        math.style.fontSize = `${Math.max(smallest, smaller)}px`;
        const number = math.querySelector(':scope > .eqno');
        if (number) {
          number.style.fontSize = `${(0.67 * original) / parseFloat(math.style.fontSize)}em`;
        }
      }
    }
    section.dataset.fit = String(scale);
    section.dataset.zoom = String(zoom);
  }

  // reveal.js draws the slide number as a link to "#/<n>", a route of its own: keep the
  // number, drop the link (a page of the site links only to anchors that exist).
  function unlinkSlideNumbers(root) {
    const strip = () => {
      for (const link of root.querySelectorAll('.slide-number a[href]')) {
        link.removeAttribute('href');
      }
    };
    new MutationObserver(strip).observe(root, { childList: true, subtree: true });
    strip();
  }

  // ?core: the deck of the core sections only (the course marker each slide carries from its
  // chapter, data-course; the teaching page's one- and two-lecture paths take these).
  function keepCoreOnly() {
    if (!new URLSearchParams(window.location.search).has('core')) {
      return;
    }
    for (const section of document.querySelectorAll('.reveal .slides > section[data-course="optional"]')) {
      section.remove();
    }
    document.documentElement.dataset.deckCoreOnly = 'true';
  }

  function start() {
    keepCoreOnly();
    unlinkSlideNumbers(document.querySelector('.reveal'));
    Reveal.initialize({
      hash: true,
      slideNumber: 'c/t',
      width: WIDTH,
      height: HEIGHT,
      margin: 0.04,
      center: false,
      display: 'flex',
      transition: 'none',
      pdfMaxPagesPerSlide: 1,
      plugins: [RevealNotes],
    }).then(() => {
      if (/print-pdf/.test(window.location.search)) {
        for (const section of document.querySelectorAll('.reveal .slides > section')) {
          fit(section);
        }
      }
      fit(Reveal.getCurrentSlide());
      Reveal.on('slidechanged', (event) => fit(event.currentSlide));
      Reveal.layout();
      document.documentElement.dataset.deckReady = 'true';
    });
  }

  document.addEventListener('DOMContentLoaded', () => {
    const typeset = window.MathJax && MathJax.startup && MathJax.startup.promise;
    (typeset || Promise.resolve()).then(start, start);
  });
})();
