// The decoder's record (ropelab.decoder): bounds, warnings, decodeConfig, decodeText.

// Theorem 2 for a layer: the planes with a full period within the trained length, d_extra and
// T_extra (the core's fullPeriodPlanes, criticalDim, extrapolationBound), or null
function bounds(dim, base, trained) {
  if (trained === null || trained <= core.TWO_PI || base <= 1) {
    return null;
  }
  return {
    trained_length: trained,
    full_period_planes: core.fullPeriodPlanes(dim, trained, base),
    critical_dim: core.criticalDim(dim, trained, base),
    bound: core.extrapolationBound(base, dim, trained, base),
  };
}

const g = (x) => explore.format.general(x, 6);
const n0 = (x) => explore.format.fixed(x, 0, { comma: true });

function warnings(raw, record) {
  const out = [];
  const text = isObject(raw.text_config) ? raw.text_config : raw;
  for (const layer of record.layers) {
    const kind = layer.rope_type;
    const checks = ROPE_TYPES[kind].layer_warnings; // the codes a layer of this type can raise
    const factor = layer.factor;
    const original = layer.original_length;
    const where = layer.layer_type === 'all' ? '' : ` (${layer.layer_type})`;
    const declared = record.max_position_embeddings;
    if (checks.includes('factor-vs-lengths') && truthy(factor) && truthy(original) && truthy(declared)) {
      if (Math.abs(declared / original - factor) > 1e-9 * factor && declared !== original) {
        out.push(['factor-vs-lengths', `factor ${g(factor)}${where} but max_position_embeddings / original = ${n0(declared)} / ${n0(original)} = ${g(declared / original)}: engines that size their tables from one or the other disagree`]);
      }
    }
    if (checks.includes('no-op-block') && factor === 1) {
      out.push(['no-op-block', `${kind} with factor 1${where}: the block changes nothing`]);
    }
    const params = Object.fromEntries(layer.parameters);
    if (checks.includes('yarn-truncate') && params.truncate === false) {
      out.push(['yarn-truncate', `YaRN with truncate false${where}: GGUF has no key for it and engines that round the ramp's ends compute other frequencies`]);
    }
    if (checks.includes('dynamic-cache')) {
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
      plain: rotating ? checkedInvFreq(2 * rotating, layer.base) : [],
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
    layer_kinds: fields.layer_kinds,
    layer_map: layerMap(fields),
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
