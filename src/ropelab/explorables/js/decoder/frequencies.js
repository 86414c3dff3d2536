// The frequencies of each rope type at initialisation (seq_len None), from the core's rope
// mathematics (ropelab.rope_config's frequency functions): spec → [inv_freq, attention_factor].
// A rope type of ROPE_TYPES with no function here is an error for every config that uses it
// (tests/test_bundle.py plants one), never a silent fallback.

// θ_i = β^(−2i/d) with the checks of ropelab.core.inv_freq
function checkedInvFreq(dim, base) {
  checkDim(dim, 'dim');
  checkPositive(base, 'base');
  return core.invFreq(dim, base);
}

const FREQUENCIES = {
  default(spec) {
    return [checkedInvFreq(spec.rotary_dim, spec.rope_theta), 1.0];
  },
  linear(spec) {
    return [checkedInvFreq(spec.rotary_dim, spec.rope_theta).map((t) => t / spec.factor), 1.0];
  },
  // at initialisation dynamic NTK is plain RoPE; its base changes past max_position_embeddings
  dynamic(spec) {
    if (spec.rotary_dim <= 2) {
      fail(`dim must be > 2 for dynamic NTK scaling (exponent d/(d-2)), got ${spec.rotary_dim}`);
    }
    return [checkedInvFreq(spec.rotary_dim, spec.rope_theta), 1.0];
  },
  yarn(spec) {
    const dim = spec.rotary_dim;
    checkPositive(spec.rope_theta, 'rope_theta', 1.0);
    const theta = checkedInvFreq(dim, spec.rope_theta);
    const w = core.yarnRamp(dim, spec.rope_theta, spec.original, spec.beta_fast, spec.beta_slow, spec.truncate);
    const scaled = theta.map((t, i) => (1 - w[i]) * t + w[i] * (t / spec.factor));
    if (spec.attention_factor !== null) {
      return [scaled, spec.attention_factor];
    }
    if (truthy(spec.mscale) && truthy(spec.mscale_all_dim)) {
      return [scaled, core.yarnAttentionFactor(spec.factor, spec.mscale) / core.yarnAttentionFactor(spec.factor, spec.mscale_all_dim)];
    }
    return [scaled, core.yarnAttentionFactor(spec.factor)];
  },
  longrope(spec) {
    const theta = checkedInvFreq(spec.rotary_dim, spec.rope_theta).map((t, i) => t / spec.short_factor[i]);
    if (spec.attention_factor !== null) {
      return [theta, spec.attention_factor];
    }
    if (spec.factor > 1 && spec.original < 2) {
      fail(`original_max_position_embeddings must be >= 2 when factor > 1, got ${spec.original}`);
    }
    return [theta, core.longropeAttentionFactor(spec.factor, spec.original)];
  },
  llama3(spec) {
    const theta = checkedInvFreq(spec.rotary_dim, spec.rope_theta);
    return [core.llama3Frequencies(theta, spec.factor, spec.original, spec.low_freq_factor, spec.high_freq_factor), 1.0];
  },
  // proportional (Gemma 4): floor(p D / 2) planes with exponents over the whole head
  proportional(spec) {
    const head = checkDim(spec.head_dim, 'head_dim');
    const planes = Math.trunc((spec.partial_rotary_factor * head) / 2);
    const factor = spec.factor === null ? 1.0 : spec.factor;
    return [core.range(head / 2).map((i) => (i < planes ? Math.pow(spec.rope_theta, -(2 * i) / head) / factor : 0)), 1.0];
  },
};

// (inv_freq, attention_factor) at initialisation (seq_len None)
function frequencies(spec) {
  const kind = spec.rope_type;
  if (!Object.prototype.hasOwnProperty.call(FREQUENCIES, kind)) {
    fail(`rope_type '${kind}' is in ropelab.rope_config.ROPE_TYPES but ropelab-decoder.js has no frequency function for it (add it to FREQUENCIES in js/decoder/frequencies.js)`);
  }
  return FREQUENCIES[kind](spec);
}
