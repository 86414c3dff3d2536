// The context-extension methods (ropelab.rope_config, ropelab.extension): the one copy of
// the rope mathematics, used by the explorables and by the config decoder.

// i(r) = d ln(L_orig/(2π r)) / (2 ln β): the plane that turns r times over L_orig
// (ropelab.rope_config.yarn_correction_dim)
function yarnCorrectionDim(rotations, dim, base, original) {
  return (dim * Math.log(original / (rotations * TWO_PI))) / (2 * Math.log(base));
}

// w_i = clip((i − ℓ)/(h − ℓ), 0, 1), ℓ = max(⌊i(β_fast)⌋, 0), h = min(⌈i(β_slow)⌉, d − 1),
// h nudged by 0.001 when it equals ℓ; with truncate === false, ℓ and h are not rounded
// (ropelab.rope_config.yarn_ramp)
function yarnRamp(dim, base, original, betaFast, betaSlow, truncate) {
  let low = yarnCorrectionDim(betaFast, dim, base, original);
  let high = yarnCorrectionDim(betaSlow, dim, base, original);
  if (truncate !== false) {
    low = Math.floor(low);
    high = Math.ceil(high);
  }
  low = Math.max(low, 0);
  high = Math.min(high, dim - 1);
  if (low === high) {
    high += 0.001;
  }
  return range(dim / 2).map((i) => Math.min(Math.max((i - low) / (high - low), 0), 1));
}

// 0.1 m ln s + 1 for s > 1 (m = mscale, 1 unless given), else 1
// (ropelab.rope_config.yarn_attention_factor)
function yarnAttentionFactor(factor, mscale) {
  return factor <= 1 ? 1 : 0.1 * (mscale === undefined ? 1.0 : mscale) * Math.log(factor) + 1;
}

// Llama 3.1: θ_i kept where λ_i < L/f_high, divided by s where λ_i > L/f_low (or everywhere
// else when f_low = f_high), blended with γ_i = (L/λ_i − f_low)/(f_high − f_low) between
// (ropelab.rope_config.llama3_frequencies)
function llama3Frequencies(theta, factor, original, low, high) {
  return theta.map((t) => {
    const wavelength = TWO_PI / t;
    if (wavelength < original / high) {
      return t;
    }
    if (high === low || wavelength > original / low) {
      return t / factor;
    }
    const gamma = (original / wavelength - low) / (high - low);
    return ((1 - gamma) * t) / factor + gamma * t;
  });
}

// β' = β (s L/L_max − (s − 1))^(d/(d−2)), L = max(seq_len, L_max)
// (ropelab.rope_config.dynamic_ntk_base)
function dynamicNtkBase(base, dim, factor, seqLen, maxLen) {
  const length = Math.max(seqLen, maxLen);
  return base * Math.pow((factor * length) / maxLen - (factor - 1), dim / (dim - 2));
}

// u_i = i/(d/2 − 1), long_i = s^(u_i²), short_i = long_i^(1/4)
// (ropelab.extension.illustrative_longrope_factors)
function illustrativeLongropeFactors(dim, factor) {
  const n = dim / 2;
  const step = 1 / (n - 1);
  const long = range(n).map((i) => Math.pow(factor, Math.pow(i === n - 1 ? 1 : i * step, 2)));
  return { short: long.map((l) => Math.pow(l, 0.25)), long: long };
}

// √(1 + ln s / ln L_orig) for s > 1, else 1   (ropelab.rope_config.longrope_attention_factor)
function longropeAttentionFactor(factor, original) {
  return factor <= 1 ? 1 : Math.sqrt(1 + Math.log(factor) / Math.log(original));
}
