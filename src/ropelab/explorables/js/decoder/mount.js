// Mounting the decoder on a page: its menu, text box and button.

function mount(root) {
  if (root.getAttribute('data-mounted') === 'true') {
    return;
  }
  root.setAttribute('data-mounted', 'true');
  const lang = core.language(document.documentElement.lang);
  if (lang === 'zh') {
    // the markup (from Python) is English; a Chinese page reads its label and button in Chinese
    const fixed = words(lang);
    const label = root.querySelector('.ropelab-control > span');
    if (label) {
      label.textContent = fixed.shipped;
    }
    root.querySelector('button').textContent = fixed.decode;
    root.setAttribute('data-lang', lang);
  }
  const configs = window.ropelabDecoderConfigs || {};
  const select = root.querySelector('select');
  for (const name of Object.keys(configs).sort()) {
    el('option', { value: name }, select, name);
  }
  select.value = root.getAttribute('data-default');
  const area = root.querySelector('textarea');
  const out = root.querySelector('.ropelab-decoder-output');
  const button = root.querySelector('button');
  const run = () => {
    root.ropelabRecord = decodeText(area.value);
    render(out, root.ropelabRecord, lang);
  };
  const load = () => {
    if (has(configs, select.value)) {
      area.value = JSON.stringify(configs[select.value], null, 2);
      run();
    }
  };
  select.addEventListener('change', load);
  button.addEventListener('click', run);
  load();
}

function mountAll() {
  addStyle();
  document.querySelectorAll('.ropelab-decoder').forEach(mount);
}

window.ropelabDecoder = Object.assign(api, { mountAll: mountAll });
if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', mountAll);
} else {
  mountAll();
}
