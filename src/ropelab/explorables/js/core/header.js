/* ropelab-explore.js: the book's explorables, figures whose controls respond on a static page.
 *
 * A classic script (ES2020, no dependencies, no network requests). The book's pages load it
 * once as a site asset; outside the book each explorable output carries it. However many
 * times it runs, it defines window.ropelabExplore once, with
 *   mountAll()           mounts every explorable on the page not mounted yet (the output of
 *                        ropelab.explorables.explorable: markup plus a JSON config);
 *   mount(root, config)  wires the controls inside `root` and draws the figure;
 *   instances            one entry per mounted explorable: {kind, params, data, root}, where
 *                        `data` has the keys of ropelab.explorables.explorable_data(kind);
 * and the pure functions below. In Node (`require`) it exports only the pure functions
 * (compute, readout, clamp, sliderValues, the number formats): the drift check of
 * tests/test_explorable_drift.py compares them with Python on seeded settings.
 *
 * On a page whose <html lang> starts with "zh" (the Chinese edition, Sphinx's language:
 * zh_CN) the readouts and the controls' labels read Chinese, with the same numbers in the same
 * formats: readout(kind, data, lang), controlLabel(label, lang), optionText(name, value, lang).
 *
 * The sources are src/ropelab/explorables/js/, joined by ropelab.explorables.bundle: the core
 * (js/core/: the formulas, each mirroring the ropelab function named above it, Python's number
 * formats, the two languages, the controls as ropelab.interactive.controls, a small SVG
 * plotting layer and the registry), one block per figure (js/figures/<kind>.js: its data,
 * readouts and drawing), then the API and the mounting (js/mount/). window.ropelabExplore.core
 * (in Node, the export's core) holds every core name: the config decoder reads it.
 */
