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
