// ---------------------------------------------------------------------------------------
// (b2) The family table (ropelab.families) and what a config's layers are
// (config_fields._head_dim, _alias, _default_params, _layer_names, _layer_kinds, _ntk_alpha)
// ---------------------------------------------------------------------------------------

// What a layer kind is called in reasons and reports (config_fields.KIND_WORDS).
const KIND_WORDS = {
  rope: 'attention with RoPE',
  nope: 'attention without RoPE',
  state_space: 'state-space',
  linear_attention: 'linear attention',
  no_attention: 'no attention',
};
const DEFAULT_THETA = 10000.0;

// The rule of a model type (ropelab.families.family), or null for a type the table lacks.
function family(modelType) {
  if (!has(FAMILIES, modelType)) {
    return null;
  }
  const entry = FAMILIES[modelType];
  return {
    model_type: modelType,
    rope: entry.rope !== false,
    defaults: entry.defaults || {},
    derived: entry.derived || [],
    aliases: entry.aliases || {},
    layer_rule: entry.layer_rule || {},
    sub_configs: entry.sub_configs || {},
  };
}

// The named rules of a model type (config_fields.RULES).
function rulesOf(modelType) {
  return has(RULES, modelType) ? RULES[modelType] : [];
}

const isInt = (v) => typeof v === 'number' && Number.isInteger(v);

// [spelling, value] of the first family spelling of `meaning` the config gives
function alias(text, rule, meaning) {
  for (const [spelling, means] of Object.entries(rule === null ? {} : rule.aliases)) {
    if (means === meaning && get(text, spelling) !== null) {
      return [spelling, text[spelling]];
    }
  }
  return ['', null];
}

// the config class's default rope dict (of `layerType` when it nests by type)
function defaultParams(rule, layerType) {
  const params = rule === null ? {} : truthy(rule.defaults.rope_parameters) ? rule.defaults.rope_parameters : {};
  if (layerType !== undefined && layerType !== null && isObject(params[layerType])) {
    return params[layerType];
  }
  if (has(params, 'rope_theta') || has(params, 'rope_type')) {
    return params;
  }
  const nested = Object.values(params).filter(isObject);
  return isObject(params.full_attention) ? params.full_attention : nested.length ? nested[0] : {};
}

// head_dim; else the class's fixed default; else hidden_size // num_attention_heads
function headDimOf(text, rule) {
  if (get(text, 'head_dim') !== null) {
    return checkCount(text.head_dim, 'head_dim');
  }
  const defaults = rule === null ? {} : rule.defaults;
  const fixed = get(defaults, 'head_dim');
  if (rule !== null && isInt(fixed) && !rule.derived.includes('head_dim')) {
    return fixed;
  }
  const hidden = get(text, 'hidden_size');
  let heads = get(text, 'num_attention_heads');
  if (heads === null && isInt(defaults.num_attention_heads)) {
    heads = defaults.num_attention_heads;
  }
  if (hidden === null || heads === null) {
    fail('config must give head_dim, or hidden_size and num_attention_heads (head_dim = hidden_size // num_attention_heads)');
  }
  return Math.floor(checkCount(hidden, 'hidden_size') / checkCount(heads, 'num_attention_heads'));
}

// an interval key's value, under the table's exact spellings (config_fields._interval_value)
function intervalValue(text, keys, fallback, minimum) {
  for (const key of keys) {
    let value = get(text, key);
    if (value !== null) {
      if (typeof value === 'string') {
        value = value.length; // EXAONE 4 also spells it "LLLG"
      }
      return checkCount(value, key, minimum === undefined ? 1 : minimum);
    }
  }
  return fallback;
}

// Each layer's name: layer_types, the family's field, or the table's layer rule (its
// interval, else the class's default pattern at the default layer count); [] when nothing says.
function layerNamesOf(text, rule, numLayers) {
  if (truthy(text.layer_types)) {
    return text.layer_types.map(String);
  }
  const modelType = rule === null ? '' : rule.model_type;
  if (numLayers === null) {
    return [];
  }
  if (rulesOf(modelType).includes('deepseek_v4_groups')) {
    return deepseekV4LayerTypes(text, numLayers);
  }
  const layerRule = rule === null ? {} : rule.layer_rule;
  const field = get(layerRule, 'field');
  if (field !== null && field !== 'layer_types' && field !== 'num_hidden_layers') {
    const given = get(text, field);
    if (typeof given === 'string' && given) {
      return [...given.slice(0, numLayers)];
    }
    if (Array.isArray(given) && given.length) {
      return core.range(numLayers).map((i) => String(given[i % given.length]));
    }
  }
  const indices = layerRule.indices;
  if (truthy(indices)) { // attention layers listed by index (Bamba's attn_layer_indices)
    const listed = has(text, indices.key) ? text[indices.key] : indices.default;
    const chosen = new Set(Array.isArray(listed) ? listed : []);
    return core.range(numLayers).map((i) => (chosen.has(i) ? indices.every : indices.else));
  }
  const interval = layerRule.interval;
  if (truthy(interval)) {
    if (rulesOf(modelType).includes('no_window_all_full')) {
      const everyLayer = RULE_CODE.no_window_all_full(text, numLayers);
      if (everyLayer !== null) {
        return everyLayer;
      }
    }
    const every = intervalValue(text, interval.keys, interval.default);
    const spec = get(interval, 'offset');
    const offset = spec === null ? every - 1 : intervalValue(text, spec.keys, spec.default, 0);
    const names = core.range(numLayers).map((i) => (i % every === offset ? interval.every : interval.else));
    if (truthy(interval.last) && names.length) {
      names[names.length - 1] = interval.last; // the class makes the last layer this type
    }
    return names;
  }
  const pattern = layerRule.pattern;
  const names = layerRule.names || {};
  if ((Array.isArray(pattern) || typeof pattern === 'string') && pattern.length === numLayers) {
    const list = [...pattern].map(String);
    if (new Set(list.map((x) => (has(names, x) ? names[x] : x))).size > 1) {
      return list;
    }
  }
  return [];
}

const isScalar = (v) => typeof v === 'number' || typeof v === 'boolean';

// Each layer's kind and the reasons of those without RoPE (config_fields._layer_kinds).
function layerKindsOf(text, rule, numLayers, types, headRope) {
  const n = numLayers !== null ? numLayers : types.length;
  if (!n) {
    return { kinds: [], reasons: [] };
  }
  const layerRule = rule === null ? {} : rule.layer_rule;
  const names = Object.assign({}, LAYER_NAMES, layerRule.names || {});
  const kinds = core.range(n).map((i) => {
    const kind = i < types.length && has(names, types[i]) ? names[types[i]] : 'attention';
    return kind === 'attention' ? 'rope' : kind;
  });
  const reasons = [];
  const mark = (indices, reason) => {
    const hit = indices.filter((i) => i < n && kinds[i] === 'rope');
    if (hit.length) {
      hit.forEach((i) => (kinds[i] = 'nope'));
      reasons.push(reason);
    }
  };
  const flags = text.no_rope_layers;
  const bases = text.layer_rope_theta;
  if (truthy(flags)) {
    mark(core.range(flags.length).filter((i) => !truthy(flags[i])), 'no_rope_layers');
  } else if (Array.isArray(bases) && bases.length) {
    mark(core.range(bases.length).filter((i) => !truthy(bases[i])), 'layer_rope_theta 0');
  } else if (truthy(layerRule.nope_interval)) {
    const spec = layerRule.nope_interval;
    const every = checkCount(has(text, spec.key) ? text[spec.key] : spec.default, spec.key);
    mark(core.range(n).filter((i) => (i + 1) % every === 0), `every ${every}th layer, ${spec.key}`);
  }
  const hand = layerRule.nope_layer_type;
  if (truthy(hand) && (get(hand, 'when') === null || get(text, hand.when) !== null)) {
    mark(core.range(types.length).filter((i) => types[i] === hand.layer_type), `${rule.model_type}'s full-attention layers skip RoPE`);
  }
  const ropeSwitch = layerRule.rope_switch;
  if (truthy(ropeSwitch)) {
    const value = has(text, ropeSwitch.key) ? text[ropeSwitch.key] : ropeSwitch.default;
    // Python's `in`: True == 1, 1 == 1.0
    const same = (a, b) => (isScalar(a) && isScalar(b) ? Number(a) === Number(b) : a === b);
    if (!ropeSwitch.on.some((on) => same(value, on))) {
      const words = ropeSwitch.on.map((on) => JSON.stringify(on)).join(' or ');
      mark(core.range(n), `${ropeSwitch.key} ${JSON.stringify(value)}: ${rule.model_type}'s attention applies RoPE only when it is ${words}`);
    }
  }
  if (headRope === 0) {
    mark(core.range(n), 'qk_rope_head_dim 0: the MLA attention uses no positions');
  }
  if (rule !== null && !rule.rope) {
    mark(core.range(n), `${rule.model_type}'s attention has no rotary embedding`);
  }
  const blocks = [...new Set(kinds.filter((k) => k !== 'rope' && k !== 'nope'))].sort();
  if (blocks.length) {
    reasons.push(`${blocks.map((k) => KIND_WORDS[k]).join(', ')} blocks have no positions to rotate`);
  }
  return { kinds: kinds, reasons: reasons };
}

// HunYuan's NTK-alpha: dynamic with an alpha is a fixed base θ α^(d/(d-2)) (config_fields._ntk_alpha)
function ntkAlpha(flat, headDim) {
  if (headDim <= 2) {
    fail(`head_dim = ${headDim}: NTK-alpha's base theta x alpha^(d/(d-2)) needs a rotated head wider than 2`);
  }
  const alpha = Number(flat.alpha);
  const base = Number(flat.rope_theta) * Math.pow(alpha, headDim / (headDim - 2));
  const out = {};
  for (const [k, v] of Object.entries(flat)) {
    if (k !== 'alpha' && k !== 'factor') {
      out[k] = v;
    }
  }
  return Object.assign(out, { rope_type: 'default', rope_theta: base });
}

// The layer map of a record (ropelab.describe.layer_map): per group, its kind, its rope group
// (null for the others) and its layers, in order of first layer; [] when every layer rotates.
function layerMap(fields) {
  if (!fields.layer_kinds.length) {
    return [];
  }
  const out = [];
  for (const entry of fields.layers) {
    if (entry.layers.length) {
      out.push({ kind: 'rope', layer_type: entry.layer_type, layers: entry.layers.slice() });
    }
  }
  for (const kind of new Set(fields.layer_kinds)) {
    if (kind !== 'rope') {
      const index = core.range(fields.layer_kinds.length).filter((i) => fields.layer_kinds[i] === kind);
      out.push({ kind: kind, layer_type: null, layers: index });
    }
  }
  return out.sort((a, b) => a.layers[0] - b.layers[0]);
}
