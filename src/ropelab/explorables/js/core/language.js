// The two languages (the Chinese edition, issue 27). A page whose <html lang> starts with
// "zh" (Sphinx's language: zh_CN) reads the readouts and the control labels in Chinese. The
// same numbers, written by the same formats, appear in both languages
// (tests/test_explorable_drift.py checks it); the terms are the glossary's (book/glossary.md).

// "zh" or "en": the language of a readout; `lang` is a page language ("zh-CN", "en") or
// absent (English).
function language(lang) {
  return typeof lang === 'string' && /^zh/i.test(lang) ? 'zh' : 'en';
}

// The language of the page: <html lang="zh-CN"> (Sphinx's language: zh_CN) reads Chinese.
function pageLanguage() {
  return language(typeof document !== 'undefined' ? document.documentElement.lang : '');
}

// The width of `text` in a monospaced font: a CJK or full-width character takes two columns.
function displayWidth(text) {
  let width = 0;
  for (const ch of text) {
    width += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(ch) ? 2 : 1;
  }
  return width;
}

function padWide(text, width) {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

const LAYOUT_ZH = { interleaved: '交错排布', half: '对半排布' };

const ALLOCATION_ZH = { sections: '分段', interleaved: '交错', axial: '轴向' };

// The label of every control, by its English label (ropelab.interactive.figures).
const LABELS_ZH = {
  'query position m': '查询位置 m',
  'key position n': '键位置 n',
  'θ (rad per position)': 'θ（每个位置的弧度）',
  'shift s (both)': '平移 s（两者一起）',
  '|z|': '|z|',
  'arg z (rad)': 'arg z（弧度）',
  '|w|': '|w|',
  'arg w (rad)': 'arg w（弧度）',
  '|q|': '|q|',
  'arg q (rad)': 'arg q（弧度）',
  '|k|': '|k|',
  'arg k (rad)': 'arg k（弧度）',
  'dim d': '维度 d',
  'base β': '底数 β',
  'position m': '位置 m',
  layout: '布局',
  'head dim d': '头维度 d',
  'largest position': '最大位置',
  'T_train (tokens)': 'T_train（token 数）',
  'max distance': '最大距离',
  T_train: 'T_train',
  T_tune: 'T_tune',
  method: '方法',
  'original length': '原始长度',
  'target length': '目标长度',
  'YaRN β_slow (turns)': 'YaRN β_slow（圈数）',
  'YaRN β_fast (turns)': 'YaRN β_fast（圈数）',
  'Llama 3 low factor': 'Llama 3 低频因子',
  'Llama 3 high factor': 'Llama 3 高频因子',
  allocation: '分配方式',
  'time planes': '时间轴子空间数',
  'height planes': '高度轴子空间数',
  'token a: time': 'token a：时间',
  'token a: height (row)': 'token a：高度（行）',
  'token a: width (column)': 'token a：宽度（列）',
  'token b: time': 'token b：时间',
  'token b: height (row)': 'token b：高度（行）',
  'token b: width (column)': 'token b：宽度（列）',
  'input length': '输入长度',
  'training length L': '训练长度 L',
  'window w (local size)': '窗口 w（局部大小）',
  'Self-Extend group G': 'Self-Extend 分组 G',
};

// The text a menu shows for an option (its value stays the English one); options not
// listed are names the field writes in Latin letters (YaRN, ReRoPE) and stay as they are.
const OPTIONS_ZH = {
  layout: LAYOUT_ZH,
  allocation: ALLOCATION_ZH,
};

function countZh(n, noun) {
  return `${n} 个${noun}`;
}
