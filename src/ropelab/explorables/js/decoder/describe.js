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

// the parameters the record lists, each read by its rule (rope_config.DescribedParameter.pairs)
function describedPair(shown, flat, original) {
  const key = shown.key;
  let value;
  if (shown.rule === 'value') {
    value = has(flat, key) ? flat[key] : shown.default;
  } else if (shown.rule === 'or_default') {
    value = truthy(flat[key]) ? flat[key] : shown.default;
  } else if (shown.rule === 'bool_if_present') {
    if (!has(flat, key)) {
      return [];
    }
    value = truthy(flat[key]);
  } else if (shown.rule === 'if_set') {
    if (get(flat, key) === null) {
      return [];
    }
    value = flat[key];
  } else if (shown.rule === 'float') {
    value = Number(flat[key]);
  } else if (shown.rule === 'range') {
    const values = flat[key];
    value = `${explore.format.fixed(Math.min(...values), 2)}..${explore.format.fixed(Math.max(...values), 2)}`;
  } else {
    fail(`unknown DescribedParameter rule ${repr(shown.rule)} for ${shown.label}`);
  }
  if (shown.over_original) {
    value = original / value;
  }
  return [[shown.label, value]];
}

function typeParameters(flat, original) {
  return ROPE_TYPES[flat.rope_type].described.flatMap((shown) => describedPair(shown, flat, original));
}

function describeLayer(entry, where) {
  const flat = entry.config.rope_parameters;
  const [inv, attention] = frequencies(ropeSpec(entry.config, where));
  const kind = flat.rope_type;
  const record = ROPE_TYPES[kind]; // ropeSpec has checked the name
  let reference = { rope_type: 'default', rope_theta: flat.rope_theta, partial_rotary_factor: has(flat, 'partial_rotary_factor') ? flat.partial_rotary_factor : 1.0 };
  if (record.reference === 'factor_one') {
    reference = Object.assign({}, flat, { factor: 1.0 });
  }
  const refConfig = Object.assign({}, entry.config, { rope_parameters: reference });
  delete refConfig.original_max_position_embeddings;
  const [theta] = frequencies(ropeSpec(refConfig, where));
  let original = truthy(entry.config.original_max_position_embeddings) ? entry.config.original_max_position_embeddings : get(flat, 'original_max_position_embeddings');
  let factor = get(flat, 'factor');
  if (!record.original_length) {
    original = null;
  } else if (factor === null) {
    // null or missing: max / original, as ropeSpec reads it
    const maxLen = get(entry.config, 'max_position_embeddings');
    factor = maxLen === null || original === null ? null : maxLen / original;
  }
  if (record.factor === null) {
    factor = null;
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
