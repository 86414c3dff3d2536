// normalizeConfig (ropelab.config_fields.normalize_config): a raw config → its layer types,
// read generically: the family table's class defaults, aliases and layer rule (families.js),
// and the named rules of RULES (rules.js). No family is named here.

// [the config the rope fields are read from, its key]: text_config; else the decoder's
// sub-config (DECODER_KEYS, the table's sub_configs) when its model type has RoPE
// (config_fields._text_config)
function textConfigOf(raw) {
  if (isObject(raw.text_config)) {
    return [raw.text_config, 'text_config'];
  }
  const rule = family(String(truthy(raw.model_type) ? raw.model_type : ''));
  const subs = rule === null ? {} : rule.sub_configs;
  for (const key of DECODER_KEYS) {
    const sub = raw[key];
    const subRule = family(has(subs, key) ? subs[key] : '');
    if (isObject(sub) && subRule !== null && subRule.rope) {
      return [Object.assign({ model_type: subRule.model_type }, sub), key];
    }
  }
  return [raw, ''];
}

// `text` with the standard fields (MAPPED_FIELDS) its class spells otherwise (the table's
// aliases: JetMoe's kv_channels, DBRX's n_heads) filled in where missing (config_fields._mapped_fields)
function mappedFields(text, rule) {
  const extra = {};
  for (const [spelling, meaning] of Object.entries(rule === null ? {} : rule.aliases)) {
    if (MAPPED_FIELDS.includes(meaning) && get(text, meaning) === null && get(text, spelling) !== null) {
      extra[meaning] = text[spelling];
    }
  }
  return Object.keys(extra).length ? Object.assign({}, text, extra) : text;
}

// whether an MLA config gives a partial rotary factor (top level, its rope dict or a layer
// type's): then it applies to the whole q/k head (config_fields._mla_partial)
function mlaPartial(text, params) {
  const dicts = [text, params].concat(Object.values(params).filter(isObject));
  return dicts.some((d) => {
    const v = get(d, 'partial_rotary_factor');
    return v !== null && v !== 1 && v !== true; // Python: not in (None, 1, 1.0)
  });
}

function normalizeConfig(raw) {
  const [source] = textConfigOf(raw);
  const modelType = String(truthy(source.model_type) ? source.model_type : truthy(raw.model_type) ? raw.model_type : 'unknown');
  const rule = family(modelType);
  const rules = rulesOf(modelType);
  const defaults = rule === null ? {} : rule.defaults;
  const text = mappedFields(source, rule);
  const v5 = get(text, 'rope_parameters') !== null && !truthy(text.rope_scaling);
  const key = truthy(text.rope_scaling) ? 'rope_scaling' : 'rope_parameters';
  let params = truthy(text[key]) ? text[key] : {};
  if (!isObject(params)) {
    fail(`${key} must be a dict of rope parameters, got ${repr(params)}`);
  }
  params = Object.assign({}, params);
  let numLayers = get(text, 'num_hidden_layers');
  numLayers = numLayers === null ? null : checkCount(numLayers, 'num_hidden_layers');
  const count = rule === null ? null : get(rule.layer_rule, 'count');
  if (numLayers === null && truthy(count) && get(text, count.key) !== null) {
    numLayers = checkCount(text[count.key], count.key) * count.times; // a property of the class
  }
  let maxLen = get(text, 'max_position_embeddings');
  maxLen = maxLen === null ? null : checkCount(maxLen, 'max_position_embeddings');
  let numHeads = get(text, 'num_attention_heads');
  let numKv = get(text, 'num_key_value_heads');
  if (numHeads === null && isInt(defaults.num_attention_heads)) {
    numHeads = defaults.num_attention_heads;
    if (numKv === null) {
      numKv = get(defaults, 'num_key_value_heads');
    }
  }
  if (numKv === null) {
    numKv = numHeads;
  }

  // the base and the rotated fraction: the config's keys, the family's spellings, the defaults
  const defaultParams0 = defaultParams(rule, 'full_attention');
  let theta = get(text, 'rope_theta');
  if (theta === null) {
    theta = alias(text, rule, 'rope_theta')[1];
  }
  let thetaDefault = get(defaultParams0, 'rope_theta');
  if (thetaDefault === null) {
    thetaDefault = has(defaults, 'rope_theta') ? defaults.rope_theta : DEFAULT_THETA;
  }
  let partial = get(text, 'partial_rotary_factor');
  if (partial === null) {
    partial = alias(text, rule, 'partial_rotary_factor')[1];
  }
  let rotaryDim = null;
  const givenPartial = partial;
  if (partial === null && get(params, 'partial_rotary_factor') === null) {
    if (!v5) {
      rotaryDim = alias(text, rule, 'rotary_dim')[1]; // transformers 5 carries it as a factor
    }
    if (rotaryDim === null) {
      partial = get(defaultParams0, 'partial_rotary_factor');
    }
  }
  partial = partial === null ? 1.0 : partial;

  // head sizes: DeepSeek's MLA rotates only part of each query/key head
  let headRope = null;
  let headDim;
  let rotaryHead;
  if (rules.includes('deepseek_v4_groups')) {
    headDim = rotaryHead = headDimOf(text, rule);
    if (get(text, 'partial_rotary_factor') === null) {
      const part = get(text, 'qk_rope_head_dim');
      partial = part === null ? 64 / 512 : checkCount(part, 'qk_rope_head_dim') / headDim;
    }
  } else if (get(text, 'qk_rope_head_dim') !== null) {
    headRope = rotaryHead = checkCount(text.qk_rope_head_dim, 'qk_rope_head_dim', 0);
    headDim = rotaryHead + checkCount(has(text, 'qk_nope_head_dim') ? text.qk_nope_head_dim : 0, 'qk_nope_head_dim', 0);
    if (headRope && mlaPartial(text, params)) {
      // Mistral 4, dots.llm3: the rope dict's partial_rotary_factor applies to the whole head
      if (get(text, 'head_dim') !== null) {
        headDim = checkCount(text.head_dim, 'head_dim');
      }
      rotaryHead = headDim;
    }
  } else {
    headDim = rotaryHead = headDimOf(text, rule);
  }
  if (rotaryDim !== null) {
    rotaryDim = checkCount(rotaryDim, 'rotary_dim');
    if (!rotaryHead) {
      // qk_rope_head_dim 0: no coordinate of the head rotates
      fail(`rotary_dim = ${rotaryDim} but qk_rope_head_dim is 0: the config gives a rotated part to a q/k head that has none`);
    }
    partial = rotaryDim / rotaryHead;
  }

  function layerConfig(flat, head) {
    const size = head === undefined || head === null ? rotaryHead : head;
    if (flat.rope_type === 'dynamic' && truthy(flat.alpha) && rule !== null && rule.aliases.alpha === 'ntk_alpha') {
      flat = ntkAlpha(flat, size);
    }
    const out = { head_dim: size, max_position_embeddings: maxLen, rope_parameters: flat };
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

  const types = layerNamesOf(text, rule, numLayers);
  const { kinds, reasons } = layerKindsOf(text, rule, numLayers, types, headRope);
  let nested = nestedLayerTypes(params, text);
  if (types.length && !rules.includes('deepseek_v4_groups')) {
    // transformers builds a rotary embedding per layer type the model has (Laguna, Mellum)
    const unused = nested.filter((k) => !types.includes(k));
    if (unused.length && unused.length < nested.length) {
      nested = nested.filter((k) => types.includes(k));
    }
  }
  const defaultRope = truthy(defaults.rope_parameters) ? defaults.rope_parameters : {};
  const bases = text.layer_rope_theta;
  const distinct = Array.isArray(bases) ? [...new Set(bases.filter(truthy).map(Number))].sort((a, b) => a - b) : [];
  let layers = [];
  if (kinds.length && !kinds.includes('rope')) {
    // no layer rotates: no base is invented
  } else if (nested.length) {
    for (const name of nested) {
      const typeDefaults = defaultParams(rule, name);
      const flat = flatParams(
        params[name],
        modelType,
        has(typeDefaults, 'rope_theta') ? typeDefaults.rope_theta : DEFAULT_THETA,
        givenPartial !== null ? givenPartial : has(typeDefaults, 'partial_rotary_factor') ? typeDefaults.partial_rotary_factor : 1.0,
      );
      let head = null;
      if (name === 'full_attention' && (get(text, 'global_head_dim') !== null || rules.includes('global_head_dim'))) {
        head = RULE_CODE.global_head_dim(text);
      }
      layers.push({ layer_type: name, layers: groupLayers(name, types, modelType), config: layerConfig(flat, head) });
    }
  } else if (rules.includes('deepseek_v4_groups')) {
    layers = RULE_CODE.deepseek_v4_groups(text, params, theta, partial, types, modelType, layerConfig);
  } else if (rules.includes('full_only_scaling') && types.includes('sliding_attention')) {
    layers = RULE_CODE.full_only_scaling(params, modelType, theta, thetaDefault, partial, types, layerConfig);
  } else if (isObject(defaultRope.sliding_attention) && types.includes('sliding_attention')) {
    // a flat rope dict in a family whose layer types have their own: it is the full layers';
    // the sliding layers read their base under its own key, else the class's default
    const [spelled, local] = alias(text, rule, 'sliding_attention.rope_theta');
    const localDefault = has(defaultRope.sliding_attention, 'rope_theta') ? defaultRope.sliding_attention.rope_theta : DEFAULT_THETA;
    const full = flatParams(params, modelType, theta !== null ? theta : thetaDefault, partial);
    layers = scaledFullPlainSliding(types, full, spelled ? local : localDefault, partial, layerConfig);
  } else if (distinct.length > 1) {
    // one rotary embedding per distinct non-zero base (GraniteSWAModel)
    for (const value of distinct) {
      const flat = flatParams(params, modelType, value, partial);
      flat.rope_theta = value;
      const index = core.range(bases.length).filter((i) => truthy(bases[i]) && Number(bases[i]) === value);
      layers.push({ layer_type: `rope_theta ${g(value)}`, layers: index, config: layerConfig(flat) });
    }
  } else {
    if (Array.isArray(bases) && bases.some(truthy) && theta === null) {
      theta = Number(bases.find(truthy));
    }
    if (theta === null) {
      theta = thetaDefault;
    }
    const flat = flatParams(params, modelType, theta, partial);
    layers.push({ layer_type: 'all', layers: numLayers === null ? [] : core.range(numLayers), config: layerConfig(flat) });
  }

  const nope = core.range(kinds.length).filter((i) => kinds[i] !== 'rope');
  if (nope.length) {
    const skip = new Set(nope);
    layers = layers.map((e) => ({ layer_type: e.layer_type, layers: e.layers.filter((i) => !skip.has(i)), config: e.config }));
  }

  let temperature = null;
  if (rules.includes('llama4_query_temperature')) {
    temperature = RULE_CODE.llama4_query_temperature(text, nope);
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
  const softmaxScale = rules.includes('mla_softmax_scale') && layers.length ? RULE_CODE.mla_softmax_scale(layers[0].config.rope_parameters) : 1.0;
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
    layer_kinds: kinds.some((k) => k !== 'rope') ? kinds : [],
    softmax_scale: softmaxScale,
    query_temperature: temperature,
  };
}
