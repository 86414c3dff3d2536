/* ropelab-decoder.js: the config decoder of chapter 8A, in the browser, without a kernel.
 *
 * A classic script (ES2020, no dependencies, no network requests). It needs the number
 * formats of ropelab-explore.js (window.ropelabExplore.format; in Node, require), the shared
 * helpers of the book's browser code, and defines window.ropelabDecoder once:
 *   decodeText(text)      the record of ropelab.decoder.decode_text: the pasted text parsed as
 *                         JSON (never evaluated), or {error: message naming the field};
 *   decodeConfig(config)  the record of ropelab.decoder.decode_config (throws an Error
 *                         naming the field for a config it cannot read);
 *   mountAll()            wires every .ropelab-decoder element of the page; its menu lists
 *                         window.ropelabDecoderConfigs (the shipped configs, served by the
 *                         site or carried by the output).
 * In Node it exports decodeText and decodeConfig: tests/test_decoder_drift.py compares them
 * with Python on every shipped config and a few hundred seeded random ones; and view(record,
 * lang), the texts the page shows, in English or, on a page whose <html lang> starts with
 * "zh", in Chinese with the same numbers (the test checks both languages).
 *
 * Sections: (a) checks, as ropelab._checks; (b) reading a config, as
 * ropelab.config_fields.normalize_config; (c) the rope types, as ropelab.rope_config;
 * (d) the description, as ropelab.describe; (e) the decoder's additions, as
 * ropelab.decoder; (f) the view: every string from the config is inserted as text
 * (textContent), never as markup.
 */
(function () {
  'use strict';
  const inBrowser = typeof window !== 'undefined' && typeof document !== 'undefined';
  if (inBrowser && window.ropelabDecoder) {
    return;
  }
  const explore = inBrowser ? window.ropelabExplore : require('./ropelab-explore.js');
  const TWO_PI = 2 * Math.PI;

  // ---------------------------------------------------------------------------------------
  // (a) Checks: a ValueError of ropelab is an Error with the same message here
  // ---------------------------------------------------------------------------------------

  function fail(message) {
    throw new Error(message);
  }
  function isObject(v) {
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  }
  function has(obj, key) {
    return Object.prototype.hasOwnProperty.call(obj, key);
  }
  // dict.get(key): null for a missing key or a JSON null
  function get(obj, key, fallback) {
    if (has(obj, key) && obj[key] !== null && obj[key] !== undefined) {
      return obj[key];
    }
    return fallback === undefined ? null : fallback;
  }
  // Python truthiness of a JSON value
  function truthy(v) {
    if (v === null || v === undefined || v === false || v === 0 || v === '') {
      return false;
    }
    if (Array.isArray(v)) {
      return v.length > 0;
    }
    if (isObject(v)) {
      return Object.keys(v).length > 0;
    }
    return true;
  }
  function repr(v) {
    return typeof v === 'string' ? `'${v}'` : JSON.stringify(v);
  }
  function isReal(v) {
    return typeof v === 'number';
  }
  function checkCount(value, name, minimum) {
    const low = minimum === undefined ? 1 : minimum;
    if (!isReal(value) || !Number.isFinite(value) || !Number.isInteger(value) || value < low) {
      fail(`${name} must be an integer >= ${low}, got ${repr(value)}`);
    }
    return value;
  }
  function checkPositive(value, name, minimum, inclusive) {
    const low = minimum === undefined ? 0 : minimum;
    if (!isReal(value) || !Number.isFinite(value)) {
      fail(`${name} must be a finite real number, got ${repr(value)}`);
    }
    if (inclusive ? value < low : value <= low) {
      fail(`${name} must be ${inclusive ? '>=' : '>'} ${low}, got ${value}`);
    }
    return value;
  }
  function checkFinite(value, name) {
    if (!isReal(value) || !Number.isFinite(value)) {
      fail(`${name} must be a finite real number, got ${repr(value)}`);
    }
    return value;
  }
  function checkDim(value, name) {
    if (!isReal(value) || !Number.isInteger(value) || value <= 0 || value % 2) {
      fail(`${name} must be a positive even integer, got ${repr(value)}`);
    }
    return value;
  }

  // ---------------------------------------------------------------------------------------
  // (b) Reading a config (ropelab.config_fields.normalize_config)
  // ---------------------------------------------------------------------------------------

  const LEGACY = { su: 'longrope', mrope: 'default' };
  const PHI3 = ['phi3', 'phi4_multimodal'];
  const GEMMA3 = ['gemma3', 'gemma3_text', 'gemma3n', 'gemma3n_text'];
  const DEEPSEEK = ['deepseek_v2', 'deepseek_v3', 'kimi_k2'];
  const ORIGINAL_TYPES = ['yarn', 'longrope', 'llama3'];
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
    let renamed = has(LEGACY, name) ? LEGACY[name] : null;
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

  function range(n) {
    return Array.from({ length: n }, (_, i) => i);
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
      return range(numLayers).map((i) => ((i + 1) % every ? 'linear_attention' : 'full_attention'));
    }
    if (modelType === 'deepseek_v4') {
      const ratios = text.compress_ratios;
      if (truthy(ratios)) {
        const names = { 0: 'sliding_attention', 4: 'compressed_sparse_attention', 128: 'heavily_compressed_attention' };
        return ratios.slice(0, numLayers).map((r) => names[Math.trunc(r)] || 'compressed_attention');
      }
      const head = range(Math.min(numLayers, 2)).map(() => 'heavily_compressed_attention');
      return head.concat(range(Math.max(numLayers - 2, 0)).map((i) => (i % 2 ? 'compressed_sparse_attention' : 'heavily_compressed_attention')));
    }
    if (modelType === 'olmo3') {
      return range(numLayers).map((i) => ((i + 1) % 4 ? 'sliding_attention' : 'full_attention'));
    }
    if (modelType === 'cohere2' || modelType === 'exaone4') {
      if (modelType === 'exaone4' && get(text, 'sliding_window') === null) {
        return range(numLayers).map(() => 'full_attention');
      }
      let pattern = has(text, 'sliding_window_pattern') ? text.sliding_window_pattern : 4;
      if (typeof pattern === 'string') {
        pattern = pattern.length;
      }
      pattern = checkCount(pattern, 'sliding_window_pattern');
      return range(numLayers).map((i) => ((i + 1) % pattern ? 'sliding_attention' : 'full_attention'));
    }
    if (GEMMA3.includes(modelType)) {
      const fallback = modelType.startsWith('gemma3n') ? 5 : 6;
      const pattern = Math.trunc(truthy(text.sliding_window_pattern) ? text.sliding_window_pattern : truthy(text._sliding_window_pattern) ? text._sliding_window_pattern : fallback);
      return range(numLayers).map((i) => ((i + 1) % pattern ? 'sliding_attention' : 'full_attention'));
    }
    return [];
  }

  function groupLayers(name, types, modelType) {
    if (modelType === 'deepseek_v4' && (name === 'main' || name === 'compress')) {
      const main = name === 'main';
      return range(types.length).filter((i) => (types[i] === 'sliding_attention') === main);
    }
    return range(types.length).filter((i) => types[i] === name);
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
      range(numLayers).filter((i) => (i + 1) % every === 0).forEach((i) => nope.add(i));
      reasons.push(`every ${every}th layer, no_rope_layer_interval`);
    }
    const blocks = range(types.length).filter((i) => NON_ATTENTION.includes(types[i]));
    if (blocks.length) {
      blocks.forEach((i) => nope.add(i));
      const kinds = [...new Set(blocks.map((i) => types[i]))].sort();
      reasons.push(`${kinds.join(', ')} blocks have no positions to rotate`);
    }
    if (has(NOPE_FULL, modelType)) {
      if (!NOPE_FULL[modelType] || get(text, 'sliding_window') !== null) {
        const full = range(types.length).filter((i) => types[i] === 'full_attention');
        if (full.length) {
          full.forEach((i) => nope.add(i));
          reasons.push(`${modelType}'s full-attention layers skip RoPE`);
        }
      }
    }
    return { nope: [...nope].sort((a, b) => a - b), reasons: reasons };
  }

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
      if (ORIGINAL_TYPES.includes(flat.rope_type)) {
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
      layers.push({ layer_type: 'all', layers: numLayers === null ? [] : range(numLayers), config: layerConfig(flat) });
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

  // ---------------------------------------------------------------------------------------
  // (c) The rope types (ropelab.rope_config)
  // ---------------------------------------------------------------------------------------

  const TYPES = {
    default: { factor: null, original: false },
    linear: { factor: 'required', original: false },
    dynamic: { factor: 'required', original: false, needsMax: true },
    yarn: { factor: 'nullable', original: true, optional: ['attention_factor', 'mscale', 'mscale_all_dim'], yarn: true },
    longrope: { factor: 'optional', original: true, required: ['short_factor', 'long_factor'], optional: ['attention_factor'] },
    llama3: { factor: 'required', original: true, required: ['low_freq_factor', 'high_freq_factor'] },
    proportional: { factor: 'optional', original: false },
  };
  const TYPE_NAMES = Object.keys(TYPES).sort();

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
    if (typeof kind !== 'string' || !has(TYPES, kind)) {
      fail(`${where}['rope_type'] must be one of [${TYPE_NAMES.map((t) => `'${t}'`).join(', ')}], got ${repr(kind)}`);
    }
    const record = TYPES[kind];
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
    if (record.needsMax && maxLen === null) {
      fail(`max_position_embeddings is required for rope_type '${kind}'`);
    }
    if (record.original) {
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
    for (const key of record.required || []) {
      spec[key] = required(key);
    }
    for (const key of record.optional || []) {
      spec[key] = get(params, key);
    }
    if (record.yarn) {
      const truncate = has(params, 'truncate') ? params.truncate : true;
      if (truncate !== null && typeof truncate !== 'boolean') {
        fail(`${where}['truncate'] must be true or false, got ${repr(truncate)}`);
      }
      spec.beta_fast = truthy(params.beta_fast) ? params.beta_fast : 32;
      spec.beta_slow = truthy(params.beta_slow) ? params.beta_slow : 1;
      spec.truncate = truthy(truncate);
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
      fail(`the rotary dimension int(head_dim * partial_rotary_factor) = ${spec.rotary_dim} must be a positive even integer`);
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

  function invFreq(dim, base) {
    checkDim(dim, 'dim');
    checkPositive(base, 'base');
    return range(dim / 2).map((i) => Math.pow(base, -(2 * i) / dim));
  }

  function yarnMscale(scale, mscale) {
    return scale <= 1 ? 1.0 : 0.1 * (mscale === undefined ? 1 : mscale) * Math.log(scale) + 1.0;
  }

  function yarnRamp(dim, base, original, betaFast, betaSlow, truncate) {
    const corr = (rot) => (dim * Math.log(original / (rot * TWO_PI))) / (2 * Math.log(base));
    let low = corr(betaFast);
    let high = corr(betaSlow);
    if (truncate) {
      low = Math.floor(low);
      high = Math.ceil(high);
    }
    low = Math.max(low, 0);
    high = Math.min(high, dim - 1);
    if (low === high) {
      high += 0.001;
    }
    return range(dim / 2).map((i) => Math.min(1, Math.max(0, (i - low) / (high - low))));
  }

  // (inv_freq, attention_factor) at initialisation (seq_len None)
  function frequencies(spec) {
    const dim = spec.rotary_dim;
    const kind = spec.rope_type;
    if (kind === 'default' || kind === 'dynamic') {
      if (kind === 'dynamic' && dim <= 2) {
        fail(`dim must be > 2 for dynamic NTK scaling (exponent d/(d-2)), got ${dim}`);
      }
      return [invFreq(dim, spec.rope_theta), 1.0];
    }
    if (kind === 'linear') {
      return [invFreq(dim, spec.rope_theta).map((t) => t / spec.factor), 1.0];
    }
    if (kind === 'yarn') {
      checkPositive(spec.rope_theta, 'rope_theta', 1.0);
      const theta = invFreq(dim, spec.rope_theta);
      const w = yarnRamp(dim, spec.rope_theta, spec.original, spec.beta_fast, spec.beta_slow, spec.truncate);
      const scaled = theta.map((t, i) => (1 - w[i]) * t + w[i] * (t / spec.factor));
      if (spec.attention_factor !== null) {
        return [scaled, spec.attention_factor];
      }
      if (truthy(spec.mscale) && truthy(spec.mscale_all_dim)) {
        return [scaled, yarnMscale(spec.factor, spec.mscale) / yarnMscale(spec.factor, spec.mscale_all_dim)];
      }
      return [scaled, yarnMscale(spec.factor)];
    }
    if (kind === 'longrope') {
      const theta = invFreq(dim, spec.rope_theta).map((t, i) => t / spec.short_factor[i]);
      if (spec.attention_factor !== null) {
        return [theta, spec.attention_factor];
      }
      if (spec.factor <= 1) {
        return [theta, 1.0];
      }
      if (spec.original < 2) {
        fail(`original_max_position_embeddings must be >= 2 when factor > 1, got ${spec.original}`);
      }
      return [theta, Math.sqrt(1 + Math.log(spec.factor) / Math.log(spec.original))];
    }
    if (kind === 'llama3') {
      const theta = invFreq(dim, spec.rope_theta);
      const low = spec.low_freq_factor;
      const high = spec.high_freq_factor;
      const out = theta.map((t) => {
        const wave = TWO_PI / t;
        const isHigh = wave < spec.original / high;
        if (high === low) {
          return isHigh ? t : t / spec.factor;
        }
        if (isHigh) {
          return t;
        }
        if (wave > spec.original / low) {
          return t / spec.factor;
        }
        const gamma = (spec.original / wave - low) / (high - low);
        return ((1 - gamma) * t) / spec.factor + gamma * t;
      });
      return [out, 1.0];
    }
    // proportional (Gemma 4): floor(p D / 2) planes with exponents over the whole head
    const head = checkDim(spec.head_dim, 'head_dim');
    const planes = Math.trunc((spec.partial_rotary_factor * head) / 2);
    const factor = spec.factor === null ? 1.0 : spec.factor;
    return [range(head / 2).map((i) => (i < planes ? Math.pow(spec.rope_theta, -(2 * i) / head) / factor : 0)), 1.0];
  }

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
      longest_wavelength: [TWO_PI / Math.min(...rotating), TWO_PI / Math.min(...inv.filter((t) => t > 0))],
      parameters: methodParameters(flat, original),
      inv_freq: inv,
      layers: entry.layers,
    };
  }

  // ---------------------------------------------------------------------------------------
  // (e) The decoder's additions (ropelab.decoder)
  // ---------------------------------------------------------------------------------------

  const ARCH = {
    llama: 'llama', mistral: 'llama', qwen2: 'qwen2', qwen2_moe: 'qwen2moe', qwen3: 'qwen3',
    qwen3_moe: 'qwen3moe', qwen3_next: 'qwen3next', qwen2_vl: 'qwen2vl', qwen2_vl_text: 'qwen2vl',
    qwen2_5_vl: 'qwen2vl', qwen2_5_vl_text: 'qwen2vl', qwen3_vl: 'qwen3vl', qwen3_vl_text: 'qwen3vl',
    deepseek_v2: 'deepseek2', deepseek_v3: 'deepseek2',
    kimi_k2: 'deepseek2', glm4_moe: 'glm4moe', smollm3: 'smollm3', phi: 'phi2', phi3: 'phi3', olmo2: 'olmo2',
    olmo3: 'olmo2', gpt_oss: 'gpt-oss', gemma3_text: 'gemma3', gemma3n_text: 'gemma3n', llama4_text: 'llama4',
    gpt_neox: 'gptneox', ministral3: 'mistral3', cohere: 'command-r',
  };
  // classes that write none of TextModel's generic keys; LlamaModel's classes
  const GGUF_OWN_KEYS = ['phi2', 'phi3', 'gptneox'];
  const GGUF_LLAMA = ['llama', 'llama4', 'smollm3', 'mistral3'];

  // The GGUF rope keys llama.cpp's converter (release v0.4.0) writes for the config, as
  // ropelab.gguf_meta.gguf_rope_metadata restates it (conversion/base.py and the classes).
  function ggufKeys(record, raw) {
    const arch = has(ARCH, record.model_type) ? ARCH[record.model_type] : record.model_type;
    const pyGet = (obj, key, fallback) => (has(obj, key) ? obj[key] : fallback);
    const given = (v) => v !== null && v !== undefined;
    const find = (obj, keys) => {
      const key = keys.find((k) => has(obj, k));
      return key === undefined ? null : obj[key];
    };
    const hp = isObject(raw.text_config) ? Object.assign({}, raw, raw.text_config) : raw;
    const found = pyGet(hp, 'rope_parameters', pyGet(hp, 'rope_scaling', null));
    const params = Object.assign({}, truthy(found) ? found : {});
    const theta = find(hp, ['global_rope_theta', 'rope_global_theta', 'rope_theta_global', 'rope_theta', 'rotary_emb_base']);
    const local = find(hp, ['local_rope_theta', 'rope_local_theta', 'rope_theta_local', 'swa_rope_theta', 'rope_local_base_freq']);
    const partial = find(hp, ['partial_rotary_factor', 'rope_pct', 'rope_percent']);
    const original = find(hp, ['original_max_position_embeddings']);
    if (!has(params, 'full_attention') && !has(params, 'sliding_attention')) {
      if (given(local)) params.sliding_attention = { rope_theta: local };
      if (!has(params, 'rope_theta') && given(theta)) params.rope_theta = theta;
      if (!has(params, 'rope_type') && given(pyGet(params, 'type'))) params.rope_type = params.type;
      if (!has(params, 'partial_rotary_factor') && given(partial)) params.partial_rotary_factor = partial;
      if (!has(params, 'original_max_position_embeddings') && given(original)) {
        params.original_max_position_embeddings = original;
      }
    }
    const full = pyGet(params, 'full_attention', params);
    const main = isObject(full) ? full : {};
    const values = new Map();
    const tensors = [];
    const k = (name) => `${arch}.rope.${name}`;
    const head = () => (given(pyGet(hp, 'head_dim')) ? Math.trunc(hp.head_dim) : Math.floor(Math.trunc(hp.hidden_size) / Math.trunc(hp.num_attention_heads)));
    const hidden = given(pyGet(hp, 'hidden_size')) && given(pyGet(hp, 'num_attention_heads'));
    const ropeType = pyGet(main, 'rope_type');
    if (!GGUF_OWN_KEYS.includes(arch)) {
      const factor = pyGet(main, 'factor');
      if (ropeType === 'linear' && given(factor)) {
        values.set(k('scaling.type'), 'linear').set(k('scaling.factor'), Number(factor));
      } else if (ropeType === 'yarn' && given(factor)) {
        values.set(k('scaling.type'), 'yarn').set(k('scaling.factor'), Number(factor));
        if (given(pyGet(main, 'original_max_position_embeddings'))) {
          values.set(k('scaling.original_context_length'), Math.trunc(main.original_max_position_embeddings));
        }
        if (given(pyGet(main, 'extrapolation_factor'))) {
          values.set(k('scaling.yarn_ext_factor'), Number(main.extrapolation_factor));
        }
        const attention = pyGet(main, 'attention_factor', pyGet(main, 'attn_factor'));
        if (given(attention)) values.set(k('scaling.yarn_attn_factor'), Number(attention));
        if (given(pyGet(main, 'beta_fast'))) values.set(k('scaling.yarn_beta_fast'), Number(main.beta_fast));
        if (given(pyGet(main, 'beta_slow'))) values.set(k('scaling.yarn_beta_slow'), Number(main.beta_slow));
      } else if (ropeType === 'su' || ropeType === 'longrope') {
        values.set(k('scaling.type'), 'longrope');
      }
      if (has(params, 'mrope_section')) {
        const sections = params.mrope_section.map((x) => Math.trunc(x)).concat([0, 0, 0, 0]);
        values.set(k('dimension_sections'), sections.slice(0, 4));
      }
      if (given(pyGet(main, 'rope_theta'))) values.set(k('freq_base'), Number(main.rope_theta));
      const sliding = pyGet(params, 'sliding_attention');
      if (isObject(sliding) && given(pyGet(sliding, 'rope_theta'))) {
        values.set(k('freq_base_swa'), Number(sliding.rope_theta));
      }
    }
    if (arch === 'gemma3' || arch === 'gemma3n') {
      const base = pyGet(main, 'rope_theta', 1e6);
      values.set(k('freq_base'), given(base) ? Number(base) : 1e6);
    } else if (GGUF_LLAMA.includes(arch)) {
      values.set(k('dimension_count'), head());
      if (String(truthy(ropeType) ? ropeType : '').toLowerCase() === 'llama3' && truthy(main)) {
        tensors.push(['tensor rope_freqs.weight', `${Math.ceil(head() / 2)} values`]);
      }
      if (arch === 'mistral3' && pyGet(hp, 'model_type') === 'ministral3' && given(pyGet(params, 'mscale_all_dim'))) {
        values.set(k('scaling.yarn_log_multiplier'), Number(params.mscale_all_dim));
      }
    } else if (arch === 'deepseek2') {
      if (given(pyGet(hp, 'qk_rope_head_dim'))) values.set(k('dimension_count'), Math.trunc(hp.qk_rope_head_dim));
      if (given(pyGet(params, 'mscale_all_dim'))) {
        values.set(k('scaling.yarn_log_multiplier'), 0.1 * Number(params.mscale_all_dim));
      }
    } else if (arch === 'glm4moe' || arch === 'qwen3next') {
      const part = given(pyGet(params, 'partial_rotary_factor')) ? params.partial_rotary_factor : arch === 'glm4moe' ? 0.5 : 0.25;
      values.set(k('dimension_count'), Math.trunc(head() * part));
    } else if (arch === 'phi2') {
      if (given(pyGet(params, 'partial_rotary_factor')) && hidden) {
        values.set(k('dimension_count'), Math.floor(Math.trunc(params.partial_rotary_factor * Math.trunc(hp.hidden_size)) / Math.trunc(hp.num_attention_heads)));
      }
    } else if (arch === 'gptneox') {
      if (given(pyGet(hp, 'rotary_pct')) && hidden) {
        values.set(k('dimension_count'), Math.trunc(hp.rotary_pct * Math.floor(Math.trunc(hp.hidden_size) / Math.trunc(hp.num_attention_heads))));
      }
    } else if (arch === 'command-r') {
      values.set(k('scaling.type'), 'none');
    } else if (arch === 'phi3') {
      const orig = pyGet(params, 'original_max_position_embeddings');
      const longest = find(hp, ['n_positions', 'max_position_embeddings']);
      if (given(orig) && given(longest) && hidden) {
        const part = given(pyGet(params, 'partial_rotary_factor')) ? params.partial_rotary_factor : 1.0;
        values.set(k('scaling.original_context_length'), Math.trunc(orig));
        values.set(k('dimension_count'), Math.floor(Math.trunc(part * Math.trunc(hp.hidden_size)) / Math.trunc(hp.num_attention_heads)));
        if (given(pyGet(main, 'rope_theta'))) values.set(k('freq_base'), Number(main.rope_theta));
        const long = pyGet(params, 'long_factor');
        const short = pyGet(params, 'short_factor');
        if (truthy(long)) {
          const scale = Number(longest) / Number(orig);
          const kind = String(pyGet(params, 'rope_type', '')).toLowerCase();
          let attention = 1.0;
          if (scale > 1) {
            attention = kind === 'su' || kind === 'longrope' ? Math.sqrt(1 + Math.log(scale) / Math.log(orig)) : 0.1 * Math.log(scale) + 1.0;
          }
          values.set(k('scaling.attn_factor'), attention);
          if (Array.isArray(long) && Array.isArray(short)) {
            tensors.push(['tensor rope_factors_long.weight', `${long.length} values`]);
            tensors.push(['tensor rope_factors_short.weight', `${short.length} values`]);
          }
        }
      }
    }
    return Array.from(values.entries()).concat(tensors);
  }

  function bounds(dim, base, trained) {
    if (trained === null || trained <= TWO_PI || base <= 1) {
      return null;
    }
    const planes = range(dim / 2).filter((i) => TWO_PI * Math.pow(base, (2 * i) / dim) <= trained).length;
    const dExtra = Math.min(2 * Math.ceil(((dim / 2) * Math.log(trained / TWO_PI)) / Math.log(base)), dim);
    return { trained_length: trained, full_period_planes: planes, critical_dim: dExtra, bound: TWO_PI * Math.pow(base, dExtra / dim) };
  }

  const g = (x) => explore.format.general(x, 6);
  const n0 = (x) => explore.format.fixed(x, 0, { comma: true });

  function warnings(raw, record) {
    const out = [];
    const text = isObject(raw.text_config) ? raw.text_config : raw;
    for (const layer of record.layers) {
      const kind = layer.rope_type;
      const factor = layer.factor;
      const original = layer.original_length;
      const where = layer.layer_type === 'all' ? '' : ` (${layer.layer_type})`;
      const declared = record.max_position_embeddings;
      if (['yarn', 'longrope', 'llama3'].includes(kind) && truthy(factor) && truthy(original) && truthy(declared)) {
        if (Math.abs(declared / original - factor) > 1e-9 * factor && declared !== original) {
          out.push(['factor-vs-lengths', `factor ${g(factor)}${where} but max_position_embeddings / original = ${n0(declared)} / ${n0(original)} = ${g(declared / original)}: engines that size their tables from one or the other disagree`]);
        }
      }
      if (kind !== 'default' && factor === 1 && kind !== 'proportional') {
        out.push(['no-op-block', `${kind} with factor 1${where}: the block changes nothing`]);
      }
      const params = Object.fromEntries(layer.parameters);
      if (kind === 'yarn' && params.truncate === false) {
        out.push(['yarn-truncate', `YaRN with truncate false${where}: GGUF has no key for it and engines that round the ramp's ends compute other frequencies`]);
      }
      if (kind === 'dynamic') {
        out.push(['dynamic-cache', `dynamic scaling${where}: the frequencies follow the longest length seen, so keys cached at one length do not match queries at another; vLLM uses one table for the longest length`]);
      }
    }
    if (record.nope_layers) {
      out.push(['nope-layers', `${record.nope_layers} of ${record.num_layers} layers apply no RoPE: ${record.nope_reasons.join('; ')}`]);
    }
    if (record.model_type === 'kimi_k2') {
      out.push(['transformers', "transformers 5.23 registers no model_type 'kimi_k2': the card says to run it as deepseek_v3, as decoded here"]);
    }
    const tuning = get(text, 'attn_temperature_tuning');
    if (record.model_type === 'llama4_text' && tuning !== null && typeof tuning !== 'boolean') {
      out.push(['transformers', `attn_temperature_tuning ${JSON.stringify(tuning)}: transformers 5.23's strict config wants true or false; the model's code reads it for truth`]);
    }
    const scaling = isObject(text.rope_scaling) ? text.rope_scaling : {};
    if (scaling.type === 'su' || scaling.rope_type === 'su') {
      out.push(['transformers', "rope type 'su': transformers 5.23 renames it to longrope only after checking the dict, and rejects the file as released; read here as longrope"]);
    }
    if (record.spelling === 'transformers 5' && get(text, 'rope_theta') === null) {
      out.push(['spelling', "rope_parameters is transformers 5's spelling: transformers 4 reads rope_scaling and rope_theta only, and would run plain RoPE with base 10,000"]);
    }
    return out;
  }

  function nameOf(raw, fields) {
    const source = raw._source;
    if (isObject(source) && truthy(source.model)) {
      return String(source.model);
    }
    if (truthy(raw._name_or_path)) {
      return String(raw._name_or_path);
    }
    return fields.model_type;
  }

  function decodeConfig(raw) {
    if (!isObject(raw)) {
      fail('config must be a config.json mapping');
    }
    const fields = normalizeConfig(raw);
    const text = isObject(raw.text_config) ? raw.text_config : raw;
    const where = truthy(text.rope_scaling) ? 'rope_scaling' : 'rope_parameters';
    const layers = fields.layers.map((entry) => {
      const layer = describeLayer(entry, where);
      const trained = truthy(layer.original_length) ? layer.original_length : fields.max_position_embeddings;
      const rotating = layer.inv_freq.filter((t) => t > 0).length;
      return Object.assign(layer, {
        extended_length: layer.factor !== null && layer.original_length !== null ? Math.round(layer.original_length * layer.factor) : null,
        plain: rotating ? invFreq(2 * rotating, layer.base) : [],
        bounds: bounds(layer.rotary_dim, layer.base, trained),
      });
    });
    const record = {
      name: nameOf(raw, fields),
      model_type: fields.model_type,
      spelling: fields.spelling,
      head_dim: fields.head_dim,
      num_heads: fields.num_heads,
      num_kv_heads: fields.num_kv_heads,
      num_layers: fields.num_layers,
      max_position_embeddings: fields.max_position_embeddings,
      layers: layers,
      nope_layers: fields.nope_layers.length,
      nope_reasons: fields.nope_reasons,
      softmax_scale: fields.softmax_scale,
      query_temperature: fields.query_temperature,
    };
    record.gguf = ggufKeys(record, raw);
    record.warnings = warnings(raw, record);
    return record;
  }

  function jsonError(text, error) {
    // "at position N" -> line and column, as Python's json module reports them
    const match = /position (\d+)/.exec(error.message);
    if (!match) {
      return `not JSON: ${error.message}`;
    }
    const before = text.slice(0, Number(match[1]));
    const line = before.split('\n').length;
    const column = before.length - before.lastIndexOf('\n');
    return `not JSON at line ${line}, column ${column}`;
  }

  function decodeText(text) {
    let data;
    try {
      data = JSON.parse(text);
    } catch (error) {
      return { error: jsonError(text, error) };
    }
    if (!isObject(data)) {
      return { error: `the text must be a JSON object (a config), got ${Array.isArray(data) ? 'list' : typeof data}` };
    }
    try {
      return decodeConfig(data);
    } catch (error) {
      return { error: error.message };
    }
  }

  // ---------------------------------------------------------------------------------------
  // (e2) The words of the view, in English or Chinese (the Chinese edition, issue 27)
  // ---------------------------------------------------------------------------------------

  // "zh" for a page language starting with "zh" (Sphinx's language: zh_CN), else "en".
  function language(lang) {
    return typeof lang === 'string' && /^zh/i.test(lang) ? 'zh' : 'en';
  }

  // A value as a table shows it: "-" for none, "12,345" for a large whole number.
  function show(value) {
    if (value === null || value === undefined) {
      return '-';
    }
    if (typeof value === 'number') {
      return Number.isInteger(value) && Math.abs(value) >= 1000 ? n0(value) : g(value);
    }
    return String(value);
  }

  // The fixed words of the view, by language (the terms are the glossary's).
  const WORDS = {
    en: {
      shipped: 'Shipped config',
      decode: 'Decode',
      cannot: (e) => `Cannot decode this config: ${e}`,
      summary: (r) => `${r.model_type}, ${r.spelling} spelling; ${show(r.num_layers)} layers, q/k head ${r.head_dim}, max_position_embeddings ${show(r.max_position_embeddings)}`,
      every: 'every rotating layer',
      rows: ['layers', 'rope type', 'base', 'rotary dimension', 'factor', 'original length', 'extended length', 'planes kept / stretched / interpolated', 'attention factor (cos, sin)', 'longest wavelength (tokens)'],
      fullPeriod: (n) => `planes with a full period in ${n} tokens`,
      bound: 'chapter 6 bound 2π β^(d_extra/d)',
      boundValue: (b) => `${n0(b.bound)} tokens (d_extra = ${b.critical_dim})`,
      nope: (r) => `${r.nope_layers} layers apply no RoPE: ${r.nope_reasons.join('; ')}`,
      softmax: (r) => `softmax scale 1/√${r.head_dim} × ${explore.format.fixed(r.softmax_scale, 6)}`,
      temperature: (t) => `query temperature (${t.source}): 1 + ${g(t.beta)} ln(1 + ⌊(m + ${t.offset}) / ${n0(t.length)}⌋)`,
      gguf: 'GGUF keys (llama.cpp)',
      figure: (type) => `frequencies of ${type} against plain RoPE`,
      axis: 'plane i',
      plain: 'plain RoPE, same base',
    },
    zh: {
      shipped: '内置配置',
      decode: '解码',
      cannot: (e) => `无法解码这份配置：${e}`,
      summary: (r) => `${r.model_type}，${r.spelling} 写法；${show(r.num_layers)} 层，q/k 头维度 ${r.head_dim}，max_position_embeddings ${show(r.max_position_embeddings)}`,
      every: '所有旋转层',
      rows: ['层数', 'rope 类型', '底数', '旋转维度', '缩放因子', '原始长度', '扩展后长度', '保留 / 拉伸 / 内插的子空间', '注意力因子（cos、sin）', '最长周期（token）'],
      fullPeriod: (n) => `${n} 个 token 内转满全周期的子空间`,
      bound: '第 6 章的外推上界 2π β^(d_extra/d)',
      boundValue: (b) => `${n0(b.bound)} 个 token（d_extra = ${b.critical_dim}）`,
      nope: (r) => `${r.nope_layers} 层不施加 RoPE：${r.nope_reasons.join('；')}`,
      softmax: (r) => `softmax 缩放 1/√${r.head_dim} × ${explore.format.fixed(r.softmax_scale, 6)}`,
      temperature: (t) => `查询的温度系数（${t.source}）：1 + ${g(t.beta)} ln(1 + ⌊(m + ${t.offset}) / ${n0(t.length)}⌋)`,
      gguf: 'GGUF 键（llama.cpp）',
      figure: (type) => `${type} 的频率与普通 RoPE 的对比`,
      axis: '子空间 i',
      plain: '普通 RoPE，同一底数',
    },
  };

  // The texts the view shows for a record of decodeText, in the language `lang`:
  //   {error} or {title, summary, warnings: [[code, message]], layers: [{layerType, heading,
  //    rows: [[name, text]], figure, axis, plain, curve}], notes: [text], gguf: {heading,
  //    rows: [[key, text]]}}
  // The numbers are the same in both languages (tests/test_decoder_drift.py checks it).
  function view(record, lang) {
    const w = WORDS[language(lang)];
    if (record.error) {
      return { error: w.cannot(record.error) };
    }
    const layers = record.layers.map((layer) => {
      const values = [
        layer.num_layers,
        layer.rope_type,
        layer.base,
        layer.rotary_dim,
        layer.factor,
        layer.original_length,
        layer.extended_length,
        `${layer.kept} / ${layer.stretched} / ${layer.interpolated}`,
        layer.attention_factor,
        `${n0(layer.longest_wavelength[0])} → ${n0(layer.longest_wavelength[1])}`,
      ];
      const rows = w.rows.map((name, i) => [name, show(values[i])]);
      for (const [name, value] of layer.parameters) {
        rows.push([name, show(value)]);
      }
      if (layer.bounds) {
        rows.push([w.fullPeriod(n0(layer.bounds.trained_length)), show(layer.bounds.full_period_planes)]);
        rows.push([w.bound, w.boundValue(layer.bounds)]);
      }
      return {
        layerType: layer.layer_type,
        heading: layer.layer_type === 'all' ? w.every : layer.layer_type,
        rows: rows,
        figure: w.figure(layer.layer_type),
        axis: w.axis,
        plain: w.plain,
        curve: `θ′ (${layer.rope_type})`,
      };
    });
    const notes = [];
    if (record.nope_layers) {
      notes.push(w.nope(record));
    }
    if (record.softmax_scale !== 1) {
      notes.push(w.softmax(record));
    }
    if (record.query_temperature) {
      notes.push(w.temperature(record.query_temperature));
    }
    return {
      title: record.name,
      summary: w.summary(record),
      warnings: record.warnings,
      layers: layers,
      notes: notes,
      gguf: { heading: w.gguf, rows: record.gguf.map(([key, value]) => [key, show(value)]) },
    };
  }

  // The fixed words of the decoder's markup (its label and button), in the language `lang`.
  function words(lang) {
    const w = WORDS[language(lang)];
    return { shipped: w.shipped, decode: w.decode };
  }

  const api = { decodeText: decodeText, decodeConfig: decodeConfig, view: view, words: words, language: language };
  if (typeof module === 'object' && module.exports) {
    module.exports = api;
  }
  if (!inBrowser) {
    return;
  }

  // ---------------------------------------------------------------------------------------
  // (f) The view
  // ---------------------------------------------------------------------------------------

  const SVG_NS = 'http://www.w3.org/2000/svg';
  const STYLE = `
.ropelab-decoder { margin: 1em 0; }
.ropelab-decoder textarea { box-sizing: border-box; width: 100%; font-family: monospace; font-size: 0.85em; }
.ropelab-decoder select { max-width: 100%; }
.ropelab-decoder button { margin: 0.4em 0; }
.ropelab-decoder-output table { display: block; max-width: 100%; overflow-x: auto; border-collapse: collapse; font-size: 0.9em; }
.ropelab-decoder-output th, .ropelab-decoder-output td { padding: 0.15em 0.6em; text-align: left; vertical-align: top; border-bottom: 1px solid #ddd; overflow-wrap: anywhere; }
.ropelab-decoder-output th { font-weight: normal; color: #444; }
.ropelab-decoder-gguf td { white-space: nowrap; overflow-wrap: normal; }
.ropelab-decoder-figure { width: 100%; max-width: 640px; height: auto; display: block; margin: 0.5em 0; }
.ropelab-decoder-warnings li { color: #8a4b00; overflow-wrap: anywhere; }
.ropelab-decoder-error { color: #a00000; font-weight: bold; }
.ropelab-decoder-output h4, .ropelab-decoder-output h5 { overflow-wrap: anywhere; }
`;

  function addStyle() {
    if (document.querySelector('style[data-ropelab-decoder]')) {
      return;
    }
    const style = document.createElement('style');
    style.setAttribute('data-ropelab-decoder', '');
    style.textContent = STYLE;
    document.head.appendChild(style);
  }

  function el(tag, attrs, parent, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      node.setAttribute(k, v);
    }
    if (text !== undefined) {
      node.textContent = String(text); // text, never markup
    }
    if (parent) {
      parent.appendChild(node);
    }
    return node;
  }

  // the frequencies of one layer type against plain RoPE, log scale
  function figure(layer, texts, parent) {
    const width = 640;
    const height = 220;
    const box = { left: 56, right: 12, top: 12, bottom: 36 };
    const svg = document.createElementNS(SVG_NS, 'svg');
    svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
    svg.setAttribute('class', 'ropelab-decoder-figure');
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', texts.figure);
    const values = layer.inv_freq.concat(layer.plain).filter((t) => t > 0);
    const lo = Math.log10(Math.min(...values));
    const hi = Math.log10(Math.max(...values));
    const n = Math.max(layer.inv_freq.length - 1, 1);
    const x = (i) => box.left + ((width - box.left - box.right) * i) / n;
    const y = (t) => box.top + ((height - box.top - box.bottom) * (hi - Math.log10(t))) / Math.max(hi - lo, 1e-9);
    const add = (tag, attrs, content) => {
      const node = document.createElementNS(SVG_NS, tag);
      for (const [k, v] of Object.entries(attrs)) {
        node.setAttribute(k, v);
      }
      if (content !== undefined) {
        node.textContent = content;
      }
      svg.appendChild(node);
      return node;
    };
    add('rect', { x: box.left, y: box.top, width: width - box.left - box.right, height: height - box.top - box.bottom, fill: 'none', stroke: '#999' });
    for (let e = Math.ceil(lo); e <= Math.floor(hi); e += Math.max(1, Math.ceil((hi - lo) / 6))) {
      add('text', { x: box.left - 6, y: y(Math.pow(10, e)) + 4, 'text-anchor': 'end', 'font-size': 11 }, `1e${e}`);
    }
    add('text', { x: width / 2, y: height - 6, 'text-anchor': 'middle', 'font-size': 12 }, texts.axis);
    const path = (ts) => ts.map((t, i) => (t > 0 ? `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(t).toFixed(1)}` : '')).join(' ');
    add('path', { d: path(layer.plain), fill: 'none', stroke: '#888', 'stroke-dasharray': '4 3' });
    add('path', { d: path(layer.inv_freq), fill: 'none', stroke: '#1f77b4', 'stroke-width': 2 });
    add('text', { x: width - box.right - 4, y: box.top + 14, 'text-anchor': 'end', 'font-size': 11, fill: '#1f77b4' }, texts.curve);
    add('text', { x: width - box.right - 4, y: box.top + 28, 'text-anchor': 'end', 'font-size': 11, fill: '#666' }, texts.plain);
    parent.appendChild(svg);
  }

  function render(out, record, lang) {
    out.textContent = '';
    const texts = view(record, lang);
    if (texts.error) {
      el('p', { class: 'ropelab-decoder-error', role: 'alert' }, out, texts.error);
      return;
    }
    el('h4', {}, out, texts.title);
    el('p', {}, out, texts.summary);
    if (texts.warnings.length) {
      const list = el('ul', { class: 'ropelab-decoder-warnings' }, out);
      for (const [code, message] of texts.warnings) {
        el('li', { 'data-code': code }, list, message);
      }
    }
    record.layers.forEach((layer, i) => {
      const layerTexts = texts.layers[i];
      const section = el('section', { class: 'ropelab-decoder-layer', 'data-layer-type': layer.layer_type }, out);
      el('h5', {}, section, layerTexts.heading);
      const table = el('table', {}, section);
      for (const [name, value] of layerTexts.rows) {
        const tr = el('tr', {}, table);
        el('th', {}, tr, name);
        el('td', {}, tr, value);
      }
      figure(layer, layerTexts, section);
    });
    for (const note of texts.notes) {
      el('p', {}, out, note);
    }
    el('h5', {}, out, texts.gguf.heading);
    const gguf = el('table', { class: 'ropelab-decoder-gguf' }, out);
    for (const [key, value] of texts.gguf.rows) {
      const tr = el('tr', {}, gguf);
      el('th', {}, tr, key);
      el('td', {}, tr, value);
    }
  }

  function mount(root) {
    if (root.getAttribute('data-mounted') === 'true') {
      return;
    }
    root.setAttribute('data-mounted', 'true');
    const lang = language(document.documentElement.lang);
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
})();
