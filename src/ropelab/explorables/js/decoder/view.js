// ---------------------------------------------------------------------------------------
// (e2) The words of the view, in English or Chinese (the Chinese edition, issue 27)
// ---------------------------------------------------------------------------------------
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

// Layer indices in short form (ropelab.describe.layer_spans): runs as 0-2, an arithmetic
// progression as 3, 7, …, 47, at most four runs shown.
function layerSpans(indices) {
  const idx = indices.slice().sort((a, b) => a - b);
  if (!idx.length) {
    return '';
  }
  const steps = new Set(idx.slice(1).map((x, i) => x - idx[i]));
  if (idx.length >= 4 && steps.size === 1 && !steps.has(1)) {
    return `${idx[0]}, ${idx[1]}, …, ${idx[idx.length - 1]}`;
  }
  let runs = [];
  let start = idx[0];
  let prev = idx[0];
  for (const i of idx.slice(1).concat([null])) {
    if (i !== null && i === prev + 1) {
      prev = i;
      continue;
    }
    runs.push(start === prev ? String(start) : `${start}-${prev}`);
    start = prev = i;
  }
  if (runs.length > 4) {
    runs = runs.slice(0, 3).concat(['…', runs[runs.length - 1]]);
  }
  return runs.join(', ');
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
    ggufNone: 'none: llama.cpp\'s converter writes no rope key for this config',
    figure: (type) => `frequencies of ${type} against plain RoPE`,
    axis: 'plane i',
    plain: 'plain RoPE, same base',
    map: (n) => `layer map (${n} layers):`,
    mapNone: (n) => `no layer applies RoPE; layer map (${n} layers):`,
    kinds: KIND_WORDS,
    ropeGroup: (l) => `${l.rope_type}, base ${show(l.base)}${l.factor === null ? '' : `, factor ${show(l.factor)}`}`,
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
    ggufNone: '无：llama.cpp 的转换器不为此配置写任何 rope 键',
    figure: (type) => `${type} 的频率与普通 RoPE 的对比`,
    axis: '子空间 i',
    plain: '普通 RoPE，同一底数',
    map: (n) => `层映射（${n} 层）：`,
    mapNone: (n) => `没有一层施加 RoPE；层映射（${n} 层）：`,
    kinds: { rope: '带 RoPE 的注意力', nope: '不带 RoPE 的注意力', state_space: '状态空间', linear_attention: '线性注意力', no_attention: '无注意力' },
    ropeGroup: (l) => `${l.rope_type}，底数 ${show(l.base)}${l.factor === null ? '' : `，缩放因子 ${show(l.factor)}`}`,
  },
};

// The texts the view shows for a record of decodeText, in the language `lang`:
//   {error} or {title, summary, warnings: [[code, message]], layers: [{layerType, heading,
//    rows: [[name, text]], figure, axis, plain, curve}], layerMap: null or {heading, rows:
//    [[group, layers]], reasons: [text]} (a stack not all attention, as describe's layer map),
//    notes: [text], gguf: {heading, rows: [[key, text]]}}
// The numbers are the same in both languages (tests/test_decoder_drift.py checks it).
function view(record, lang) {
  const w = WORDS[core.language(lang)];
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
  // the layer map of a hybrid stack (describe.RopeDescription.__str__, _map_lines)
  const kinds = record.layer_kinds;
  let layerMap = null;
  if (kinds.some((k) => k !== 'rope' && k !== 'nope') || (kinds.length && !record.layers.length)) {
    const rows = record.layer_map.map((entry) => {
      let word = w.kinds[entry.kind];
      const layer = entry.kind === 'rope' ? record.layers.find((l) => l.layer_type === entry.layer_type) : null;
      if (entry.kind === 'rope' && entry.layer_type !== 'all') {
        word += ` (${entry.layer_type})`;
      }
      const spans = layerSpans(entry.layers);
      return [`${entry.layers.length} ${word}`, layer ? `${spans}: ${w.ropeGroup(layer)}` : spans];
    });
    const heading = record.layers.length ? w.map(kinds.length) : w.mapNone(kinds.length);
    layerMap = { heading: heading, rows: rows, reasons: record.nope_reasons };
  }
  const notes = [];
  if (record.nope_layers && !layerMap) {
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
    layerMap: layerMap,
    notes: notes,
    gguf: { heading: w.gguf, none: w.ggufNone, rows: record.gguf.map(([key, value]) => [key, show(value)]) },
  };
}

// The fixed words of the decoder's markup (its label and button), in the language `lang`.
function words(lang) {
  const w = WORDS[core.language(lang)];
  return { shipped: w.shipped, decode: w.decode };
}

const api = { decodeText: decodeText, decodeConfig: decodeConfig, view: view, words: words, language: core.language, ropeTypes: ROPE_TYPES };
if (typeof module === 'object' && module.exports) {
  module.exports = api;
}
if (!inBrowser) {
  return;
}
