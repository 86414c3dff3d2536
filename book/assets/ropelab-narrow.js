/*
 * Display equations on a narrow screen (issue 33, "Phones"). Loaded on every page by
 * src/ropebook/ext/reader_pages.py, before ropelab-print.js.
 *
 * A display equation that a phone could not show whole was typeset twice at build time
 * (src/ropebook/ext/light_pages.py, narrow_math.py): its wide form and a narrow form broken at its
 * relations and operators, both MathJax containers in the same div.math, marked
 * data-ropelab-variant="wide" / "narrow". For every display equation, at load and whenever
 * the page's width changes, this script:
 *   1. shows the wide form if it fits its box, else the narrow form (class ropelab-narrow on
 *      the div.math), and moves aria-hidden to the hidden one, so a screen reader reads one;
 *   2. shrinks what is shown and still does not fit, down to SMALLEST of its size;
 *   3. marks what still does not fit with ropelab-scroll-cue (a shadow at the edge that
 *      scrolls, ropelab-pages.css): it stays whole and scrolls.
 * In print it undoes all of this (the print stylesheet shows the wide form and
 * ropelab-print.js fits it to the paper).
 *
 * A table wider than the column on a narrow screen (the glossary, a comparison) would scroll
 * its formulas out of sight: it is shown stacked instead, one block per row, each cell under
 * the name of its column (class ropelab-stacked, data-label on the cells; screen only).
 */
(() => {
  "use strict";
  const SMALLEST = 0.7;
  const printing = window.matchMedia("print");
  const SELECTOR = 'div.math mjx-container[jax="CHTML"][display="true"]';

  const naturalWidth = (c) => (c.querySelector(":scope > mjx-math") || c).getBoundingClientRect().width;

  function reset(c) {
    c.style.fontSize = c.dataset.ropelabStyleSize || "";
    c.classList.remove("ropelab-scroll-cue", "ropelab-scaled");
  }

  function showVariant(host, narrow) {
    host.classList.toggle("ropelab-narrow", narrow);
    for (const c of host.querySelectorAll(":scope > mjx-container[data-ropelab-variant]")) {
      const hidden = (c.dataset.ropelabVariant === "narrow") !== narrow;
      if (hidden) c.setAttribute("aria-hidden", "true");
      else c.removeAttribute("aria-hidden");
    }
  }

  function shown(host) {
    return [...host.querySelectorAll(":scope > mjx-container")].find((c) => c.offsetParent !== null);
  }

  // The wide form if it fits, else the narrow one; then shrink, then the scroll cue.
  function fitHost(host) {
    const all = [...host.querySelectorAll(":scope > mjx-container")];
    for (const c of all) {
      if (!("ropelabStyleSize" in c.dataset)) c.dataset.ropelabStyleSize = c.style.fontSize;
      reset(c);
    }
    showVariant(host, false);
    let c = shown(host);
    if (!c || !c.clientWidth) return;
    if (host.querySelector('[data-ropelab-variant="narrow"]') && naturalWidth(c) > c.clientWidth + 1) {
      showVariant(host, true);
      c = shown(host);
    }
    let width = naturalWidth(c);
    const box = c.clientWidth;
    if (width <= box + 1) return;
    const base = parseFloat(getComputedStyle(c).fontSize);
    c.dataset.ropelabFontSize = String(base);
    let scale = 1;
    for (let pass = 0; pass < 2 && width > box + 1 && scale > SMALLEST; pass++) {
      scale = Math.max(SMALLEST, (scale * (box - 2)) / width);
      c.style.fontSize = `${(base * scale).toFixed(2)}px`;
      width = naturalWidth(c);
    }
    c.classList.add("ropelab-scaled");
    if (width > box + 1) c.classList.add("ropelab-scroll-cue");
  }

  const NARROW_SCREEN = window.matchMedia("screen and (max-width: 600px)");

  function stackTables() {
    for (const table of document.querySelectorAll("article.bd-article table")) {
      const box = table.closest(".pst-scrollable-table-container") || table.parentElement;
      table.classList.remove("ropelab-stacked");
      if (!NARROW_SCREEN.matches || table.scrollWidth <= box.clientWidth + 1) continue;
      const names = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
      for (const row of table.querySelectorAll("tbody tr")) {
        [...row.children].forEach((cell, i) => {
          if (names[i]) cell.dataset.label = names[i];
        });
      }
      table.classList.add("ropelab-stacked");
    }
  }

  // Fit every equation whose box changed width (or every one, when `all`).
  const widths = new WeakMap();
  function fit(all = false) {
    if (printing.matches) return;
    if (all || NARROW_SCREEN.matches !== fit.narrowScreen) {
      fit.narrowScreen = NARROW_SCREEN.matches;
      stackTables();
    }
    for (const host of hosts()) {
      const width = host.clientWidth;
      if (all || widths.get(host) !== width) {
        widths.set(host, width);
        fitHost(host);
      }
    }
  }

  const hosts = () =>
    new Set([...document.querySelectorAll(SELECTOR)].map((c) => c.closest("div.math")));

  function unfit() {
    for (const c of document.querySelectorAll(SELECTOR)) reset(c);
    for (const host of document.querySelectorAll("div.math.ropelab-narrow")) showVariant(host, false);
  }

  window.addEventListener("resize", () => fit());
  // an equation that comes into view (a solution or a hidden block opened) gets its width:
  // fitted in the next frame, outside the observer's callback
  const observer = new ResizeObserver(() => requestAnimationFrame(() => fit()));
  const start = () => {
    for (const host of hosts()) observer.observe(host);
    fit(true);
  };
  // ropelab-print.js fits the wide forms to the paper; this script steps aside first, and
  // comes back a frame after printing (when ropelab-print.js has undone its own sizes).
  const back = () => requestAnimationFrame(() => fit(true));
  printing.addEventListener("change", () => (printing.matches ? unfit() : back()));
  window.addEventListener("beforeprint", unfit);
  window.addEventListener("afterprint", back);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
  // the fonts change the widths: measure again once they are in
  if (document.fonts) document.fonts.ready.then(() => fit(true));
})();
