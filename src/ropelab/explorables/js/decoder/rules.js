// ---------------------------------------------------------------------------------------
// (b3) The named rules of config_fields.RULES: the behaviours that are code, not data.
// RULES (generated) says which model types use which; RULE_CODE holds each one's code, by
// the same name (the bundler fails when a name of RULES has no entry here).
// ---------------------------------------------------------------------------------------

const GLOBAL_HEAD_DIM = 512; // Gemma4TextConfig's global_head_dim

// DeepSeek-V4's layer types from compress_ratios (0 sliding only, 4 CSA, 128 HCA), else
// DeepseekV4Config's default pattern (config_fields._deepseek_v4_layer_types)
function deepseekV4LayerTypes(text, numLayers) {
  const ratios = text.compress_ratios;
  if (truthy(ratios)) {
    const names = { 0: 'sliding_attention', 4: 'compressed_sparse_attention', 128: 'heavily_compressed_attention' };
    return ratios.slice(0, numLayers).map((r) => names[Math.trunc(r)] || 'compressed_attention');
  }
  const head = core.range(Math.min(numLayers, 2)).map(() => 'heavily_compressed_attention');
  return head.concat(core.range(Math.max(numLayers - 2, 0)).map((i) => (i % 2 ? 'compressed_sparse_attention' : 'heavily_compressed_attention')));
}

// Two groups: the full-attention layers with the config's rope parameters, the sliding ones
// plain RoPE at `slidingTheta` (config_fields._scaled_full_plain_sliding)
function scaledFullPlainSliding(types, full, slidingTheta, partial, layerConfig) {
  const perType = {
    full_attention: full,
    sliding_attention: { rope_type: 'default', rope_theta: slidingTheta, partial_rotary_factor: partial },
  };
  return ['sliding_attention', 'full_attention'].map((name) => ({
    layer_type: name,
    layers: core.range(types.length).filter((i) => types[i] === name),
    config: layerConfig(perType[name]),
  }));
}

const RULE_CODE = {
  // DeepSeek-V2/V3 MLA: YaRN's mscale_all_dim squared on the softmax scale (DeepseekV3Attention)
  mla_softmax_scale: (flat) => {
    const all = truthy(flat.mscale_all_dim) ? flat.mscale_all_dim : 0;
    const factor = get(flat, 'factor');
    if (flat.rope_type !== 'default' && truthy(all) && truthy(factor) && factor > 1) {
      const m = 0.1 * all * Math.log(factor) + 1.0;
      return m * m;
    }
    return 1.0;
  },
  // Llama 4's query temperature on its NoPE layers (Llama4TextAttention)
  llama4_query_temperature: (text, nope) => {
    if (!truthy(has(text, 'attn_temperature_tuning') ? text.attn_temperature_tuning : true)) {
      return null;
    }
    return {
      source: 'attn_temperature_tuning',
      beta: Number(has(text, 'attn_scale') ? text.attn_scale : 0.1),
      length: checkCount(has(text, 'floor_scale') ? text.floor_scale : 8192, 'floor_scale'),
      offset: 1,
      layers: nope.length,
    };
  },
  // DeepSeek-V4: sliding layers ('main') plain RoPE at rope_theta, compressed layers
  // ('compress') rope_scaling at compress_rope_theta with cos/sin x 1 (DeepseekV4RotaryEmbedding)
  deepseek_v4_groups: (text, params, theta, partial, types, modelType, layerConfig) => {
    const main = { rope_type: 'default', rope_theta: theta === null ? DEFAULT_THETA : theta, partial_rotary_factor: partial };
    const compressTheta = has(text, 'compress_rope_theta') ? text.compress_rope_theta : 160000.0;
    const compress = flatParams(params, modelType, compressTheta, partial);
    compress.rope_theta = compressTheta;
    if (compress.rope_type === 'yarn' && !has(compress, 'attention_factor')) {
      compress.attention_factor = 1.0;
    }
    return [['main', main], ['compress', compress]].map(([name, flat]) => ({
      layer_type: name,
      layers: groupLayers(name, types, modelType),
      config: layerConfig(flat),
    }));
  },
  // OLMo 3: rope_scaling on the full-attention layers only; sliding layers keep plain RoPE at
  // the class's default base (Olmo3Config)
  full_only_scaling: (params, modelType, theta, thetaDefault, partial, types, layerConfig) => {
    const slidingTheta = Number(thetaDefault);
    const full = flatParams(params, modelType, theta !== null ? theta : slidingTheta, partial);
    return scaledFullPlainSliding(types, full, slidingTheta, partial, layerConfig);
  },
  // Gemma 4: the full-attention layers' own head size, global_head_dim (Gemma4TextConfig)
  // Phi-3 reads a rope dict naming 'yarn' as longrope (config_fields._yarn_is_longrope)
  yarn_is_longrope: (name) => (name === 'yarn' ? 'longrope' : null),
  // EXAONE 4 without a sliding window: every layer full attention (_no_window_all_full)
  no_window_all_full: (text, numLayers) => (get(text, 'sliding_window') === null ? core.range(numLayers).map(() => 'full_attention') : null),
  global_head_dim: (text) => checkCount(has(text, 'global_head_dim') ? text.global_head_dim : GLOBAL_HEAD_DIM, 'global_head_dim'),
};
