// ---------------------------------------------------------------------------------------
// (b) Reading a config (ropelab.config_fields.normalize_config)
// ---------------------------------------------------------------------------------------

const PHI3 = ['phi3', 'phi4_multimodal'];
const GEMMA3 = ['gemma3', 'gemma3_text', 'gemma3n', 'gemma3n_text'];
const DEEPSEEK = ['deepseek_v2', 'deepseek_v3', 'kimi_k2'];
const GEMMA3_THETA = { full_attention: 1e6, sliding_attention: 1e4 };
const FULL_ONLY = { olmo3: 500000 };
const NON_ATTENTION = ['linear_attention', 'mamba', 'conv'];
const NOPE_FULL = { cohere2: false, exaone4: true };
const NOPE_INTERVAL = ['llama4_text', 'smollm3'];

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
  if (PHI3.includes(modelType) && name === 'yarn') {
    renamed = 'longrope';
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

function layerTypes(text, modelType, numLayers) {
  if (truthy(text.layer_types)) {
    return text.layer_types.map(String);
  }
  if (numLayers === null) {
    return [];
  }
  if (modelType === 'qwen3_next') {
    const every = checkCount(has(text, 'full_attention_interval') ? text.full_attention_interval : 4, 'full_attention_interval');
    return core.range(numLayers).map((i) => ((i + 1) % every ? 'linear_attention' : 'full_attention'));
  }
  if (modelType === 'deepseek_v4') {
    const ratios = text.compress_ratios;
    if (truthy(ratios)) {
      const names = { 0: 'sliding_attention', 4: 'compressed_sparse_attention', 128: 'heavily_compressed_attention' };
      return ratios.slice(0, numLayers).map((r) => names[Math.trunc(r)] || 'compressed_attention');
    }
    const head = core.range(Math.min(numLayers, 2)).map(() => 'heavily_compressed_attention');
    return head.concat(core.range(Math.max(numLayers - 2, 0)).map((i) => (i % 2 ? 'compressed_sparse_attention' : 'heavily_compressed_attention')));
  }
  if (modelType === 'olmo3') {
    return core.range(numLayers).map((i) => ((i + 1) % 4 ? 'sliding_attention' : 'full_attention'));
  }
  if (modelType === 'cohere2' || modelType === 'exaone4') {
    if (modelType === 'exaone4' && get(text, 'sliding_window') === null) {
      return core.range(numLayers).map(() => 'full_attention');
    }
    let pattern = has(text, 'sliding_window_pattern') ? text.sliding_window_pattern : 4;
    if (typeof pattern === 'string') {
      pattern = pattern.length;
    }
    pattern = checkCount(pattern, 'sliding_window_pattern');
    return core.range(numLayers).map((i) => ((i + 1) % pattern ? 'sliding_attention' : 'full_attention'));
  }
  if (GEMMA3.includes(modelType)) {
    const fallback = modelType.startsWith('gemma3n') ? 5 : 6;
    const pattern = Math.trunc(truthy(text.sliding_window_pattern) ? text.sliding_window_pattern : truthy(text._sliding_window_pattern) ? text._sliding_window_pattern : fallback);
    return core.range(numLayers).map((i) => ((i + 1) % pattern ? 'sliding_attention' : 'full_attention'));
  }
  return [];
}

function groupLayers(name, types, modelType) {
  if (modelType === 'deepseek_v4' && (name === 'main' || name === 'compress')) {
    const main = name === 'main';
    return core.range(types.length).filter((i) => (types[i] === 'sliding_attention') === main);
  }
  return core.range(types.length).filter((i) => types[i] === name);
}

function headDimOf(text) {
  if (get(text, 'head_dim') !== null) {
    return checkCount(text.head_dim, 'head_dim');
  }
  const hidden = get(text, 'hidden_size');
  const heads = get(text, 'num_attention_heads');
  if (hidden === null || heads === null) {
    fail('config must give head_dim, or hidden_size and num_attention_heads (head_dim = hidden_size // num_attention_heads)');
  }
  return Math.floor(checkCount(hidden, 'hidden_size') / checkCount(heads, 'num_attention_heads'));
}

function nopeLayers(text, modelType, numLayers, types) {
  const nope = new Set();
  const reasons = [];
  if (truthy(text.no_rope_layers)) {
    const flagged = text.no_rope_layers.map((use, i) => (truthy(use) ? -1 : i)).filter((i) => i >= 0);
    if (flagged.length) {
      flagged.forEach((i) => nope.add(i));
      reasons.push('no_rope_layers');
    }
  } else if (NOPE_INTERVAL.includes(modelType) && numLayers !== null) {
    const every = checkCount(has(text, 'no_rope_layer_interval') ? text.no_rope_layer_interval : 4, 'no_rope_layer_interval');
    core.range(numLayers).filter((i) => (i + 1) % every === 0).forEach((i) => nope.add(i));
    reasons.push(`every ${every}th layer, no_rope_layer_interval`);
  }
  const blocks = core.range(types.length).filter((i) => NON_ATTENTION.includes(types[i]));
  if (blocks.length) {
    blocks.forEach((i) => nope.add(i));
    const kinds = [...new Set(blocks.map((i) => types[i]))].sort();
    reasons.push(`${kinds.join(', ')} blocks have no positions to rotate`);
  }
  if (has(NOPE_FULL, modelType)) {
    if (!NOPE_FULL[modelType] || get(text, 'sliding_window') !== null) {
      const full = core.range(types.length).filter((i) => types[i] === 'full_attention');
      if (full.length) {
        full.forEach((i) => nope.add(i));
        reasons.push(`${modelType}'s full-attention layers skip RoPE`);
      }
    }
  }
  return { nope: [...nope].sort((a, b) => a - b), reasons: reasons };
}
