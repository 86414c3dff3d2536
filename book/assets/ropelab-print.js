/*
 * Printing: scale a display equation that is wider than the paper down until it fits, instead
 * of letting the page cut it off (book/assets/ropelab-pages.css prints math with overflow
 * visible). Runs when the page switches to print media (the print dialog, or
 * emulateMedia('print') in the browser tests) and undoes itself afterwards. On screen nothing
 * changes: there a wide equation scrolls inside its own box.
 */
(() => {
  "use strict";
  const SMALLEST = 0.4; // below this an equation is unreadable on paper anyway
  const printing = window.matchMedia("print");
  const fitted = new Map();

  const widthOf = (container) => {
    const math = container.querySelector(":scope > mjx-math") || container;
    return math.getBoundingClientRect().width;
  };

  function fit() {
    unfit();
    for (const c of document.querySelectorAll('mjx-container[jax="CHTML"][display="true"]')) {
      const box = c.clientWidth;
      let width = widthOf(c);
      if (!box || width <= box + 1) continue;
      fitted.set(c, c.style.fontSize);
      const base = parseFloat(getComputedStyle(c).fontSize);
      let scale = 1;
      // Font size is not exactly proportional to width (rounding of rules and spaces): two
      // passes are enough.
      for (let pass = 0; pass < 2 && width > box + 1 && scale > SMALLEST; pass++) {
        scale = Math.max(SMALLEST, (scale * (box - 2)) / width);
        c.style.fontSize = `${(base * scale).toFixed(2)}px`;
        width = widthOf(c);
      }
    }
  }

  function unfit() {
    for (const [c, size] of fitted) c.style.fontSize = size;
    fitted.clear();
  }

  const onChange = () => (printing.matches ? fit() : unfit());
  printing.addEventListener("change", onChange);
  window.addEventListener("beforeprint", fit);
  window.addEventListener("afterprint", unfit);
  window.addEventListener("resize", () => {
    if (printing.matches) fit();
  });
  // MathJax typesets after load: fit again once it is done, if the page is printing already.
  const whenTypeset = () =>
    window.MathJax && MathJax.startup && MathJax.startup.promise
      ? MathJax.startup.promise.then(onChange)
      : null;
  if (document.readyState === "complete") whenTypeset();
  else window.addEventListener("load", whenTypeset);
})();
