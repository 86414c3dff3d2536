// normalizeConfig (ropelab.config_fields.normalize_config): a raw config → its layer types.

function normalizeConfig(raw) {
  const text = isObject(raw.text_config) ? raw.text_config : raw;
  const modelType = String(truthy(text.model_type) ? text.model_type : truthy(raw.model_type) ? raw.model_type : 'unknown');
  const v5 = get(text, 'rope_parameters') !== null && !truthy(text.rope_scaling);
  const key = truthy(text.rope_scaling) ? 'rope_scaling' : 'rope_parameters';
  let params = truthy(text[key]) ? text[key] : {};
  if (!isObject(params)) {
    fail(`${key} must be a dict of rope parameters, got ${repr(params)}`);
  }
  params = Object.assign({}, params);
  let numLayers = get(text, 'num_hidden_layers');
  numLayers = numLayers === null ? null : checkCount(numLayers, 'num_hidden_layers');
  let maxLen = get(text, 'max_position_embeddings');
  maxLen = maxLen === null ? null : checkCount(maxLen, 'max_position_embeddings');
  const numHeads = get(text, 'num_attention_heads');
  const numKv = has(text, 'num_key_value_heads') ? text.num_key_value_heads : numHeads;
  let theta = get(text, 'rope_theta');
  let partial = get(text, 'partial_rotary_factor');
  if (modelType === 'gpt_neox') {
    if (theta === null && get(text, 'rotary_emb_base') !== null) {
      theta = text.rotary_emb_base;
    }
    if (partial === null) {
      partial = has(text, 'rotary_pct') ? text.rotary_pct : 0.25;
    }
  }
  if (partial === null && modelType === 'qwen3_next') {
    partial = 0.25;
  }
  partial = partial === null ? 1.0 : partial;

  let headDim;
  let rotaryHead;
  if (modelType === 'deepseek_v4') {
    headDim = rotaryHead = headDimOf(text);
    if (get(text, 'partial_rotary_factor') === null) {
      const part = get(text, 'qk_rope_head_dim');
      partial = part === null ? 64 / 512 : checkCount(part, 'qk_rope_head_dim') / headDim;
    }
  } else if (get(text, 'qk_rope_head_dim') !== null) {
    rotaryHead = checkCount(text.qk_rope_head_dim, 'qk_rope_head_dim');
    headDim = rotaryHead + checkCount(has(text, 'qk_nope_head_dim') ? text.qk_nope_head_dim : 0, 'qk_nope_head_dim', 0);
  } else {
    headDim = rotaryHead = headDimOf(text);
  }

  function layerConfig(flat, head) {
    const out = {
      head_dim: head === undefined || head === null ? rotaryHead : head,
      max_position_embeddings: maxLen,
      rope_parameters: flat,
    };
    if (ORIGINAL_LENGTH_TYPES.includes(flat.rope_type)) {
      const top = get(text, 'original_max_position_embeddings');
      if (top !== null) {
        out.original_max_position_embeddings = top;
      } else if (get(flat, 'original_max_position_embeddings') === null && maxLen !== null) {
        flat.original_max_position_embeddings = maxLen;
      }
    }
    return out;
  }

  const types = layerTypes(text, modelType, numLayers);
  const nested = nestedLayerTypes(params, text);
  let layers = [];
  if (nested.length) {
    for (const name of nested) {
      const base = GEMMA3.includes(modelType) && has(GEMMA3_THETA, name) ? GEMMA3_THETA[name] : 10000.0;
      const flat = flatParams(params[name], modelType, base, partial);
      let head = null;
      if (name === 'full_attention' && (get(text, 'global_head_dim') !== null || modelType.startsWith('gemma4'))) {
        head = checkCount(has(text, 'global_head_dim') ? text.global_head_dim : 512, 'global_head_dim');
      }
      layers.push({ layer_type: name, layers: groupLayers(name, types, modelType), config: layerConfig(flat, head) });
    }
  } else if (modelType === 'deepseek_v4') {
    const main = { rope_type: 'default', rope_theta: theta === null ? 10000.0 : theta, partial_rotary_factor: partial };
    const compressTheta = has(text, 'compress_rope_theta') ? text.compress_rope_theta : 160000.0;
    const compress = flatParams(params, modelType, compressTheta, partial);
    compress.rope_theta = compressTheta;
    if (compress.rope_type === 'yarn' && !has(compress, 'attention_factor')) {
      compress.attention_factor = 1.0;
    }
    for (const [name, flat] of [['main', main], ['compress', compress]]) {
      layers.push({ layer_type: name, layers: groupLayers(name, types, modelType), config: layerConfig(flat) });
    }
  } else if (has(FULL_ONLY, modelType) && types.includes('sliding_attention')) {
    const full = flatParams(params, modelType, theta === null ? FULL_ONLY[modelType] : theta, partial);
    const sliding = { rope_type: 'default', rope_theta: FULL_ONLY[modelType], partial_rotary_factor: partial };
    for (const [name, flat] of [['sliding_attention', sliding], ['full_attention', full]]) {
      layers.push({ layer_type: name, layers: groupLayers(name, types, modelType), config: layerConfig(flat) });
    }
  } else if (GEMMA3.includes(modelType)) {
    const fullTheta = theta === null ? GEMMA3_THETA.full_attention : theta;
    const local = get(text, 'rope_local_base_freq');
    const full = flatParams(params, modelType, fullTheta, partial);
    const sliding = { rope_type: 'default', rope_theta: local === null ? GEMMA3_THETA.sliding_attention : local, partial_rotary_factor: partial };
    for (const [name, flat] of [['sliding_attention', sliding], ['full_attention', full]]) {
      layers.push({ layer_type: name, layers: groupLayers(name, types, modelType), config: layerConfig(flat) });
    }
  } else {
    const flat = flatParams(params, modelType, theta === null ? 10000.0 : theta, partial);
    layers.push({ layer_type: 'all', layers: numLayers === null ? [] : core.range(numLayers), config: layerConfig(flat) });
  }

  const { nope, reasons } = nopeLayers(text, modelType, numLayers, types);
  if (nope.length) {
    const skip = new Set(nope);
    layers = layers.map((e) => ({ layer_type: e.layer_type, layers: e.layers.filter((i) => !skip.has(i)), config: e.config }));
  }

  let temperature = null;
  if (modelType === 'llama4_text' && truthy(has(text, 'attn_temperature_tuning') ? text.attn_temperature_tuning : true)) {
    temperature = {
      source: 'attn_temperature_tuning',
      beta: has(text, 'attn_scale') ? text.attn_scale : 0.1,
      length: checkCount(has(text, 'floor_scale') ? text.floor_scale : 8192, 'floor_scale'),
      offset: 1,
      layers: nope.length,
    };
  }
  const beta = params.llama_4_scaling_beta;
  if (truthy(beta)) {
    const original = truthy(params.original_max_position_embeddings) ? params.original_max_position_embeddings : maxLen;
    temperature = {
      source: 'llama_4_scaling_beta',
      beta: beta,
      length: checkCount(original, 'original_max_position_embeddings'),
      offset: 0,
      layers: numLayers === null ? 0 : numLayers,
    };
  }

  let softmaxScale = 1.0;
  if (DEEPSEEK.includes(modelType)) {
    const flat = layers[0].config.rope_parameters;
    const all = truthy(flat.mscale_all_dim) ? flat.mscale_all_dim : 0;
    const factor = get(flat, 'factor');
    if (flat.rope_type !== 'default' && truthy(all) && truthy(factor) && factor > 1) {
      const m = 0.1 * all * Math.log(factor) + 1.0;
      softmaxScale = m * m;
    }
  }
  return {
    model_type: modelType,
    spelling: v5 ? 'transformers 5' : 'transformers 4',
    head_dim: headDim,
    num_heads: numHeads === null ? null : Math.trunc(numHeads),
    num_kv_heads: numKv === null ? null : Math.trunc(numKv),
    num_layers: numLayers,
    max_position_embeddings: maxLen,
    layers: layers,
    nope_layers: nope,
    nope_reasons: reasons,
    softmax_scale: softmaxScale,
    query_temperature: temperature,
  };
}
