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

// The record of a rope type as the converter reads the name, legacy names ('su') as
// transformers reads them; null for a name that is no rope type (gguf_meta._rope_record).
function ggufRecord(name) {
  if (typeof name !== 'string') {
    return null;
  }
  const renamed = has(LEGACY_TYPE_NAMES, name) ? LEGACY_TYPE_NAMES[name] : name;
  return has(ROPE_TYPES, renamed) ? ROPE_TYPES[renamed] : null;
}

// TextModel.set_gguf_parameters' scaling keys for a rope type (gguf_meta._scaling_keys): nothing
// unless every 'gate' key is set, then .scaling.type and the record's gguf_keys in order.
function scalingKeys(record, main, put, notes) {
  // GGUFKey.value: the first key of `reads` present (null when none is)
  const valueOf = (key) => {
    const found = key.reads.find((name) => has(main, name));
    return found === undefined ? null : main[found];
  };
  if (record.gguf_note !== null) {
    notes.push(record.gguf_note);
  }
  if (record.gguf_scaling_type === null) {
    return;
  }
  if (record.gguf_keys.some((key) => key.when === 'gate' && valueOf(key) === null)) {
    return;
  }
  put('SCALING_TYPE', record.gguf_scaling_type);
  for (const key of record.gguf_keys) {
    const value = valueOf(key);
    if (value !== null) {
      put(key.name, key.kind === 'int' ? Math.trunc(value) : Number(value));
    } else if (key.when === 'needed') {
      notes.push(`${record.title} without ${key.reads[0]}: the converter stops`);
    }
  }
}

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
  let hp = isObject(raw.text_config) ? Object.assign({}, raw, raw.text_config) : raw;
  const headGiven = given(pyGet(hp, 'head_dim')) || (given(pyGet(hp, 'hidden_size')) && given(pyGet(hp, 'num_attention_heads')) && Math.trunc(hp.num_attention_heads) !== 0);
  if (!headGiven) {
    // the converter reads AutoConfig's to_dict: the class's defaults fill the head size
    hp = Object.assign({}, hp, { head_dim: record.head_dim });
  }
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
  const notes = []; // gguf_meta's notes: the decoder's record, as Python's, shows only the keys
  const put = (name, value) => values.set(GGUF_ROPE_KEYS[name].replace('{arch}', () => arch), value);
  const head = () => (given(pyGet(hp, 'head_dim')) ? Math.trunc(hp.head_dim) : Math.floor(Math.trunc(hp.hidden_size) / Math.trunc(hp.num_attention_heads)));
  const hidden = given(pyGet(hp, 'hidden_size')) && given(pyGet(hp, 'num_attention_heads'));
  const ropeType = pyGet(main, 'rope_type');
  if (!GGUF_OWN_KEYS.includes(arch)) {
    const rope = ggufRecord(ropeType);
    if (rope !== null) {
      scalingKeys(rope, main, put, notes);
    }
    if (has(params, 'mrope_section')) {
      const sections = params.mrope_section.map((x) => Math.trunc(x)).concat([0, 0, 0, 0]);
      put('DIMENSION_SECTIONS', sections.slice(0, 4));
    }
    if (given(pyGet(main, 'rope_theta'))) put('FREQ_BASE', Number(main.rope_theta));
    const sliding = pyGet(params, 'sliding_attention');
    if (isObject(sliding) && given(pyGet(sliding, 'rope_theta'))) {
      put('FREQ_BASE_SWA', Number(sliding.rope_theta));
    }
  }
  if (arch === 'gemma3' || arch === 'gemma3n') {
    const base = pyGet(main, 'rope_theta', 1e6);
    put('FREQ_BASE', given(base) ? Number(base) : 1e6);
  } else if (GGUF_LLAMA.includes(arch)) {
    put('DIMENSION_COUNT', head());
    const rope = ggufRecord(String(truthy(ropeType) ? ropeType : '').toLowerCase());
    if (rope !== null && rope.gguf_tensor !== null && truthy(main)) {
      // its values (Python's gguf_tensor_values, not data): one divisor per plane
      tensors.push([`tensor ${rope.gguf_tensor}`, `${Math.ceil(head() / 2)} values`]);
    }
    if (arch === 'mistral3' && pyGet(hp, 'model_type') === 'ministral3' && given(pyGet(params, 'mscale_all_dim'))) {
      put('SCALING_YARN_LOG_MUL', Number(params.mscale_all_dim));
    }
  } else if (arch === 'deepseek2') {
    if (given(pyGet(hp, 'qk_rope_head_dim'))) put('DIMENSION_COUNT', Math.trunc(hp.qk_rope_head_dim));
    if (given(pyGet(params, 'mscale_all_dim'))) {
      put('SCALING_YARN_LOG_MUL', 0.1 * Number(params.mscale_all_dim));
    }
  } else if (arch === 'glm4moe' || arch === 'qwen3next') {
    const part = given(pyGet(params, 'partial_rotary_factor')) ? params.partial_rotary_factor : arch === 'glm4moe' ? 0.5 : 0.25;
    put('DIMENSION_COUNT', Math.trunc(head() * part));
  } else if (arch === 'phi2') {
    if (given(pyGet(params, 'partial_rotary_factor')) && hidden) {
      put('DIMENSION_COUNT', Math.floor(Math.trunc(params.partial_rotary_factor * Math.trunc(hp.hidden_size)) / Math.trunc(hp.num_attention_heads)));
    }
  } else if (arch === 'gptneox') {
    if (given(pyGet(hp, 'rotary_pct')) && hidden) {
      put('DIMENSION_COUNT', Math.trunc(hp.rotary_pct * Math.floor(Math.trunc(hp.hidden_size) / Math.trunc(hp.num_attention_heads))));
    }
  } else if (arch === 'command-r') {
    put('SCALING_TYPE', 'none');
  } else if (arch === 'phi3') {
    const orig = pyGet(params, 'original_max_position_embeddings');
    const longest = find(hp, ['n_positions', 'max_position_embeddings']);
    if (given(orig) && given(longest) && hidden) {
      const part = given(pyGet(params, 'partial_rotary_factor')) ? params.partial_rotary_factor : 1.0;
      put('SCALING_ORIG_CTX_LEN', Math.trunc(orig));
      put('DIMENSION_COUNT', Math.floor(Math.trunc(part * Math.trunc(hp.hidden_size)) / Math.trunc(hp.num_attention_heads)));
      if (given(pyGet(main, 'rope_theta'))) put('FREQ_BASE', Number(main.rope_theta));
      const long = pyGet(params, 'long_factor');
      const short = pyGet(params, 'short_factor');
      if (truthy(long)) {
        const scale = Number(longest) / Number(orig);
        const rope = ggufRecord(String(pyGet(params, 'rope_type', '')).toLowerCase());
        let attention = 1.0;
        if (scale > 1) {
          // the record's default attention factor, else the YaRN formula (the converter's other branch)
          attention = rope !== null && rope.default_attention === 'longrope' ? Math.sqrt(1 + Math.log(scale) / Math.log(orig)) : 0.1 * Math.log(scale) + 1.0;
        }
        put('SCALING_ATTN_FACTOR', attention);
        if (Array.isArray(long) && Array.isArray(short)) {
          tensors.push(['tensor rope_factors_long.weight', `${long.length} values`]);
          tensors.push(['tensor rope_factors_short.weight', `${short.length} values`]);
        }
      }
    }
  }
  return Array.from(values.entries()).concat(tensors);
}
