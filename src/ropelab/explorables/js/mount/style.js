// The explorables' style, added to the page once.

const STYLE = `
.ropelab-explorable { border: 1px solid #d0d7de; border-radius: 6px; padding: 10px 14px 12px;
margin: 0.4em 0 1.2em; background: #ffffff; color: #222222; max-width: 780px;
font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
font-size: 14px; line-height: 1.35; }
.ropelab-controls { display: grid; gap: 4px; margin-bottom: 6px; }
.ropelab-control { display: grid; grid-template-columns: 11em minmax(120px, 1fr) 6.5em;
align-items: center; gap: 12px; margin: 0; font-weight: normal; }
.ropelab-control input[type=range] { width: 100%; margin: 0; accent-color: #1f77b4; }
.ropelab-control select { font: inherit; padding: 1px 4px; }
.ropelab-control output { text-align: right; font-variant-numeric: tabular-nums; }
.ropelab-figure svg { display: block; width: 100%; height: auto; }
.ropelab-figure svg text { font-family: inherit; }
.ropelab-readout { margin: 6px 0 0; padding: 6px 10px; background: #f6f8fa; border-radius: 4px;
font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px;
white-space: pre-wrap; overflow-x: auto; }
.ropelab-figure-notes { font-size: 13px; text-align: center; margin: 2px 0 4px; }
.ropelab-figure.ropelab-figure-scrolls { overflow-x: auto;
background: linear-gradient(to left, #ffffff 40%, rgba(255,255,255,0)) right / 2rem 100% no-repeat local,
  radial-gradient(farthest-side at 100% 50%, rgba(0,0,0,.3), rgba(0,0,0,0)) right / 0.8rem 100% no-repeat scroll; }
@media (max-width: 600px) {
.ropelab-explorable { padding: 8px 8px 10px; }
.ropelab-control { grid-template-columns: minmax(0, 1fr) 5.5em; gap: 2px 8px; }
.ropelab-control > span { grid-column: 1 / -1; }
}
`;

function addStyle() {
  const style = document.createElement('style');
  style.setAttribute('data-ropelab-explore', '');
  style.textContent = STYLE;
  document.head.appendChild(style);
}
