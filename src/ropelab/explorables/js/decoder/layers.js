// ---------------------------------------------------------------------------------------
// (b) Reading a config (ropelab.config_fields.normalize_config)
// ---------------------------------------------------------------------------------------

function ropeType(params, modelType) {
  let name;
  if (has(params, 'rope_type')) {
    name = params.rope_type;
  } else if (get(params, 'type') !== null) {
    name = params.type;
  } else {
    name = 'default';
  }
  if (typeof name !== 'string') {
    return name;
  }
  let renamed = has(LEGACY_TYPE_NAMES, name) ? LEGACY_TYPE_NAMES[name] : null;
  if (rulesOf(modelType).includes('yarn_is_longrope')) {
    renamed = RULE_CODE.yarn_is_longrope(name) || renamed;
  }
  return renamed === null ? name : renamed;
}

function flatParams(params, modelType, theta, partial) {
  const flat = {};
  for (const [k, v] of Object.entries(params)) {
    if (k !== 'type') {
      flat[k] = v;
    }
  }
  flat.rope_type = ropeType(params, modelType);
  if (get(flat, 'rope_theta') === null) {
    flat.rope_theta = theta;
  }
  if (get(flat, 'partial_rotary_factor') === null) {
    flat.partial_rotary_factor = partial;
  }
  return flat;
}

function nestedLayerTypes(params, text) {
  const declared = new Set([
    ...(Array.isArray(text.layer_types) ? text.layer_types : []),
    'full_attention',
    'sliding_attention',
    'main',
    'compress',
  ]);
  return Object.keys(params).filter((k) => declared.has(k) && isObject(params[k]));
}

function groupLayers(name, types, modelType) {
  if (rulesOf(modelType).includes('deepseek_v4_groups') && (name === 'main' || name === 'compress')) {
    const main = name === 'main';
    return core.range(types.length).filter((i) => (types[i] === 'sliding_attention') === main);
  }
  return core.range(types.length).filter((i) => types[i] === name);
}
