// Start a chapter's deck (tools/build_slides.py) once MathJax has typeset, then fit every slide
// into 1280 x 800: a slide whose content is taller gets smaller type (--fit, down to 70 %), then
// is zoomed as a whole (a tall explorable or figure) until it fits.
(function () {
  'use strict';
  const WIDTH = 1280;
  const HEIGHT = 800;

  function fit(section) {
    if (!section || section.dataset.fit) {
      return;
    }
    const limit = HEIGHT * 0.97;
    let scale = 1;
    section.style.setProperty('--fit', '1');
    section.style.zoom = '';
    // Text first: smaller type, down to 70 %.
    while (section.scrollHeight > limit && scale > 0.7) {
      scale = Math.round((scale - 0.05) * 100) / 100;
      section.style.setProperty('--fit', String(scale));
    }
    // Then everything (a tall explorable or figure): zoom the slide's content to fit.
    let zoom = 1;
    if (section.scrollHeight > limit) {
      zoom = Math.floor((limit / section.scrollHeight) * 100) / 100;
      section.style.zoom = String(zoom);
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

  function start() {
    unlinkSlideNumbers(document.querySelector('.reveal'));
    Reveal.initialize({
      hash: true,
      slideNumber: 'c/t',
      width: WIDTH,
      height: HEIGHT,
      margin: 0.04,
      center: false,
      transition: 'none',
      plugins: [RevealNotes],
    }).then(() => {
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
