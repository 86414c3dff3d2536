// ---------------------------------------------------------------------------------------
// (d) The description (ropelab.describe)
// ---------------------------------------------------------------------------------------

// the method's parameters, then M-RoPE's sections (describe._method_parameters)
function methodParameters(flat, original) {
  const out = typeParameters(flat, original);
  if (truthy(flat.mrope_section)) {
    out.push(['mrope_section', flat.mrope_section.map((x) => String(Math.trunc(x))).join('/')]);
    out.push(['mrope_interleaved', truthy(has(flat, 'mrope_interleaved') ? flat.mrope_interleaved : false)]);
  }
  return out;
}

function typeParameters(flat, original) {
  const kind = flat.rope_type;
  if (kind === 'yarn') {
    const out = [
      ['beta_fast', truthy(flat.beta_fast) ? flat.beta_fast : 32],
      ['beta_slow', truthy(flat.beta_slow) ? flat.beta_slow : 1],
    ];
    if (has(flat, 'truncate')) {
      out.push(['truncate', truthy(flat.truncate)]);
    }
    for (const key of ['mscale', 'mscale_all_dim']) {
      if (get(flat, key) !== null) {
        out.push([key, flat[key]]);
      }
    }
    return out;
  }
  if (kind === 'llama3') {
    const low = flat.low_freq_factor;
    const high = flat.high_freq_factor;
    return [
      ['low_freq_factor', low],
      ['high_freq_factor', high],
      ['kept below wavelength', original / high],
      ['divided above', original / low],
    ];
  }
  if (kind === 'longrope') {
    const span = (v) => `${explore.format.fixed(Math.min(...v), 2)}..${explore.format.fixed(Math.max(...v), 2)}`;
    return [
      ['short factors', span(flat.short_factor)],
      ['long factors', span(flat.long_factor)],
    ];
  }
  if (kind === 'proportional') {
    return [['rotated fraction', has(flat, 'partial_rotary_factor') ? flat.partial_rotary_factor : 1.0]];
  }
  return [];
}

function describeLayer(entry, where) {
  const flat = entry.config.rope_parameters;
  const [inv, attention] = frequencies(ropeSpec(entry.config, where));
  let reference = { rope_type: 'default', rope_theta: flat.rope_theta, partial_rotary_factor: has(flat, 'partial_rotary_factor') ? flat.partial_rotary_factor : 1.0 };
  if (flat.rope_type === 'proportional') {
    reference = Object.assign({}, flat, { factor: 1.0 });
  }
  const refConfig = Object.assign({}, entry.config, { rope_parameters: reference });
  delete refConfig.original_max_position_embeddings;
  const [theta] = frequencies(ropeSpec(refConfig, where));
  let original = truthy(entry.config.original_max_position_embeddings) ? entry.config.original_max_position_embeddings : get(flat, 'original_max_position_embeddings');
  let factor = get(flat, 'factor');
  const kind = flat.rope_type;
  if ((kind === 'yarn' || kind === 'longrope') && factor === null) {
    const maxLen = entry.config.max_position_embeddings;
    factor = maxLen === null || original === null ? null : maxLen / original;
  }
  if (kind === 'default') {
    factor = null;
    original = null;
  } else if (kind === 'linear' || kind === 'dynamic' || kind === 'proportional') {
    original = null;
  }
  let kept = 0;
  let stretched = 0;
  let interpolated = 0;
  theta.forEach((t, i) => {
    const ratio = t > 0 ? inv[i] / t : 1.0;
    if (factor !== null && factor !== 1 && Math.abs(ratio * factor - 1) <= 1e-9) {
      interpolated += 1;
    } else if (Math.abs(ratio - 1) <= 1e-9) {
      kept += 1;
    } else {
      stretched += 1;
    }
  });
  const rotating = theta.filter((t) => t > 0);
  return {
    layer_type: entry.layer_type,
    num_layers: entry.layers.length ? entry.layers.length : null,
    rope_type: kind,
    base: flat.rope_theta,
    rotary_dim: 2 * rotating.length,
    factor: factor,
    original_length: original,
    attention_factor: attention,
    kept: kept,
    stretched: stretched,
    interpolated: interpolated,
    longest_wavelength: [core.TWO_PI / Math.min(...rotating), core.TWO_PI / Math.min(...inv.filter((t) => t > 0))],
    parameters: methodParameters(flat, original),
    inv_freq: inv,
    layers: entry.layers,
  };
}
