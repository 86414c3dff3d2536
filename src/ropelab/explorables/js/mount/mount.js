

// ---------------------------------------------------------------------------------------
// (d) Mounting
// ---------------------------------------------------------------------------------------

// The slider position whose value is closest to `value` (on the slider's own scale).
function nearestIndex(values, value, spec) {
  const t = spec.scale === 'log' ? Math.log : (v) => v;
  let best = 0;
  values.forEach((v, i) => {
    if (Math.abs(t(v) - t(value)) < Math.abs(t(values[best]) - t(value))) {
      best = i;
    }
  });
  return best;
}

// The value shown next to a control.
function controlText(value, spec) {
  return spec.decimals === undefined ? formatNumber(value) : fmtF(value, spec.decimals);
}

const instances = [];

// The controls' labels and menu texts in the page's language (the markup, from Python, is
// English; a Chinese page reads them in Chinese; the values stay the same).
function translateControls(root, lang) {
  if (lang !== 'zh') {
    return;
  }
  root.setAttribute('data-lang', lang);
  for (const label of root.querySelectorAll('.ropelab-control')) {
    const span = label.querySelector('span');
    const field = label.querySelector('[data-param]');
    if (!span || !field) {
      continue;
    }
    span.textContent = controlLabel(span.textContent, lang);
    if (field.hasAttribute('aria-label')) {
      field.setAttribute('aria-label', span.textContent);
    }
    if (field.tagName === 'SELECT') {
      for (const option of field.options) {
        option.textContent = optionText(field.getAttribute('data-param'), option.value, lang);
      }
    }
  }
}

// Wire the controls inside `root` (the HTML of ropelab.explorables.explorable) to the
// figure. config: {kind, params, controls: [control spec, ...], constants}.
function mount(root, config) {
  if (root.getAttribute('data-mounted') === 'true') {
    return null;
  }
  root.setAttribute('data-mounted', 'true');
  const kind = KINDS[config.kind];
  const lang = pageLanguage();
  translateControls(root, lang);
  const specs = {};
  for (const spec of config.controls) {
    specs[spec.name] = spec;
  }
  const instance = { kind: config.kind, params: clamp(config.controls, config.params), data: null, root: root };
  const figure = root.querySelector('.ropelab-figure');
  const readoutBox = root.querySelector('.ropelab-readout');
  const sliders = [];

  function redraw() {
    instance.data = kind.compute(instance.params, config.constants);
    const text = readout(config.kind, instance.data, lang);
    const svg = document.createElementNS(SVG_NS, 'svg');
    svg.setAttribute('viewBox', `0 0 ${WIDTH} ${kind.height}`);
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', text.split('\n')[0]);
    kind.draw(svg, instance.data, config.constants);
    figure.textContent = '';
    figure.classList.remove('ropelab-figure-scrolls');
    figure.appendChild(svg);
    instance.stacked = figure.clientWidth > 0 && figure.clientWidth < STACK_BELOW;
    if (instance.stacked) {
      stackFigure(figure, svg, kind.split === undefined ? null : kind.split);
    }
    readoutBox.textContent = text;
  }
  instance.redraw = redraw;

  // A slider whose lower end follows another control (spec.at_least: T_tune ≥ T_train)
  // starts at that control's position, and its value is raised with it (clamp).
  function followFloors() {
    instance.params = clamp(config.controls, instance.params);
    for (const s of sliders) {
      const floorName = s.spec.at_least;
      if (floorName) {
        const floor = instance.params[floorName];
        s.input.min = s.values.findIndex((v) => v >= floor);
      }
      s.input.value = nearestIndex(s.values, instance.params[s.name], s.spec);
      s.output.textContent = controlText(instance.params[s.name], s.spec);
    }
  }

  for (const input of root.querySelectorAll('[data-param]')) {
    const name = input.getAttribute('data-param');
    const spec = specs[name];
    if (input.tagName === 'SELECT') {
      input.value = instance.params[name];
      input.addEventListener('input', () => {
        instance.params[name] = input.value;
        redraw();
      });
      continue;
    }
    const values = sliderValues(spec);
    Object.assign(input, { min: 0, max: values.length - 1, step: 1 });
    input.value = nearestIndex(values, instance.params[name], spec);
    const slider = { name: name, spec: spec, values: values, input: input, output: input.parentNode.querySelector('output') };
    sliders.push(slider);
    input.addEventListener('input', () => {
      instance.params[name] = values[Number(input.value)];
      followFloors();
      redraw();
    });
  }
  followFloors();
  redraw();
  instances.push(instance);
  if (watcher) {
    watcher.observe(figure);
  }
  return instance;
}

// Mount every explorable of the page that is not mounted yet, from its JSON config.
function mountAll() {
  for (const root of document.querySelectorAll('.ropelab-explorable:not([data-mounted])')) {
    const config = root.querySelector('script.ropelab-config');
    if (config) {
      mount(root, JSON.parse(config.textContent));
    }
  }
}

// A figure whose box crossed STACK_BELOW (a phone turned, a window resized) is drawn again.
function restack() {
  for (const instance of instances) {
    const width = instance.root.querySelector('.ropelab-figure').clientWidth;
    if (width > 0 && (width < STACK_BELOW) !== instance.stacked) {
      instance.redraw();
    }
  }
}

addStyle();
window.addEventListener('resize', restack);
// a figure shown again (print media left, a hidden block opened) may have a new width;
// drawn again in the next frame, outside the observer's callback
const watcher = typeof ResizeObserver === 'undefined' ? null
  : new ResizeObserver(() => requestAnimationFrame(restack));
window.ropelabExplore = Object.assign(api, { instances: instances, mount: mount, mountAll: mountAll });
if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', mountAll);
} else {
  mountAll();
}
