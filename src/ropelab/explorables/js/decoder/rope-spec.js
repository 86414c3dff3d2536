// (c) The rope types (ropelab.rope_config): a config's rope dict read into a spec by the
// records of ROPE_TYPES (written by the bundler from ropelab.rope_config.ROPE_TYPES: which
// types exist, how each reads `factor`, its original length, the keys it requires and reads).

const TYPE_NAMES = Object.keys(ROPE_TYPES).sort();

// The reads a rope type has beyond its record (RopeType.read in Python), by name.
const READERS = {
  // YaRN: truncate (true or false), beta_fast and beta_slow (falsy values take the defaults)
  yarn(params, where, spec) {
    const truncate = has(params, 'truncate') ? params.truncate : true;
    if (truncate !== null && typeof truncate !== 'boolean') {
      fail(`${where}['truncate'] must be true or false, got ${repr(truncate)}`);
    }
    spec.beta_fast = truthy(params.beta_fast) ? params.beta_fast : 32;
    spec.beta_slow = truthy(params.beta_slow) ? params.beta_slow : 1;
    spec.truncate = truthy(truncate);
  },
};


function specHeadDim(config) {
  if (get(config, 'head_dim') !== null) {
    return checkCount(config.head_dim, 'head_dim');
  }
  const head = headDimOf(config);
  if (head < 1) {
    fail(`hidden_size // num_attention_heads must be >= 1, got ${config.hidden_size} // ${config.num_attention_heads} = 0`);
  }
  return head;
}

function factorList(values, name, planes) {
  if (!Array.isArray(values)) {
    fail(`${name} must be a list of ${planes} numbers > 0, got ${repr(values)}`);
  }
  values.forEach((v) => checkFinite(v, name));
  if (values.length !== planes) {
    fail(`${name} must have rotary_dim / 2 = ${planes} entries, got shape (${values.length},)`);
  }
  if (values.some((v) => v <= 0)) {
    fail(`${name} must be > 0 everywhere`);
  }
  return values;
}

// rope_spec_from_config on a normalised layer config; `where` is the key of the rope dict
function ropeSpec(config, where) {
  const params = isObject(config.rope_parameters) ? config.rope_parameters : {};
  for (const [k, v] of Object.entries(params)) {
    if (isObject(v)) {
      fail(`${where} is nested per layer type (keys ['${k}']); pass a config whose ${where} is the dict of one layer type`);
    }
  }
  const pick = (key, fallback) => (get(params, key) !== null ? params[key] : get(config, key) !== null ? config[key] : fallback);
  const kind = has(params, 'rope_type') ? params.rope_type : get(params, 'type', 'default');
  if (typeof kind !== 'string' || !has(ROPE_TYPES, kind)) {
    fail(`${where}['rope_type'] must be one of [${TYPE_NAMES.map((t) => `'${t}'`).join(', ')}], got ${repr(kind)}`);
  }
  const record = ROPE_TYPES[kind];
  const required = (key) => (get(params, key) === null ? fail(`${where}['${key}'] is required for rope_type '${kind}'`) : params[key]);
  const spec = {
    rope_type: kind,
    head_dim: specHeadDim(config),
    rope_theta: pick('rope_theta', 10000.0),
    partial_rotary_factor: pick('partial_rotary_factor', 1.0),
    max_position_embeddings: get(config, 'max_position_embeddings'),
    factor: null,
    original: null,
    attention_factor: null,
    beta_fast: 32,
    beta_slow: 1,
    mscale: null,
    mscale_all_dim: null,
    truncate: true,
  };
  const maxLen = spec.max_position_embeddings === null ? null : checkCount(spec.max_position_embeddings, 'max_position_embeddings');
  if (record.factor === 'required') {
    spec.factor = required('factor');
  } else if (record.factor === 'nullable') {
    if (!has(params, 'factor')) {
      fail(`${where}['factor'] is required for rope_type '${kind}' (null means max_position_embeddings / original_max_position_embeddings)`);
    }
    spec.factor = get(params, 'factor');
  } else if (record.factor === 'optional') {
    spec.factor = get(params, 'factor');
  }
  if (spec.factor !== null) {
    checkPositive(spec.factor, `${where}['factor']`, 1.0, true);
  }
  if (record.needs_max_length && maxLen === null) {
    fail(`max_position_embeddings is required for rope_type '${kind}'`);
  }
  if (record.original_length) {
    let original = get(config, 'original_max_position_embeddings');
    if (original === null) {
      original = get(params, 'original_max_position_embeddings');
    }
    if (original === null) {
      original = maxLen;
    }
    if (original === null) {
      fail(`rope_type '${kind}' needs original_max_position_embeddings (top level or in ${where}) or max_position_embeddings`);
    }
    spec.original = checkCount(original, 'original_max_position_embeddings');
    if (spec.factor === null) {
      if (maxLen === null) {
        fail(`${where}['factor'] is null, so rope_type '${kind}' needs max_position_embeddings to derive it`);
      }
      spec.factor = maxLen / spec.original;
    }
  }
  for (const key of record.required) {
    spec[key] = required(key);
  }
  for (const key of record.optional) {
    spec[key] = get(params, key);
  }
  if (has(READERS, kind)) {
    READERS[kind](params, where, spec);
  }
  // RopeSpec.__post_init__
  checkCount(spec.head_dim, 'head_dim');
  checkPositive(spec.rope_theta, 'rope_theta');
  checkPositive(spec.partial_rotary_factor, 'partial_rotary_factor');
  if (spec.partial_rotary_factor > 1) {
    fail(`partial_rotary_factor must be in (0, 1], got ${spec.partial_rotary_factor}`);
  }
  spec.rotary_dim = Math.trunc(spec.head_dim * spec.partial_rotary_factor);
  if (spec.rotary_dim <= 0 || spec.rotary_dim % 2) {
    fail(`the rotary dimension int(head_dim * partial_rotary_factor) = int(${spec.head_dim} * ${g(spec.partial_rotary_factor)}) = ${spec.rotary_dim} must be a positive even integer`);
  }
  for (const name of ['factor', 'attention_factor', 'low_freq_factor', 'high_freq_factor']) {
    if (spec[name] !== null && spec[name] !== undefined) {
      checkPositive(spec[name], name);
    }
  }
  for (const name of ['mscale', 'mscale_all_dim']) {
    if (spec[name] !== null) {
      checkFinite(spec[name], name);
    }
  }
  checkPositive(spec.beta_fast, 'beta_fast');
  checkPositive(spec.beta_slow, 'beta_slow');
  if (spec.beta_fast < spec.beta_slow) {
    fail(`beta_fast must be >= beta_slow, got beta_fast=${spec.beta_fast} and beta_slow=${spec.beta_slow}`);
  }
  for (const name of ['short_factor', 'long_factor']) {
    if (spec[name] !== undefined && spec[name] !== null) {
      factorList(spec[name], name, spec.rotary_dim / 2);
    }
  }
  if (spec.low_freq_factor !== undefined && spec.high_freq_factor < spec.low_freq_factor) {
    fail(`high_freq_factor must be >= low_freq_factor, got high_freq_factor=${spec.high_freq_factor} and low_freq_factor=${spec.low_freq_factor}`);
  }
  return spec;
}
