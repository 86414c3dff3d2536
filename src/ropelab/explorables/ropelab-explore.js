/* ropelab-explore.js: the book's explorables, figures whose controls respond on a static page.
 *
 * A classic script (ES2020, no dependencies, no network requests). The book's pages load it
 * once as a site asset; outside the book each explorable output carries it. However many
 * times it runs, it defines window.ropelabExplore once, with
 *   mountAll()           mounts every explorable on the page not mounted yet (the output of
 *                        ropelab.explorables.explorable: markup plus a JSON config);
 *   mount(root, config)  wires the controls inside `root` and draws the figure;
 *   instances            one entry per mounted explorable: {kind, params, data, root}, where
 *                        `data` has the keys of ropelab.explorables.explorable_data(kind);
 * and the pure functions below. In Node (`require`) it exports only the pure functions
 * (compute, readout, clamp, sliderValues, the number formats): the drift check of
 * tests/test_explorable_drift.py compares them with Python on seeded settings.
 *
 * On a page whose <html lang> starts with "zh" (the Chinese edition, Sphinx's language:
 * zh_CN) the readouts and the controls' labels read Chinese, with the same numbers in the same
 * formats: readout(kind, data, lang), controlLabel(label, lang), optionText(name, value, lang).
 *
 * Sections: (a) the formulas, each mirroring the ropelab function named above it, and the data
 * of each figure; (a2) Python's number formats and the readouts; (a2-zh) the readouts and the
 * labels in Chinese; (a3) the controls: clamp and
 * slider values, as ropelab.interactive.controls; (b) a small SVG plotting layer; (c) the five
 * figures; (d) mounting.
 */
(function () {
  'use strict';
  const inBrowser = typeof window !== 'undefined' && typeof document !== 'undefined';
  if (inBrowser && window.ropelabExplore) {
    return;
  }

  // ---------------------------------------------------------------------------------------
  // (a) The formulas
  // ---------------------------------------------------------------------------------------

  const TWO_PI = 2 * Math.PI;

  // [0, 1, ..., count - 1]
  function range(count) {
    return Array.from({ length: count }, (_, i) => i);
  }

  // θ_i = β^(−2i/d), i = 0 .. d/2 − 1   (ropelab.core.inv_freq)
  function invFreq(dim, base) {
    return range(dim / 2).map((i) => Math.pow(base, -((2 * i) / dim)));
  }

  // λ_i = 2π/θ_i = 2π β^(2i/d)   (ropelab.core.wavelengths)
  function wavelengths(dim, base) {
    return invFreq(dim, base).map((theta) => TWO_PI / theta);
  }

  // #{i : 2π β^(2i/d) ≤ T}, the planes with a full period within T tokens
  // (ropelab.scaling.full_period_planes)
  function fullPeriodPlanes(dim, trainLen, base) {
    return wavelengths(dim, base).filter((lambda) => lambda <= trainLen).length;
  }

  // d_extra = 2⌈(d/2) log_β(T/2π)⌉, capped at d   (ropelab.scaling.critical_dim)
  function criticalDim(dim, trainLen, base) {
    const planes = Math.ceil(((dim / 2) * Math.log(trainLen / TWO_PI)) / Math.log(base));
    return Math.min(2 * planes, dim);
  }

  // T_extra = 2π β^(d_extra/d), d_extra counted at the pre-training base
  // (ropelab.scaling.extrapolation_bound, Theorem 2)
  function extrapolationBound(base, dim, trainLen, pretrainBase) {
    return TWO_PI * Math.pow(base, criticalDim(dim, trainLen, pretrainBase) / dim);
  }

  // β0 = β_pre^(ln(T_tune/2π) / ln(T_train/2π))   (ropelab.scaling.critical_base, Theorem 3)
  function criticalBase(trainLen, tuneLen, pretrainBase) {
    return Math.pow(pretrainBase, Math.log(tuneLen / TWO_PI) / Math.log(trainLen / TWO_PI));
  }

  // (β1, β2, β3) = (2T/π, T/π, T/2π)   (ropelab.scaling.small_base_thresholds, Theorem 1)
  function smallBaseThresholds(length) {
    return [(2 * length) / Math.PI, length / Math.PI, length / TWO_PI];
  }

  // The regimes of Theorem 3, named by what they mean (ropelab.scaling.REGIME_*).
  const REGIME_LARGER_BASE = 'β > β0: bound = T_extra';
  const REGIME_SMALLER_BASE = 'β ≤ β0: bound = T_tune';
  const REGIME_EVERY_PLANE = "d'_extra = d: no hard bound (conjecture)";

  // Theorem 3 (ropelab.scaling.predict): above β0 the bound is T_extra; at or below it the
  // bound is T_tune with d'_extra = critical_dim(d, T_tune, β), and no bound is predicted once
  // d'_extra = d (every plane completes a period within T_tune: the source's conjecture).
  function predict(dim, trainLen, base, tuneLen, pretrainBase) {
    const beta0 = criticalBase(trainLen, tuneLen, pretrainBase);
    if (base > beta0) {
      return {
        regime: REGIME_LARGER_BASE,
        d_extra: criticalDim(dim, trainLen, pretrainBase),
        supported_length: extrapolationBound(base, dim, trainLen, pretrainBase),
        critical_base: beta0,
      };
    }
    const dExtra = criticalDim(dim, tuneLen, base);
    if (dExtra === dim) {
      return {
        regime: REGIME_EVERY_PLANE,
        d_extra: dim,
        supported_length: null,
        critical_base: beta0,
      };
    }
    return { regime: REGIME_SMALLER_BASE, d_extra: dExtra, supported_length: tuneLen, critical_base: beta0 };
  }

  // r_k = ⌊M^(k/(N−1)) + ½⌋, k = 0 .. N−1, the last one set to M, duplicates removed, sorted
  // (ropelab.decay.decay_distances)
  function decayDistances(maxDistance, num) {
    const raw = range(num).map((k) => Math.floor(Math.pow(maxDistance, k / (num - 1)) + 0.5));
    raw[num - 1] = maxDistance;
    return Array.from(new Set(raw)).sort((a, b) => a - b);
  }

  // s(r) = Σ_i 2cos(rθ_i), the score of q = k = (1, ..., 1)   (ropelab.decay.ones_score)
  function onesScore(r, theta) {
    let sum = 0;
    for (const t of theta) {
      sum += Math.cos(r * t);
    }
    return 2 * sum;
  }

  // (1/(d/2)) Σ_j |S_j| with S_j = Σ_{k<j} e^(irθ_k), RoFormer's relative upper bound
  // (ropelab.decay.relative_upper_bound over ropelab.decay.partial_sums)
  function relativeUpperBound(r, theta) {
    let re = 0;
    let im = 0;
    let total = 0;
    for (const t of theta) {
      re += Math.cos(r * t);
      im += Math.sin(r * t);
      total += Math.hypot(re, im);
    }
    return total / theta.length;
  }

  // R(φ)x = (x0 cos φ − x1 sin φ, x1 cos φ + x0 sin φ)   (ropelab.rotation2d.rotate_2d)
  function rotate2d(x, angle) {
    const c = Math.cos(angle);
    const s = Math.sin(angle);
    return [x[0] * c - x[1] * s, x[1] * c + x[0] * s];
  }

  // (R_m q)·(R_n k) with R_m = R(mθ)   (ropelab.rotation2d.rope_score_2d)
  function ropeScore2d(q, k, m, n, theta) {
    const a = rotate2d(q, m * theta);
    const b = rotate2d(k, n * theta);
    return a[0] * b[0] + a[1] * b[1];
  }

  // qᵀ R_r k with R_r = R(rθ), r = n − m   (ropelab.rotation2d.relative_score_2d)
  function relativeScore2d(q, k, offset, theta) {
    const turned = rotate2d(k, offset * theta);
    return q[0] * turned[0] + q[1] * turned[1];
  }

  // R^d_{Θ,m} = diag(R(mθ_0), ..., R(mθ_{d/2−1})); plane i sits on coordinates (2i, 2i+1)
  // ("interleaved") or (i, i + d/2) ("half")   (ropelab.core.rotation_matrix)
  function rotationMatrix(position, dim, base, layout) {
    const matrix = range(dim).map(() => new Array(dim).fill(0));
    invFreq(dim, base).forEach((theta, i) => {
      const [a, b] = planeCoordinates(i, dim, layout);
      const angle = position * theta;
      matrix[a][a] = Math.cos(angle);
      matrix[a][b] = -Math.sin(angle);
      matrix[b][a] = Math.sin(angle);
      matrix[b][b] = Math.cos(angle);
    });
    return matrix;
  }

  // The coordinates (a, b) of plane i   (ropelab.core.plane_coordinates)
  function planeCoordinates(i, dim, layout) {
    return layout === 'interleaved' ? [2 * i, 2 * i + 1] : [i, i + dim / 2];
  }

  // ---------------------------------------------------------------------------------------
  // The data of each explorable: the keys and values of ropelab.explorables.explorable_data
  // ---------------------------------------------------------------------------------------

  // Chapter 1 (ropelab.rotation2d.relative_rotation_data): q, k turned by their positions
  // and by a shift s of both.
  function rotationData(p, constants) {
    const { q, k } = constants;
    const shifts = range(constants.max_shift + 1);
    return {
      m: p.m,
      n: p.n,
      theta: p.theta,
      shift: p.shift,
      q: q,
      k: k,
      rotated_q: rotate2d(q, p.m * p.theta),
      rotated_k: rotate2d(k, p.n * p.theta),
      shifted_q: rotate2d(q, (p.m + p.shift) * p.theta),
      shifted_k: rotate2d(k, (p.n + p.shift) * p.theta),
      score: ropeScore2d(q, k, p.m, p.n, p.theta),
      shifted_score: ropeScore2d(q, k, p.m + p.shift, p.n + p.shift, p.theta),
      relative_score: relativeScore2d(q, k, p.n - p.m, p.theta),
      key_only_score: ropeScore2d(q, k, p.m, p.n + p.shift, p.theta),
      // ropelab.rotation2d.shifted_scores over s = 0 .. max_shift
      shifts: shifts,
      both: shifts.map((s) => ropeScore2d(q, k, p.m + s, p.n + s, p.theta)),
      key_only: shifts.map((s) => ropeScore2d(q, k, p.m, p.n + s, p.theta)),
    };
  }

  // r e^(iφ) = [r cos φ, r sin φ]   (ropelab.complex_primer.polar)
  function polar(length, angle) {
    return [length * Math.cos(angle), length * Math.sin(angle)];
  }

  // z·w = (a0 + i a1)(b0 + i b1) = [a0 b0 − a1 b1, a0 b1 + a1 b0], as Python multiplies
  // complex numbers   (ropelab.complex_primer.complex_pair_data)
  function complexProduct(a, b) {
    return [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]];
  }

  // 0 for a value within 1e-12 of zero (rounding noise)   (ropelab.complex_primer._clean)
  function cleanZero(x) {
    return Math.abs(x) < 1e-12 ? 0 : x;
  }

  // The whole turns between an angle sum and a measured angle: ⌊(sum − angle)/2π + ½⌋
  // (ropelab.complex_primer._turns)
  function wholeTurns(total, measured) {
    return Math.floor((total - measured) / TWO_PI + 0.5);
  }

  // Chapter 1A (ropelab.complex_primer.complex_pair_data): z, w, conj(w), z·w and z·conj(w),
  // their lengths and measured angles, and the sum and difference of the angles.
  function complexPairData(p) {
    const z = polar(p.z_abs, p.z_arg);
    const w = polar(p.w_abs, p.w_arg);
    const conjW = [w[0], -w[1]];
    const product = complexProduct(z, w).map(cleanZero);
    const conjProduct = complexProduct(z, conjW).map(cleanZero);
    const angleSum = p.z_arg + p.w_arg;
    const angleDifference = p.z_arg - p.w_arg;
    const productArg = Math.atan2(product[1], product[0]);
    const conjProductArg = Math.atan2(conjProduct[1], conjProduct[0]);
    return {
      z_abs: p.z_abs,
      z_arg: p.z_arg,
      w_abs: p.w_abs,
      w_arg: p.w_arg,
      z: z,
      w: w,
      conj_w: conjW,
      product: product,
      conj_product: conjProduct,
      length_product: p.z_abs * p.w_abs,
      product_abs: Math.hypot(product[0], product[1]),
      product_arg: productArg,
      conj_product_abs: Math.hypot(conjProduct[0], conjProduct[1]),
      conj_product_arg: conjProductArg,
      angle_sum: angleSum,
      angle_difference: angleDifference,
      product_turns: wholeTurns(angleSum, productArg),
      conj_turns: wholeTurns(angleDifference, conjProductArg),
    };
  }

  // f_q·conj(f_k) = (a0 + i a1)(b0 − i b1) for complex numbers a = [a0, a1], b = [b0, b1]
  // (ropelab.rotation2d.complex_score_data)
  function conjugateProduct(a, b) {
    return [a[0] * b[0] + a[1] * b[1], a[1] * b[0] - a[0] * b[1]];
  }

  // Chapter 2 (ropelab.rotation2d.complex_score_data): q e^(imθ), k e^(inθ), their product
  // with the conjugate, whose real part is the score.
  function complexScoreData(p) {
    const q = [p.q_abs * Math.cos(p.q_arg), p.q_abs * Math.sin(p.q_arg)];
    const k = [p.k_abs * Math.cos(p.k_arg), p.k_abs * Math.sin(p.k_arg)];
    const rotatedQ = rotate2d(q, p.m * p.theta);
    const rotatedK = rotate2d(k, p.n * p.theta);
    const product = conjugateProduct(rotatedQ, rotatedK);
    return {
      q_abs: p.q_abs,
      q_arg: p.q_arg,
      k_abs: p.k_abs,
      k_arg: p.k_arg,
      m: p.m,
      n: p.n,
      theta: p.theta,
      q: q,
      k: k,
      rotated_q: rotatedQ,
      rotated_k: rotatedK,
      product: product,
      score: product[0],
      dot: ropeScore2d(q, k, p.m, p.n, p.theta),
      angle: (p.m - p.n) * p.theta,
    };
  }

  // Chapter 3 (ropelab.core.block_matrix_data): the dense rotation matrix.
  function blockData(p) {
    return {
      dim: p.dim,
      base: p.base,
      position: p.position,
      layout: p.layout,
      theta: invFreq(p.dim, p.base),
      matrix: rotationMatrix(p.position, p.dim, p.base, p.layout),
    };
  }

  // Chapter 3A's precision: a double rounded to a dtype, ties to even; float32 by Math.fround,
  // float16 and bfloat16 to p significant bits with the spacing of the smallest normal below
  // it and ±Infinity past the largest finite value   (ropelab.precision.round_to_dtype)
  const DTYPE_FORMATS = { float16: [11, -14, 15], bfloat16: [8, -126, 127] };
  function roundToDtype(x, dtype) {
    if (dtype === 'float64' || x === 0 || !Number.isFinite(x)) {
      return x;
    }
    if (dtype === 'float32') {
      return Math.fround(x);
    }
    const [bits, emin, emax] = DTYPE_FORMATS[dtype];
    const size = Math.abs(x);
    let exponent = Math.floor(Math.log2(size));
    if (Math.pow(2, exponent) > size) {
      exponent -= 1;
    } else if (Math.pow(2, exponent + 1) <= size) {
      exponent += 1;
    }
    const spacing = Math.pow(2, Math.max(exponent, emin) - bits + 1);
    const q = x / spacing;
    const floor = Math.floor(q);
    const rest = q - floor;
    const n = rest > 0.5 ? floor + 1 : rest < 0.5 ? floor : floor % 2 === 0 ? floor : floor + 1;
    const rounded = n * spacing;
    const largest = (2 - Math.pow(2, 1 - bits)) * Math.pow(2, emax);
    return Math.abs(rounded) > largest ? Math.sign(rounded) * Infinity : rounded;
  }

  // The largest angle and cos-table errors over the planes at position m, the angles formed
  // as fl(fl(m)·fl(θ_i)) in `work` from θ_i rounded to `thetaDtype`, the cos rounded to
  // `table`; float64 is the reference: its bound ½ulp(m) = 2^(⌊log2 m⌋ − 53), and that plus
  // 2^−54 for the cos   (ropelab.precision.precision_explorer_data)
  function formedErrors(m, theta, work, thetaDtype, table) {
    if (work === 'float64') {
      const half = Math.pow(2, Math.floor(Math.log2(m)) - 53);
      return { angle: half, cos: half + Math.pow(2, -54) };
    }
    let angle = 0;
    let cos = 0;
    for (const t of theta) {
      const exact = m * t;
      const frequency = roundToDtype(roundToDtype(t, thetaDtype), work);
      const approx = roundToDtype(roundToDtype(m, work) * frequency, work);
      angle = Math.max(angle, Math.abs(approx - exact));
      cos = Math.max(cos, Math.abs(roundToDtype(Math.cos(approx), table) - Math.cos(exact)));
    }
    return { angle: angle, cos: cos };
  }

  // [name, precision of the angles, of θ_i, of the table]   (ropelab.precision.PRECISION_SERIES)
  const PRECISION_SERIES = [
    ['float64', 'float64', 'float64', 'float64'],
    ['float32', 'float32', 'float64', 'float32'],
    ['bfloat16', 'bfloat16', 'float64', 'bfloat16'],
    ['float16', 'float16', 'float64', 'float16'],
    ['bf16_theta', 'float32', 'bfloat16', 'bfloat16'],
  ];

  // Chapter 3A (ropelab.precision.precision_explorer_data): float16's arrays stop at the last
  // position it holds.
  function precisionData(p, constants) {
    const theta = invFreq(p.dim, p.base);
    const positions = decayDistances(p.max_position, constants.num_positions);
    const finite = positions.filter((m) => Number.isFinite(roundToDtype(m, 'float16'))).length;
    const data = { dim: p.dim, base: p.base, max_position: p.max_position, positions: positions };
    for (const [name, work, thetaDtype, table] of PRECISION_SERIES) {
      const rows = name === 'float16' ? positions.slice(0, finite) : positions;
      const errors = rows.map((m) => formedErrors(m, theta, work, thetaDtype, table));
      data[`angle_${name}`] = errors.map((e) => e.angle);
      data[`cos_${name}`] = errors.map((e) => e.cos);
    }
    data.float16_positions = finite;
    return data;
  }

  // Chapter 4 (ropelab.spectrum.spectrum_data with a reference base).
  function spectrumData(p, constants) {
    const theta = invFreq(p.dim, p.base);
    const wavelength = theta.map((t) => TWO_PI / t);
    const nFull = fullPeriodPlanes(p.dim, p.train_len, p.base);
    return {
      dim: p.dim,
      base: p.base,
      train_len: p.train_len,
      plane: range(p.dim / 2),
      theta: theta,
      wavelength: wavelength,
      // turns_i = T_train / λ_i
      turns: wavelength.map((lambda) => p.train_len / lambda),
      full_period: wavelength.map((lambda) => lambda <= p.train_len),
      theta_threshold: TWO_PI / p.train_len,
      // (d/2) log_β(T_train/2π): the real plane index whose wavelength is exactly T_train
      boundary: ((p.dim / 2) * Math.log(p.train_len / TWO_PI)) / Math.log(p.base),
      n_planes: p.dim / 2,
      n_full: nFull,
      n_partial: p.dim / 2 - nFull,
      critical_dim: criticalDim(p.dim, p.train_len, p.base),
      reference_base: constants.reference_base,
      reference_theta: invFreq(p.dim, constants.reference_base),
    };
  }

  // Chapter 5 (ropelab.decay.decay_data).
  function decayData(p, constants) {
    const theta = invFreq(p.dim, p.base);
    const distances = decayDistances(p.max_distance, constants.num_distances);
    return {
      dim: p.dim,
      base: p.base,
      max_distance: p.max_distance,
      distances: distances,
      ones_score: distances.map((r) => onesScore(r, theta)),
      relative_upper_bound: distances.map((r) => relativeUpperBound(r, theta)),
    };
  }

  // Chapter 6 (ropelab.calculator.calculator_data without the method bands).
  function calculatorData(p, constants) {
    const pre = constants.pretrain_base;
    const prediction = predict(p.dim, p.train_len, p.base, p.tune_len, pre);
    return {
      dim: p.dim,
      train_len: p.train_len,
      base: p.base,
      tune_len: p.tune_len,
      planes: range(p.dim / 2),
      wavelengths: wavelengths(p.dim, p.base),
      pretrain_wavelengths: wavelengths(p.dim, pre),
      d_extra: criticalDim(p.dim, p.train_len, pre),
      full_period_planes: fullPeriodPlanes(p.dim, p.train_len, pre),
      extra_len: extrapolationBound(p.base, p.dim, p.train_len, pre),
      critical_base: prediction.critical_base,
      regime: prediction.regime,
      effective_d_extra: prediction.d_extra,
      supported_length: prediction.supported_length,
      thresholds: smallBaseThresholds(p.tune_len),
    };
  }

  // ---------------------------------------------------------------------------------------
  // The context-extension methods (ropelab.extension, ropelab.rope_config)
  // ---------------------------------------------------------------------------------------

  // i(r) = d ln(L_orig/(2π r)) / (2 ln β): the plane that turns r times over L_orig
  // (ropelab.rope_config.yarn_correction_dim)
  function yarnCorrectionDim(rotations, dim, base, original) {
    return (dim * Math.log(original / (rotations * TWO_PI))) / (2 * Math.log(base));
  }

  // w_i = clip((i − ℓ)/(h − ℓ), 0, 1), ℓ = max(⌊i(β_fast)⌋, 0), h = min(⌈i(β_slow)⌉, d − 1),
  // h nudged by 0.001 when it equals ℓ   (ropelab.rope_config.yarn_ramp)
  function yarnRamp(dim, base, original, betaFast, betaSlow) {
    const low = Math.max(Math.floor(yarnCorrectionDim(betaFast, dim, base, original)), 0);
    let high = Math.min(Math.ceil(yarnCorrectionDim(betaSlow, dim, base, original)), dim - 1);
    if (low === high) {
      high += 0.001;
    }
    return range(dim / 2).map((i) => Math.min(Math.max((i - low) / (high - low), 0), 1));
  }

  // 0.1 ln s + 1 for s > 1, else 1   (ropelab.rope_config.yarn_attention_factor)
  function yarnAttentionFactor(factor) {
    return factor <= 1 ? 1 : 0.1 * 1.0 * Math.log(factor) + 1;
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

  // θ'_i and the attention factor of a method extending L_orig to L_target
  // (ropelab.extension.method_frequencies, through ropelab.frequencies_from_config)
  function methodFrequencies(p) {
    const factor = p.target_len / p.original_len;
    const theta = invFreq(p.dim, p.base);
    switch (p.method) {
      case 'PI':
        return { theta: theta.map((t) => t / factor), attention: 1 };
      case 'NTK-aware':
        return { theta: invFreq(p.dim, p.base * Math.pow(factor, p.dim / (p.dim - 2))), attention: 1 };
      case 'dynamic NTK': {
        const base = dynamicNtkBase(p.base, p.dim, factor, p.target_len, p.original_len);
        return { theta: invFreq(p.dim, base), attention: 1 };
      }
      case 'YaRN': {
        const weight = yarnRamp(p.dim, p.base, p.original_len, p.beta_fast, p.beta_slow);
        const scaled = theta.map((t, i) => (1 - weight[i]) * t + weight[i] * (t / factor));
        return { theta: scaled, attention: yarnAttentionFactor(factor) };
      }
      case 'Llama 3':
        return {
          theta: llama3Frequencies(theta, factor, p.original_len, p.low_freq_factor, p.high_freq_factor),
          attention: 1,
        };
      default: {
        const factors = illustrativeLongropeFactors(p.dim, factor);
        const rescale = p.target_len > p.original_len ? factors.long : factors.short;
        return {
          theta: theta.map((t, i) => t / rescale[i]),
          attention: longropeAttentionFactor(factor, p.original_len),
        };
      }
    }
  }

  // Chapters 6 and 8 (ropelab.extension.method_explorer_data): each plane before and after.
  function extensionMethodsData(p) {
    const factor = p.target_len / p.original_len;
    const theta = invFreq(p.dim, p.base);
    const after = methodFrequencies(p);
    const ratio = after.theta.map((t, i) => t / theta[i]);
    const band = ratio.map((r) => (Math.abs(r - 1) <= 1e-9 ? 0 : Math.abs(r * factor - 1) <= 1e-9 ? 2 : 1));
    const counted = (value) => band.filter((b) => b === value).length;
    return {
      method: p.method,
      dim: p.dim,
      base: p.base,
      original_len: p.original_len,
      target_len: p.target_len,
      beta_fast: p.beta_fast,
      beta_slow: p.beta_slow,
      low_freq_factor: p.low_freq_factor,
      high_freq_factor: p.high_freq_factor,
      factor: factor,
      planes: range(p.dim / 2),
      wavelength_before: theta.map((t) => TWO_PI / t),
      wavelength_after: after.theta.map((t) => TWO_PI / t),
      ratio: ratio,
      band: band,
      kept: counted(0),
      stretched: counted(1),
      interpolated: counted(2),
      attention_factor: after.attention,
      critical_dim: criticalDim(p.dim, p.original_len, p.base),
      full_period_planes: fullPeriodPlanes(p.dim, p.original_len, p.base),
    };
  }

  // ---------------------------------------------------------------------------------------
  // 2D and multimodal RoPE (ropelab.multimodal)
  // ---------------------------------------------------------------------------------------

  // The axis of every plane: contiguous sections (Qwen2-VL's M-RoPE), sections interleaved
  // plane by plane (Qwen3-VL: plane j on height when j % 3 = 1 and j < 3·h, on width when
  // j % 3 = 2 and j < 3·w, else time), or half row, half column (axial 2D)
  // (ropelab.multimodal.plane_axes)
  function planeAxes(allocation, planes, sections) {
    if (allocation === 'axial') {
      return range(planes).map((i) => (i < planes / 2 ? 0 : 1));
    }
    if (allocation === 'sections') {
      return sections.flatMap((count, axis) => new Array(count).fill(axis));
    }
    return range(planes).map((j) => (j % 3 === 1 && j < 3 * sections[1] ? 1 : j % 3 === 2 && j < 3 * sections[2] ? 2 : 0));
  }

  // Σ_i 2cos(Δ_{a(i)} θ_i): the all-ones score at an offset vector Δ
  // (ropelab.multimodal.multiaxis_ones_score)
  function multiaxisOnesScore(offset, theta, axes) {
    let sum = 0;
    theta.forEach((t, i) => {
      sum += Math.cos(offset[axes[i]] * t);
    });
    return 2 * sum;
  }

  // Chapter 9 (ropelab.multimodal.multiaxis_explorer_data): sections (t, min(h, d/2 − t), rest),
  // frequencies β^(−2i/d) (axial: β^(−4j/d) for each half), the two tokens' angles and the
  // all-ones score against an offset along each axis.
  function multiaxisData(p, constants) {
    const planes = constants.head_dim / 2;
    const t = Math.min(p.t_planes, planes);
    const h = Math.min(p.h_planes, planes - t);
    const sections = [t, h, planes - t - h];
    const axial = p.allocation === 'axial';
    const names = axial ? ['row', 'col'] : ['t', 'h', 'w'];
    const theta = axial
      ? invFreq(constants.head_dim / 2, constants.base).concat(invFreq(constants.head_dim / 2, constants.base))
      : invFreq(constants.head_dim, constants.base);
    const axes = planeAxes(p.allocation, planes, sections);
    const a = axial ? [p.h_a, p.w_a] : [p.t_a, p.h_a, p.w_a];
    const b = axial ? [p.h_b, p.w_b] : [p.t_b, p.h_b, p.w_b];
    const delta = b.map((v, i) => v - a[i]);
    const offsets = range(2 * constants.max_offset + 1).map((k) => k - constants.max_offset);
    return {
      allocation: p.allocation,
      axis_names: names,
      axes: axes,
      theta: theta,
      position_a: a,
      position_b: b,
      angle_a: theta.map((th, i) => a[axes[i]] * th),
      angle_b: theta.map((th, i) => b[axes[i]] * th),
      relative_angle: theta.map((th, i) => delta[axes[i]] * th),
      offsets: offsets,
      axis_scores: names.map((_, axis) =>
        offsets.map((o) => multiaxisOnesScore(names.map((__, j) => (j === axis ? o : 0)), theta, axes)),
      ),
      score: multiaxisOnesScore(delta, theta, axes),
      sections: sections,
      planes_per_axis: names.map((_, axis) => axes.filter((x) => x === axis).length),
    };
  }

  // ---------------------------------------------------------------------------------------
  // Training-free position remapping (ropelab.remapping)
  // ---------------------------------------------------------------------------------------

  // The relative position a method gives the score of query m and key n (0 <= n <= m), for
  // params {window, group, chunk_size, local_size, shift, local}
  // (ropelab.remapping.relative_positions)
  function remappedPosition(method, m, n, q) {
    const d = m - n;
    if (method === 'ReRoPE') {
      return Math.min(d, q.window);
    }
    if (method === 'Self-Extend') {
      return d < q.window ? d : Math.floor(m / q.group) - Math.floor(n / q.group) + q.window - Math.floor(q.window / q.group);
    }
    if (method === 'DCA') {
      const c = q.chunk_size - q.local_size;
      const apart = Math.floor(m / c) - Math.floor(n / c);
      const query = apart === 0 ? m % c : apart === 1 ? Math.min((m % c) + c, q.chunk_size) : Math.min(2 * c - 1, q.chunk_size);
      return query - (n % c);
    }
    if (method === 'STRING') {
      return d >= q.shift ? d - q.shift + q.local : d;
    }
    return d;
  }

  // The largest relative position any score sees on `length` tokens (ropelab.remapping.max_relative)
  function maxRemapped(method, length, q) {
    const top = length - 1;
    if (method === 'ReRoPE') {
      return Math.min(top, q.window);
    }
    if (method === 'Self-Extend') {
      return top < q.window ? top : Math.max(q.window - 1, Math.floor(top / q.group) + q.window - Math.floor(q.window / q.group));
    }
    if (method === 'DCA') {
      const c = q.chunk_size - q.local_size;
      const chunks = Math.floor(top / c);
      if (chunks === 0) {
        return top;
      }
      if (chunks === 1) {
        return Math.max(c - 1, Math.min((top % c) + c, q.chunk_size));
      }
      return Math.max(c - 1, Math.min(2 * c - 1, q.chunk_size));
    }
    if (method === 'STRING') {
      return top < q.shift ? top : Math.max(q.shift - 1, top - q.shift + q.local);
    }
    return top;
  }

  // `points` positions from 0 to length − 1, evenly spaced (ropelab.remapping.sample_positions)
  function remapGrid(length, points) {
    const step = (length - 1) / (points - 1);
    return range(points).map((i) => Math.floor((i === points - 1 ? length - 1 : i * step) + 0.5 - 1e-9));
  }

  // Chapter 10 (ropelab.remapping.remapping_data): DCA's chunk is the training length and its
  // local size the window; STRING shifts by floor(0.33 L) with the local value min(w, S).
  function remappingData(p, constants) {
    const window = Math.min(p.window, p.train_len - 1);
    const shift = Math.max(1, Math.floor(0.33 * p.train_len));
    const q = { window: window, group: p.group, chunk_size: p.train_len, local_size: window, shift: shift, local: Math.min(window, shift) };
    const grid = remapGrid(p.length, constants.points);
    const keys = remapGrid(p.length, constants.row_points);
    const largest = maxRemapped(p.method, p.length, q);
    return {
      method: p.method,
      length: p.length,
      train_len: p.train_len,
      window: window,
      group: p.group,
      shift: shift,
      grid: grid,
      relative: grid.map((m) => grid.map((n) => (n <= m ? remappedPosition(p.method, m, n, q) : -1))),
      keys: keys,
      row: keys.map((n) => remappedPosition(p.method, p.length - 1, n, q)),
      max_relative: largest,
      within: largest < p.train_len,
      self_extend_max_length: (p.train_len - window) * p.group + window,
    };
  }

  // ---------------------------------------------------------------------------------------
  // (a2) Python's number formats, and the readouts
  // ---------------------------------------------------------------------------------------

  // The readouts are defined in Python (ropelab.interactive.readouts) with Python's format
  // specifications; these functions write numbers exactly as Python does: from the exact
  // decimal value of the double, ties rounded half to even, '-' for the minus sign.

  // A finite double x >= 0 as an exact decimal: x = digits / 10^scale (digits a BigInt).
  function exactDecimal(x) {
    if (x === 0) {
      return { digits: 0n, scale: 0 };
    }
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, x);
    const bits = view.getBigUint64(0);
    const biased = Number((bits >> 52n) & 0x7ffn);
    let mantissa = bits & 0xfffffffffffffn;
    let power = -1074;
    if (biased !== 0) {
      mantissa |= 0x10000000000000n;
      power = biased - 1075;
    }
    if (power >= 0) {
      return { digits: mantissa << BigInt(power), scale: 0 };
    }
    return { digits: mantissa * 5n ** BigInt(-power), scale: -power };
  }

  // round(digits / 10^scale, decimals) half to even, as a BigInt n meaning n / 10^decimals.
  function roundHalfEven(exact, decimals) {
    const shift = exact.scale - decimals;
    if (shift <= 0) {
      return exact.digits * 10n ** BigInt(-shift);
    }
    const divisor = 10n ** BigInt(shift);
    const quotient = exact.digits / divisor;
    const twice = 2n * (exact.digits % divisor);
    if (twice > divisor || (twice === divisor && quotient % 2n === 1n)) {
      return quotient + 1n;
    }
    return quotient;
  }

  // n / 10^decimals written out: "12.340"
  function decimalString(n, decimals) {
    const text = n.toString().padStart(decimals + 1, '0');
    return decimals === 0 ? text : `${text.slice(0, -decimals)}.${text.slice(-decimals)}`;
  }

  // "1234567.5" → "1,234,567.5"
  function groupDigits(text) {
    const [whole, fraction] = text.split('.');
    const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    return fraction === undefined ? grouped : `${grouped}.${fraction}`;
  }

  function isNegative(x) {
    return x < 0 || Object.is(x, -0);
  }

  // Python's f"{x:.{decimals}f}", with "+" (f"{x:+.2f}") and "," (f"{x:,.0f}") options.
  function fmtF(x, decimals, options) {
    const opts = options || {};
    let body = decimalString(roundHalfEven(exactDecimal(Math.abs(x)), decimals), decimals);
    if (opts.comma) {
      body = groupDigits(body);
    }
    return (isNegative(x) ? '-' : opts.plus ? '+' : '') + body;
  }

  // |x| rounded to `digits` significant digits: {n (BigInt, `digits` digits), exponent}.
  function significant(x, digits) {
    const exact = exactDecimal(Math.abs(x));
    if (exact.digits === 0n) {
      return { n: 0n, exponent: 0 };
    }
    let exponent = exact.digits.toString().length - 1 - exact.scale;
    let n = roundHalfEven({ digits: exact.digits, scale: exact.scale + exponent }, digits - 1);
    if (n.toString().length > digits) {
      exponent += 1;
      n = roundHalfEven({ digits: exact.digits, scale: exact.scale + exponent }, digits - 1);
    }
    return { n: n, exponent: exponent };
  }

  function exponentText(exponent) {
    return `e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }

  // Python's f"{x:.{decimals}e}": "1.00e+15"
  function fmtE(x, decimals) {
    const { n, exponent } = significant(x, decimals + 1);
    return (isNegative(x) ? '-' : '') + decimalString(n, decimals) + exponentText(exponent);
  }

  // Python's f"{x:.{precision}g}": fixed or exponential by the exponent, trailing zeros cut.
  function fmtG(x, precision) {
    const p = Math.max(precision, 1);
    const { n, exponent } = significant(x, p);
    const sign = isNegative(x) ? '-' : '';
    const trim = (text) => (text.includes('.') ? text.replace(/\.?0+$/, '') : text);
    if (exponent >= -4 && exponent < p) {
      const decimals = p - 1 - exponent;
      return sign + trim(decimalString(n * 10n ** BigInt(Math.max(0, -decimals)), Math.max(0, decimals)));
    }
    return sign + trim(decimalString(n, p - 1)) + exponentText(exponent);
  }

  // Python's f"{n:+d}" for an integer.
  function fmtSignedInt(n) {
    return (n < 0 ? '-' : '+') + String(Math.abs(n));
  }

  // ropelab.interactive.readouts.format_number: "1.00e+15" from 10^12 up, "12,345" for whole
  // numbers and from 100 up, three significant digits below.
  function formatNumber(value) {
    if (Math.abs(value) >= 1e12) {
      return fmtE(value, 2);
    }
    if (Number.isInteger(value) || Math.abs(value) >= 100) {
      return fmtF(value, 0, { comma: true });
    }
    return fmtG(value, 3);
  }

  // "1 plane", "3 planes"   (ropelab.interactive.readouts.count)
  function count(n, noun) {
    return `${n} ${noun}${n === 1 ? '' : 's'}`;
  }

  // The readouts: ropelab.interactive.readouts, line for line.

  function rotationReadout(d) {
    const gap = Math.abs(d.score - d.shifted_score);
    const gapText = gap < 1e-12 ? 'less than 1e-12 (rounding)' : fmtE(gap, 2);
    return [
      `m = ${d.m}, n = ${d.n}, θ = ${fmtF(d.theta, 2)} rad, shift s = ${d.shift}`,
      `score(m, n)         (R_m q)·(R_n k)          = ${fmtF(d.score, 6, { plus: true })}`,
      `score(m + s, n + s) (R_m+s q)·(R_n+s k)      = ${fmtF(d.shifted_score, 6, { plus: true })}`,
      `relative form       qᵀ R_(n−m) k, n − m = ${fmtSignedInt(d.n - d.m)} = ${fmtF(d.relative_score, 6, { plus: true })}`,
      `key moved alone     (R_m q)·(R_n+s k)        = ${fmtF(d.key_only_score, 6, { plus: true })}`,
      `score(m, n) and score(m + s, n + s) differ by ${gapText}`,
    ].join('\n');
  }

  // [re, im] as "+0.1234 - 0.5678i"
  function complexText(z) {
    return `${fmtF(z[0], 4, { plus: true })} ${z[1] < 0 ? '-' : '+'} ${fmtF(Math.abs(z[1]), 4)}i`;
  }

  // Python's math.degrees: x · (180/π)
  function degrees(x) {
    return x * (180 / Math.PI);
  }

  const TURNS = { 1: ' (one turn less)', '-1': ' (one turn more)' };

  function complexPairReadout(d) {
    const number = (name, key) => {
      const arg = d[`${key}_arg`];
      return `${name} = ${fmtF(d[`${key}_abs`], 2)}·e^(${fmtF(arg, 2)}i) = ${complexText(d[key])}   (${fmtF(arg, 2)} rad = ${fmtF(degrees(arg), 1)}°)`;
    };
    return [
      number('z', 'z'),
      number('w', 'w'),
      `z·w       = ${complexText(d.product)}, length ${fmtF(d.product_abs, 4)} = |z|·|w| = ${fmtF(d.length_product, 4)}`,
      `z·conj(w) = ${complexText(d.conj_product)}, length ${fmtF(d.conj_product_abs, 4)}`,
      `arg z + arg w = ${fmtF(d.angle_sum, 4, { plus: true })} rad; arg(z·w) = ${fmtF(d.product_arg, 4, { plus: true })}${TURNS[d.product_turns] || ''}`,
      `arg z − arg w = ${fmtF(d.angle_difference, 4, { plus: true })} rad; arg(z·conj(w)) = ${fmtF(d.conj_product_arg, 4, { plus: true })}${TURNS[d.conj_turns] || ''}`,
    ].join('\n');
  }

  function complexScoreReadout(d) {
    return [
      `q = ${fmtF(d.q_abs, 2)}·e^(${fmtF(d.q_arg, 2)}i), k = ${fmtF(d.k_abs, 2)}·e^(${fmtF(d.k_arg, 2)}i), m = ${d.m}, n = ${d.n}, θ = ${fmtF(d.theta, 2)} rad`,
      `q·e^(imθ) = ${complexText(d.rotated_q)},  k·e^(inθ) = ${complexText(d.rotated_k)}`,
      `q·conj(k)·e^(i(m−n)θ) = ${complexText(d.product)}, (m − n)θ = ${fmtF(d.angle, 4, { plus: true })} rad`,
      `score: its real part ${fmtF(d.score, 6, { plus: true })}; (R_m q)·(R_n k) = ${fmtF(d.dot, 6, { plus: true })}`,
    ].join('\n');
  }

  function blocksReadout(d) {
    const last = d.dim / 2 - 1;
    const angle = (i) => `mθ_${i} = ${fmtF(d.position * d.theta[i], 4)} rad`;
    const slowest = last > 0 ? `; θ_${last} = ${fmtG(d.theta[last], 4)} rad per position` : '';
    const turns = last > 0 ? `, the slowest plane by ${angle(last)}` : '';
    return [
      `${count(d.dim / 2, 'plane')} of the ${d.dim}×${d.dim} matrix, ${d.layout} layout${slowest}`,
      `at m = ${d.position}: plane 0 turns by ${angle(0)}${turns}`,
    ].join('\n');
  }

  // [series, label]   (ropelab.interactive.readouts.PRECISION_LABELS)
  const PRECISION_LABELS = [
    ['float64', 'float64 (bound)'],
    ['float32', 'float32 angles'],
    ['bfloat16', 'bfloat16 angles'],
    ['float16', 'float16 angles'],
    ['bf16_theta', 'θ_i in bfloat16'],
  ];

  function precisionReadout(d) {
    const lines = [
      `d = ${d.dim}, base ${formatNumber(d.base)}, positions 1 to ${formatNumber(d.max_position)}; largest error over them:`,
    ];
    for (const [name, label] of PRECISION_LABELS) {
      const angle = d[`angle_${name}`];
      const cos = d[`cos_${name}`];
      const above = cos.findIndex((c) => c > 0.01);
      const first = above === -1 ? 'nowhere' : `from m = ${formatNumber(d.positions[above])}`;
      lines.push(
        `${label.padEnd(17)}angle ${fmtE(Math.max.apply(null, angle), 1)} rad, cos ${fmtE(Math.max.apply(null, cos), 1)}; cos > 0.01 ${first}`,
      );
    }
    if (d.float16_positions < d.positions.length) {
      lines.push('float16 holds no position above 65,504: its curves stop there');
    }
    return lines.join('\n');
  }

  function spectrumReadout(d) {
    return [
      `full period within T_train = ${formatNumber(d.train_len)} tokens in ${d.n_full} of ${count(d.n_planes, 'plane')}`,
      `  (λ_i ≤ T_train, i.e. θ_i ≥ 2π/T_train = ${fmtG(d.theta_threshold, 4)}); ${d.n_partial} do not`,
      `boundary (d/2)·log_β(T_train/2π) = ${fmtF(d.boundary, 3)}; d_extra = ${d.critical_dim}`,
      `wavelengths from ${formatNumber(d.wavelength[0])} to ${formatNumber(d.wavelength[d.wavelength.length - 1])} tokens`,
    ].join('\n');
  }

  // The last integer before the first gap in a sorted list that starts at 1.
  function firstGap(values) {
    const gap = values.findIndex((v, i) => v !== i + 1);
    return gap === -1 ? values[values.length - 1] : gap;
  }

  function decayReadout(d) {
    const last = d.distances.length - 1;
    const far = formatNumber(d.max_distance);
    return [
      `ones score: s(1) = ${fmtF(d.ones_score[0], 3)}, s(${far}) = ${fmtF(d.ones_score[last], 3)}; band ±√d = ±${fmtF(Math.sqrt(d.dim), 3)}`,
      `relative upper bound: ${fmtF(d.relative_upper_bound[0], 3)} at r = 1, ${fmtF(d.relative_upper_bound[last], 3)} at r = ${far} (${fmtF((d.dim / 2 + 1) / 2, 1)} at r = 0)`,
      `${d.distances.length} distances, every integer up to ${firstGap(d.distances)}`,
    ].join('\n');
  }

  function calculatorReadout(d) {
    const grouped = (x) => fmtF(x, 0, { comma: true });
    const tune = grouped(d.tune_len);
    let supported;
    let original;
    if (d.supported_length === null) {
      supported = 'no hard bound (a conjecture of the source)';
      original = `T_tune = ${tune} tokens (no bound is predicted)`;
    } else if (d.regime === REGIME_LARGER_BASE) {
      supported = `${grouped(d.supported_length)} tokens`;
      original = `T_extra = ${grouped(d.supported_length)} tokens, not T_tune = ${tune}`;
    } else {
      supported = `${grouped(d.supported_length)} tokens`;
      original = `T_tune = ${tune} tokens`;
    }
    const t = d.thresholds.map(grouped);
    return [
      `regime: ${d.regime}`,
      `supported length (prediction): ${supported}`,
      `d_extra = ${d.d_extra} of ${d.dim} dims (${d.full_period_planes} planes saw a full period in pre-training)`,
      `Theorem 2's T_extra = 2π·β^(d_extra/d) = ${grouped(d.extra_len)}; critical base β0 = ${formatNumber(d.critical_base)}`,
      `Theorem 1 thresholds at T_tune: β1 = ${t[0]}, β2 = ${t[1]}, β3 = ${t[2]}`,
      "a test-time method on top starts from the reliable length L0 (the paper's",
      "rule for log scaling, xPos and dynamic NTK; the book's for YaRN, Llama 3):",
      `  ${original}`,
    ].join('\n');
  }

  function extensionMethodsReadout(d) {
    const grouped = (x) => fmtF(x, 0, { comma: true });
    const last = d.planes.length - 1;
    return [
      `${d.method}, s = ${fmtG(d.factor, 4)} (${grouped(d.original_len)} → ${grouped(d.target_len)} tokens): ${d.kept} planes kept, ${d.stretched} stretched, ${d.interpolated} interpolated`,
      `attention factor ${fmtF(d.attention_factor, 4)}; d_extra = ${d.critical_dim} of ${d.dim} at the original length (${d.full_period_planes} planes saw a full period)`,
      `longest wavelength ${formatNumber(d.wavelength_before[last])} → ${formatNumber(d.wavelength_after[last])} tokens`,
    ].join('\n');
  }

  function multiaxisReadout(d) {
    const names = d.axis_names;
    const point = (values) => `(${names.map((n, i) => `${n} ${fmtG(values[i], 6)}`).join(', ')})`;
    const offset = d.position_b.map((v, i) => v - d.position_a[i]);
    const turns = d.relative_angle.map(Math.abs);
    let widest = 0;
    turns.forEach((value, i) => {
      if (value > turns[widest]) {
        widest = i;
      }
    });
    const share = names.map((n, a) => `${n} ${d.planes_per_axis[a]}`).join(', ');
    return [
      `${d.allocation} allocation: planes per axis ${share}`,
      `a = ${point(d.position_a)}, b = ${point(d.position_b)}, offset ${point(offset)}`,
      `all-ones score at the offset ${fmtF(d.score, 3)} (it is ${2 * turns.length} at offset 0)`,
      `widest turn ${fmtF(turns[widest], 3)} rad: plane ${widest}, axis ${names[d.axes[widest]]}`,
    ].join('\n');
  }

  function remappingReadout(d) {
    return [
      `${d.method} on ${formatNumber(d.length)} tokens, trained on ${formatNumber(d.train_len)}`,
      `largest relative position: ${formatNumber(d.max_relative)} (${d.within ? 'within' : 'beyond'} the training length)`,
      `last query, first key: ${formatNumber(d.row[0])} (RoPE: ${formatNumber(d.length - 1)})`,
      `w = ${formatNumber(d.window)}, G = ${d.group}, S = ${formatNumber(d.shift)}; Self-Extend (w, G) covers ${formatNumber(d.self_extend_max_length)} tokens`,
    ].join('\n');
  }

  // ---------------------------------------------------------------------------------------
  // (a2-zh) The readouts and control labels in Chinese (the Chinese edition, issue 27)
  // ---------------------------------------------------------------------------------------

  // A page whose <html lang> starts with "zh" (Sphinx's language: zh_CN) reads the readouts
  // and the control labels in Chinese. The same numbers, written by the same formats, appear
  // in both languages (tests/test_explorable_drift.py checks it); the terms are the
  // glossary's (book/glossary.md).

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
  const REGIME_ZH = {};
  REGIME_ZH[REGIME_LARGER_BASE] = 'β > β0：上界 = T_extra';
  REGIME_ZH[REGIME_SMALLER_BASE] = 'β ≤ β0：上界 = T_tune';
  REGIME_ZH[REGIME_EVERY_PLANE] = "d'_extra = d：无硬上界（猜想）";

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

  function rotationReadoutZh(d) {
    const gap = Math.abs(d.score - d.shifted_score);
    const gapText = gap < 1e-12 ? '小于 1e-12（舍入误差）' : fmtE(gap, 2);
    return [
      `m = ${d.m}，n = ${d.n}，θ = ${fmtF(d.theta, 2)} rad，平移 s = ${d.shift}`,
      `分数 score(m, n)         (R_m q)·(R_n k)          = ${fmtF(d.score, 6, { plus: true })}`,
      `分数 score(m + s, n + s) (R_m+s q)·(R_n+s k)      = ${fmtF(d.shifted_score, 6, { plus: true })}`,
      `相对形式                 qᵀ R_(n−m) k，n − m = ${fmtSignedInt(d.n - d.m)} = ${fmtF(d.relative_score, 6, { plus: true })}`,
      `只移动键                 (R_m q)·(R_n+s k)        = ${fmtF(d.key_only_score, 6, { plus: true })}`,
      `score(m, n) 与 score(m + s, n + s) 相差 ${gapText}`,
    ].join('\n');
  }

  const TURNS_ZH = { 1: '（少转一整圈）', '-1': '（多转一整圈）' };

  function complexPairReadoutZh(d) {
    const number = (name, key) => {
      const arg = d[`${key}_arg`];
      return `${name} = ${fmtF(d[`${key}_abs`], 2)}·e^(${fmtF(arg, 2)}i) = ${complexText(d[key])}   （${fmtF(arg, 2)} rad = ${fmtF(degrees(arg), 1)}°）`;
    };
    return [
      number('z', 'z'),
      number('w', 'w'),
      `z·w       = ${complexText(d.product)}，长度 ${fmtF(d.product_abs, 4)} = |z|·|w| = ${fmtF(d.length_product, 4)}`,
      `z·conj(w) = ${complexText(d.conj_product)}，长度 ${fmtF(d.conj_product_abs, 4)}`,
      `角度相加：arg z + arg w = ${fmtF(d.angle_sum, 4, { plus: true })} rad；arg(z·w) = ${fmtF(d.product_arg, 4, { plus: true })}${TURNS_ZH[d.product_turns] || ''}`,
      `角度相减：arg z − arg w = ${fmtF(d.angle_difference, 4, { plus: true })} rad；arg(z·conj(w)) = ${fmtF(d.conj_product_arg, 4, { plus: true })}${TURNS_ZH[d.conj_turns] || ''}`,
    ].join('\n');
  }

  function complexScoreReadoutZh(d) {
    return [
      `q = ${fmtF(d.q_abs, 2)}·e^(${fmtF(d.q_arg, 2)}i)，k = ${fmtF(d.k_abs, 2)}·e^(${fmtF(d.k_arg, 2)}i)，m = ${d.m}，n = ${d.n}，θ = ${fmtF(d.theta, 2)} rad`,
      `q·e^(imθ) = ${complexText(d.rotated_q)}，  k·e^(inθ) = ${complexText(d.rotated_k)}`,
      `q·conj(k)·e^(i(m−n)θ) = ${complexText(d.product)}，(m − n)θ = ${fmtF(d.angle, 4, { plus: true })} rad`,
      `分数取它的实部：${fmtF(d.score, 6, { plus: true })}；(R_m q)·(R_n k) = ${fmtF(d.dot, 6, { plus: true })}`,
    ].join('\n');
  }

  function blocksReadoutZh(d) {
    const last = d.dim / 2 - 1;
    const angle = (i) => `mθ_${i} = ${fmtF(d.position * d.theta[i], 4)} rad`;
    const slowest = last > 0 ? `；θ_${last} = 每个位置 ${fmtG(d.theta[last], 4)} rad` : '';
    const turns = last > 0 ? `，最慢的子空间转过 ${angle(last)}` : '';
    return [
      `${d.dim}×${d.dim} 矩阵的 ${countZh(d.dim / 2, '子空间')}，${LAYOUT_ZH[d.layout] || d.layout}布局${slowest}`,
      `在 m = ${d.position} 处：子空间 0 转过 ${angle(0)}${turns}`,
    ].join('\n');
  }

  const PRECISION_LABELS_ZH = {
    float64: 'float64（基准）',
    float32: 'float32 角度',
    bfloat16: 'bfloat16 角度',
    float16: 'float16 角度',
    bf16_theta: 'θ_i 用 bfloat16',
  };

  function precisionReadoutZh(d) {
    const lines = [
      `d = ${d.dim}，底数 ${formatNumber(d.base)}，位置 1 到 ${formatNumber(d.max_position)}；其中的最大误差：`,
    ];
    for (const [name] of PRECISION_LABELS) {
      const angle = d[`angle_${name}`];
      const cos = d[`cos_${name}`];
      const above = cos.findIndex((c) => c > 0.01);
      const first = above === -1 ? '无' : `从 m = ${formatNumber(d.positions[above])} 起`;
      lines.push(
        `${padWide(PRECISION_LABELS_ZH[name], 17)}角度 ${fmtE(Math.max.apply(null, angle), 1)} rad，cos ${fmtE(Math.max.apply(null, cos), 1)}；cos > 0.01：${first}`,
      );
    }
    if (d.float16_positions < d.positions.length) {
      lines.push('float16 表示不了 65,504 以上的位置：它的曲线到此为止');
    }
    return lines.join('\n');
  }

  function spectrumReadoutZh(d) {
    return [
      `${countZh(d.n_planes, '子空间')}中有 ${d.n_full} 个在 T_train = ${formatNumber(d.train_len)} 个 token 内转满全周期`,
      `  （λ_i ≤ T_train，即 θ_i ≥ 2π/T_train = ${fmtG(d.theta_threshold, 4)}）；其余 ${d.n_partial} 个没有`,
      `分界 (d/2)·log_β(T_train/2π) = ${fmtF(d.boundary, 3)}；d_extra = ${d.critical_dim}`,
      `周期从 ${formatNumber(d.wavelength[0])} 到 ${formatNumber(d.wavelength[d.wavelength.length - 1])} 个 token`,
    ].join('\n');
  }

  function decayReadoutZh(d) {
    const last = d.distances.length - 1;
    const far = formatNumber(d.max_distance);
    return [
      `全一向量的分数：s(1) = ${fmtF(d.ones_score[0], 3)}，s(${far}) = ${fmtF(d.ones_score[last], 3)}；范围 ±√d = ±${fmtF(Math.sqrt(d.dim), 3)}`,
      `相对上界：r = 1 处为 ${fmtF(d.relative_upper_bound[0], 3)}，r = ${far} 处为 ${fmtF(d.relative_upper_bound[last], 3)}（r = 0 处为 ${fmtF((d.dim / 2 + 1) / 2, 1)}）`,
      `共 ${d.distances.length} 个距离，${firstGap(d.distances)} 以内的每个整数都在其中`,
    ].join('\n');
  }

  function calculatorReadoutZh(d) {
    const grouped = (x) => fmtF(x, 0, { comma: true });
    const tune = grouped(d.tune_len);
    let supported;
    let original;
    if (d.supported_length === null) {
      supported = '无硬上界（原文的猜想）';
      original = `T_tune = ${tune} 个 token（不预测上界）`;
    } else if (d.regime === REGIME_LARGER_BASE) {
      supported = `${grouped(d.supported_length)} 个 token`;
      original = `T_extra = ${grouped(d.supported_length)} 个 token，而不是 T_tune = ${tune}`;
    } else {
      supported = `${grouped(d.supported_length)} 个 token`;
      original = `T_tune = ${tune} 个 token`;
    }
    const t = d.thresholds.map(grouped);
    return [
      `情形：${REGIME_ZH[d.regime] || d.regime}`,
      `支持长度（预测）：${supported}`,
      `d_extra = ${d.d_extra}（共 ${d.dim} 维；${d.full_period_planes} 个子空间在预训练中转满了全周期）`,
      `定理 2 的 T_extra = 2π·β^(d_extra/d) = ${grouped(d.extra_len)}；临界底数 β0 = ${formatNumber(d.critical_base)}`,
      `T_tune 处定理 1 的阈值：β1 = ${t[0]}，β2 = ${t[1]}，β3 = ${t[2]}`,
      '在其上再用测试阶段的方法时，从可靠长度 L0 起算（对数校正、xPos、dynamic NTK 依论文；YaRN、Llama 3 为本书的推广）：',
      original,
    ].join('\n');
  }

  function extensionMethodsReadoutZh(d) {
    const grouped = (x) => fmtF(x, 0, { comma: true });
    const last = d.planes.length - 1;
    return [
      `${d.method}，s = ${fmtG(d.factor, 4)}（${grouped(d.original_len)} → ${grouped(d.target_len)} 个 token）：保留 ${d.kept} 个子空间，拉伸 ${d.stretched} 个，内插 ${d.interpolated} 个`,
      `注意力因子 ${fmtF(d.attention_factor, 4)}；原始长度下 d_extra = ${d.critical_dim}（共 ${d.dim} 维；${d.full_period_planes} 个子空间转满了全周期）`,
      `最长周期 ${formatNumber(d.wavelength_before[last])} → ${formatNumber(d.wavelength_after[last])} 个 token`,
    ].join('\n');
  }

  function multiaxisReadoutZh(d) {
    const names = d.axis_names;
    const point = (values) => `(${names.map((n, i) => `${n} ${fmtG(values[i], 6)}`).join(', ')})`;
    const offset = d.position_b.map((v, i) => v - d.position_a[i]);
    const turns = d.relative_angle.map(Math.abs);
    let widest = 0;
    turns.forEach((value, i) => {
      if (value > turns[widest]) {
        widest = i;
      }
    });
    const share = names.map((n, a) => `${n} ${d.planes_per_axis[a]}`).join('，');
    return [
      `${ALLOCATION_ZH[d.allocation] || d.allocation}分配：各轴的子空间数 ${share}`,
      `a = ${point(d.position_a)}，b = ${point(d.position_b)}，偏移 ${point(offset)}`,
      `该偏移处的全一分数 ${fmtF(d.score, 3)}（偏移为 0 时是 ${2 * turns.length}）`,
      `最大转角 ${fmtF(turns[widest], 3)} rad：子空间 ${widest}，轴 ${names[d.axes[widest]]}`,
    ].join('\n');
  }

  function remappingReadoutZh(d) {
    return [
      `${d.method}：输入 ${formatNumber(d.length)} 个 token，训练长度 ${formatNumber(d.train_len)}`,
      `最大相对位置：${formatNumber(d.max_relative)}（${d.within ? '在训练长度之内' : '超出训练长度'}）`,
      `最后一个查询与第一个键：${formatNumber(d.row[0])}（RoPE：${formatNumber(d.length - 1)}）`,
      `w = ${formatNumber(d.window)}，G = ${d.group}，S = ${formatNumber(d.shift)}；Self-Extend (w, G) 覆盖 ${formatNumber(d.self_extend_max_length)} 个 token`,
    ].join('\n');
  }

  const READOUTS_ZH = {
    rotation2d: rotationReadoutZh,
    complex_pair: complexPairReadoutZh,
    complex_score: complexScoreReadoutZh,
    block_matrix: blocksReadoutZh,
    precision: precisionReadoutZh,
    spectrum: spectrumReadoutZh,
    decay: decayReadoutZh,
    calculator: calculatorReadoutZh,
    extension_methods: extensionMethodsReadoutZh,
    multiaxis: multiaxisReadoutZh,
    remapping: remappingReadoutZh,
  };

  // "zh" or "en": the language of a readout; `lang` is a page language ("zh-CN", "en") or
  // absent (English).
  function language(lang) {
    return typeof lang === 'string' && /^zh/i.test(lang) ? 'zh' : 'en';
  }

  // The language of the page: <html lang="zh-CN"> (Sphinx's language: zh_CN) reads Chinese.
  function pageLanguage() {
    return language(typeof document !== 'undefined' ? document.documentElement.lang : '');
  }

  // ---------------------------------------------------------------------------------------
  // (a3) The controls: ropelab.interactive.controls
  // ---------------------------------------------------------------------------------------

  // The nearest integer, halves up (Math.round; ropelab.interactive.controls.round_half_up).
  function roundHalfUp(x) {
    const whole = Math.floor(x);
    return x - whole >= 0.5 ? whole + 1 : whole;
  }

  // One control's value moved into its range: a value that is not a finite number takes the
  // default, a number outside [low, high] the nearest end, whole-number controls round half up
  // (even ones to a multiple of two), `floor` (the value of the control named by at_least)
  // raises the lower end; a choice keeps a valid option or takes the default.
  function clampOne(spec, value, floor) {
    if (spec.options) {
      if (spec.multiple) {
        const given = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
        const kept = Array.from(new Set(given.filter((v) => typeof v === 'string' && spec.options.includes(v))));
        return kept.length ? kept : spec.default.slice();
      }
      return typeof value === 'string' && spec.options.includes(value) ? value : spec.default;
    }
    let number = typeof value === 'number' && Number.isFinite(value) ? value : spec.default;
    const low = floor === null ? spec.low : Math.max(spec.low, floor);
    number = Math.min(Math.max(number, low), spec.high);
    if (spec.even) {
      number = 2 * roundHalfUp(number / 2);
      number = Math.min(Math.max(number, low), spec.high);
    } else if (spec.integer) {
      number = roundHalfUp(number);
    }
    return number;
  }

  // Every control's value clamped, in the controls' order (ropelab.interactive.clamp).
  function clamp(controls, values) {
    const out = {};
    for (const spec of controls) {
      const floor = spec.at_least ? out[spec.at_least] : null;
      out[spec.name] = clampOne(spec, spec.name in values ? values[spec.name] : spec.default, floor);
    }
    return out;
  }

  // The values a slider reaches, in order: spec.low, the grid points strictly inside the
  // range, spec.high. The grid is the multiples of spec.step (linear) or log_base raised to
  // them (log), as in the ipywidgets slider; j / (1/step) rather than j·step keeps 0.01·j the
  // decimal it stands for. Whole-number controls round each value half up.
  // (ropelab.interactive.controls.Control.slider_values)
  function sliderValues(spec) {
    const log = spec.scale === 'log';
    const toUnit = log ? (v) => Math.log(v) / Math.log(spec.log_base) : (v) => v;
    const perUnit = 1 / spec.step;
    const values = [spec.low];
    const first = Math.ceil(toUnit(spec.low) * perUnit - 1e-9);
    const last = Math.floor(toUnit(spec.high) * perUnit + 1e-9);
    for (let j = first; j <= last; j++) {
      const value = log ? Math.pow(spec.log_base, j / perUnit) : j / perUnit;
      if (value > spec.low + 1e-9 * Math.abs(spec.low) + 1e-12 && value < spec.high * (1 - 1e-12)) {
        values.push(value);
      }
    }
    values.push(spec.high);
    return spec.integer || spec.even ? values.map(roundHalfUp) : values;
  }

  // ---------------------------------------------------------------------------------------
  // (b) The SVG plotting layer
  // ---------------------------------------------------------------------------------------

  const SVG_NS = 'http://www.w3.org/2000/svg';
  const COLOURS = {
    query: '#1f77b4',
    key: '#d62728',
    neutral: '#7f7f7f',
    accent: '#2ca02c',
    text: '#222222',
    axis: '#555555',
    grid: '#e4e4e4',
  };
  const FONT = 13;
  const WIDTH = 700;

  function svgNode(tag, attrs, parent) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const name of Object.keys(attrs)) {
      node.setAttribute(name, attrs[name]);
    }
    parent.appendChild(node);
    return node;
  }

  // Text with TeX-like indices: "R_{m+s} q" and "10^{-3}" become sub- and superscripts.
  function text(parent, x, y, source, style) {
    const s = Object.assign({ size: FONT, anchor: 'start', color: COLOURS.text }, style);
    const attrs = { x: x, y: y, 'font-size': s.size, fill: s.color, 'text-anchor': s.anchor };
    if (s.weight) {
      attrs['font-weight'] = s.weight;
    }
    if (s.rotate) {
      attrs.transform = `rotate(${s.rotate} ${x} ${y})`;
    }
    const node = svgNode('text', attrs, parent);
    let offset = 0;
    for (const part of source.split(/([_^]\{[^}]*\})/)) {
      if (part === '') {
        continue;
      }
      const index = /^([_^])\{(.*)\}$/.exec(part);
      const shift = index ? (index[1] === '_' ? 0.3 : -0.4) * s.size : 0;
      const span = svgNode('tspan', { dy: shift - offset }, node);
      if (index) {
        span.setAttribute('font-size', 0.75 * s.size);
      }
      // A minus sign before a number; hyphens in words stay.
      span.textContent = (index ? index[2] : part).replace(/-(?=\d)/g, '−');
      offset = shift;
    }
    return node;
  }

  // Round tick values for a linear axis: steps of 1, 2 or 5 × 10^k, at most about `most`;
  // steps of at least 1 on an axis of indices (`integer`).
  function linearTicks(lo, hi, most, integer) {
    const ideal = Math.max((hi - lo) / most, integer ? 1 : 0);
    const power = Math.pow(10, Math.floor(Math.log10(ideal)));
    const step = [1, 2, 5, 10].map((f) => f * power).find((s) => s >= ideal * (1 - 1e-9));
    const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
    const ticks = [];
    for (let j = Math.ceil(lo / step - 1e-9); j <= Math.floor(hi / step + 1e-9); j++) {
      const value = Number((j * step).toPrecision(12));
      ticks.push({ value: value, label: decimals ? value.toFixed(decimals) : fmtF(value, 0, { comma: true }) });
    }
    return ticks;
  }

  // Ticks for a logarithmic axis: powers of ten (every k-th when there are more than
  // `most`), written 10^k; an axis spanning under two decades gets 1, 2, 5 × 10^k as plain
  // numbers.
  function logTicks(lo, hi, most) {
    const first = Math.ceil(Math.log10(lo) - 1e-9);
    const last = Math.floor(Math.log10(hi) + 1e-9);
    if (Math.log10(hi / lo) < 2) {
      const ticks = [];
      for (let e = first - 1; e <= last; e++) {
        for (const f of [1, 2, 5]) {
          const value = Number((f * Math.pow(10, e)).toPrecision(12));
          if (value >= lo * (1 - 1e-9) && value <= hi * (1 + 1e-9)) {
            ticks.push({ value: value, label: formatNumber(value) });
          }
        }
      }
      return ticks;
    }
    const every = Math.ceil((last - first + 1) / most);
    const ticks = [];
    for (let e = first; e <= last; e++) {
      if ((e - first) % every === 0) {
        ticks.push({ value: Math.pow(10, e), label: `10^{${e}}` });
      }
    }
    return ticks;
  }

  // A map from an axis' domain onto pixels [p0, p1], linear or logarithmic, with its ticks
  // (at most about axis.maxTicks of them, 6 unless given; whole numbers if axis.integer).
  function scale(axis, p0, p1) {
    const t = axis.log ? Math.log10 : (v) => v;
    const [lo, hi] = axis.reverse ? [axis.max, axis.min] : [axis.min, axis.max];
    const f = (v) => p0 + ((t(v) - t(lo)) / (t(hi) - t(lo))) * (p1 - p0);
    const most = axis.maxTicks || 6;
    f.ticks = axis.ticks || (axis.log ? logTicks : linearTicks)(axis.min, axis.max, most, axis.integer);
    return f;
  }

  // A log-axis domain around `values`: padded by `pad` of its span in decades each side, and
  // at least one decade wide.
  function logDomain(values, pad) {
    const logs = values.map(Math.log10);
    let lo = Math.min.apply(null, logs);
    let hi = Math.max.apply(null, logs);
    const widen = Math.max(0, 1 - (hi - lo)) / 2;
    lo -= widen + pad * (hi - lo);
    hi += widen + pad * (hi - lo);
    return { min: Math.pow(10, lo), max: Math.pow(10, hi) };
  }

  // One set of axes in `box` (pixels): grid, frame, ticks, axis labels and a title.
  // spec.x / spec.y: {min, max, log, integer, reverse, label, labelGap, ticks, maxTicks};
  // returns {x, y, box, svg}.
  function panel(svg, box, spec) {
    const x = scale(spec.x, box.x, box.x + box.w);
    const y = scale(spec.y, box.y + box.h, box.y);
    const grid = svgNode('g', { stroke: COLOURS.grid, 'stroke-width': 1 }, svg);
    const labels = svgNode('g', {}, svg);
    for (const tick of x.ticks) {
      const px = x(tick.value);
      svgNode('line', { x1: px, x2: px, y1: box.y, y2: box.y + box.h }, grid);
      svgNode('line', { x1: px, x2: px, y1: box.y + box.h, y2: box.y + box.h + 4, stroke: COLOURS.axis }, labels);
      text(labels, px, box.y + box.h + 17, tick.label, { anchor: 'middle' });
    }
    for (const tick of y.ticks) {
      const py = y(tick.value);
      svgNode('line', { x1: box.x, x2: box.x + box.w, y1: py, y2: py }, grid);
      svgNode('line', { x1: box.x - 4, x2: box.x, y1: py, y2: py, stroke: COLOURS.axis }, labels);
      text(labels, box.x - 7, py + 4, tick.label, { anchor: 'end' });
    }
    svgNode('rect', { x: box.x, y: box.y, width: box.w, height: box.h, fill: 'none', stroke: COLOURS.axis }, svg);
    if (spec.x.label) {
      text(svg, box.x + box.w / 2, box.y + box.h + 36, spec.x.label, { anchor: 'middle' });
    }
    if (spec.y.label) {
      const lx = box.x - (spec.y.labelGap || 46);
      text(svg, lx, box.y + box.h / 2, spec.y.label, { anchor: 'middle', rotate: -90 });
    }
    if (spec.title) {
      text(svg, box.x + box.w / 2, box.y - 9, spec.title, { anchor: 'middle', size: 14, weight: 600 });
    }
    return { x: x, y: y, box: box, svg: svg };
  }

  // Pixel coordinates of a polyline as an SVG path.
  function pathData(p, xs, ys) {
    return xs.map((v, i) => `${i ? 'L' : 'M'}${p.x(v).toFixed(1)} ${p.y(ys[i]).toFixed(1)}`).join('');
  }

  // Stroke attributes from a style {color, width, dash, opacity}.
  function stroke(style) {
    const attrs = { fill: 'none', stroke: style.color, 'stroke-width': style.width || 1.5 };
    if (style.dash) {
      attrs['stroke-dasharray'] = style.dash;
    }
    if (style.opacity !== undefined) {
      attrs.opacity = style.opacity;
    }
    return attrs;
  }

  function line(p, xs, ys, style) {
    const attrs = stroke(style);
    attrs.d = pathData(p, xs, ys);
    attrs['stroke-linejoin'] = 'round';
    svgNode('path', attrs, p.svg);
  }

  // Dots at (xs[i], ys[i]); style.colors gives one colour per dot, style.open hollow ones.
  function markers(p, xs, ys, style) {
    const g = svgNode('g', {}, p.svg);
    xs.forEach((v, i) => {
      const colour = style.colors ? style.colors[i] : style.color;
      svgNode(
        'circle',
        {
          cx: p.x(v).toFixed(1),
          cy: p.y(ys[i]).toFixed(1),
          r: style.r || 2.5,
          fill: style.open ? '#ffffff' : colour,
          stroke: colour,
          'stroke-width': style.open ? 1.2 : 0,
        },
        g,
      );
    });
  }

  // A horizontal or vertical reference line across the panel at data value `at`.
  function hline(p, at, style) {
    const attrs = stroke(style);
    attrs.d = `M${p.box.x} ${p.y(at).toFixed(1)}H${p.box.x + p.box.w}`;
    svgNode('path', attrs, p.svg);
  }

  function vline(p, at, style) {
    const attrs = stroke(style);
    attrs.d = `M${p.x(at).toFixed(1)} ${p.box.y}V${p.box.y + p.box.h}`;
    svgNode('path', attrs, p.svg);
  }

  // A shaded rectangle between data values x0..x1 and y0..y1.
  function area(p, x0, x1, y0, y1, colour, opacity) {
    const [left, right] = [p.x(x0), p.x(x1)].sort((a, b) => a - b);
    const [top, bottom] = [p.y(y0), p.y(y1)].sort((a, b) => a - b);
    svgNode(
      'rect',
      { x: left, y: top, width: right - left, height: bottom - top, fill: colour, opacity: opacity },
      p.svg,
    );
  }

  // Horizontal bars, bar i from `from` to ends[i] at height rows[i], `thickness` of a row.
  function hbars(p, rows, from, ends, colours, thickness) {
    const g = svgNode('g', {}, p.svg);
    const rowPixels = Math.abs(p.y(1) - p.y(0));
    const h = Math.min(24, Math.max(0.8, thickness * rowPixels));
    rows.forEach((row, i) => {
      const x0 = p.x(from);
      svgNode(
        'rect',
        { x: x0, y: p.y(row) - h / 2, width: Math.max(0, p.x(ends[i]) - x0), height: h, fill: colours[i] },
        g,
      );
    });
  }

  // An arrow from the origin to `tip` (data units) with a triangular head.
  function arrow(p, tip, style) {
    const x0 = p.x(0);
    const y0 = p.y(0);
    const x1 = p.x(tip[0]);
    const y1 = p.y(tip[1]);
    const length = Math.hypot(x1 - x0, y1 - y0);
    if (length < 1) {
      return;
    }
    const [ux, uy] = [(x1 - x0) / length, (y1 - y0) / length];
    const head = Math.min(11, length / 2);
    const g = svgNode('g', { opacity: style.opacity === undefined ? 1 : style.opacity }, p.svg);
    const shaft = stroke({ color: style.color, width: style.width, dash: style.dash });
    Object.assign(shaft, { x1: x0, y1: y0, x2: x1 - ux * head * 0.8, y2: y1 - uy * head * 0.8 });
    svgNode('line', shaft, g);
    const corners = [
      [x1, y1],
      [x1 - ux * head - uy * head * 0.4, y1 - uy * head + ux * head * 0.4],
      [x1 - ux * head + uy * head * 0.4, y1 - uy * head - ux * head * 0.4],
    ];
    svgNode('polygon', { points: corners.map((c) => c.map((v) => v.toFixed(1)).join(',')).join(' '), fill: style.color }, g);
  }

  // A circle of `radius` (data units) around the origin; the panel must have equal aspect.
  function circle(p, radius, style) {
    const attrs = stroke(style);
    Object.assign(attrs, { cx: p.x(0), cy: p.y(0), r: p.x(radius) - p.x(0) });
    svgNode('circle', attrs, p.svg);
  }

  // matplotlib's RdBu_r: the diverging map of src/ropelab/plots/style.py, from −1 to 1.
  const RDBU_R = [
    '#053061', '#2166ac', '#4393c3', '#92c5de', '#d1e5f0', '#f7f7f7',
    '#fddbc7', '#f4a582', '#d6604d', '#b2182b', '#67001f',
  ];

  // The colour of `value` in [−1, 1], interpolated linearly between the map's eleven colours.
  function diverging(value) {
    const position = ((Math.max(-1, Math.min(1, value)) + 1) / 2) * (RDBU_R.length - 1);
    const i = Math.min(RDBU_R.length - 2, Math.floor(position));
    const w = position - i;
    const mix = (from, to) => Math.round(from + (to - from) * w);
    const rgb = [1, 3, 5].map((o) =>
      mix(parseInt(RDBU_R[i].substr(o, 2), 16), parseInt(RDBU_R[i + 1].substr(o, 2), 16)),
    );
    return `rgb(${rgb.join(',')})`;
  }

  // matrix[row][col] as cells on the panel (row 0 at the top, on a reversed y axis).
  function heatmap(p, matrix) {
    const g = svgNode('g', { 'shape-rendering': 'crispEdges' }, p.svg);
    const size = Math.abs(p.x(1) - p.x(0));
    matrix.forEach((row, r) => {
      row.forEach((value, c) => {
        svgNode(
          'rect',
          {
            x: (p.x(c) - size / 2).toFixed(2),
            y: (p.y(r) - size / 2).toFixed(2),
            width: (size + 0.4).toFixed(2),
            height: (size + 0.4).toFixed(2),
            fill: diverging(value),
          },
          g,
        );
      });
    });
  }

  // A vertical colour bar for the diverging map from −1 (bottom) to 1 (top).
  function colourBar(svg, box, label) {
    const steps = 64;
    for (let j = 0; j < steps; j++) {
      const value = 1 - (2 * (j + 0.5)) / steps;
      svgNode(
        'rect',
        { x: box.x, y: box.y + (j * box.h) / steps, width: box.w, height: box.h / steps + 0.5, fill: diverging(value) },
        svg,
      );
    }
    svgNode('rect', { x: box.x, y: box.y, width: box.w, height: box.h, fill: 'none', stroke: COLOURS.axis }, svg);
    for (const value of [-1, -0.5, 0, 0.5, 1]) {
      const py = box.y + ((1 - value) / 2) * box.h;
      svgNode('line', { x1: box.x + box.w, x2: box.x + box.w + 4, y1: py, y2: py, stroke: COLOURS.axis }, svg);
      text(svg, box.x + box.w + 7, py + 4, value.toFixed(1));
    }
    text(svg, box.x + box.w + 44, box.y + box.h / 2, label, { anchor: 'middle', rotate: -90 });
  }

  // A legend: one row per item, a sample then its text. An item is {text, color | colors,
  // kind: 'line' | 'dot' | 'open' | 'box' | 'outline', width, dash, opacity}; `colors` draws one
  // sample per colour (a query and a key, for example).
  function legend(svg, x, y, items) {
    items.forEach((item, row) => {
      const cy = y + row * 19;
      const colours = item.colors || [item.color];
      colours.forEach((colour, j) => {
        const sx = x + j * 26;
        if (item.kind === 'dot' || item.kind === 'open') {
          const open = item.kind === 'open';
          svgNode('circle', { cx: sx + 11, cy: cy, r: 3.5, fill: open ? '#ffffff' : colour, stroke: colour, 'stroke-width': 1.2 }, svg);
        } else if (item.kind === 'box' || item.kind === 'outline') {
          const fill = item.kind === 'box' ? colour : 'none';
          svgNode('rect', { x: sx + 4, y: cy - 6, width: 14, height: 12, fill: fill, stroke: colour, 'stroke-width': item.kind === 'box' ? 0 : 2, opacity: item.opacity === undefined ? 1 : item.opacity }, svg);
        } else {
          const attrs = stroke({ color: colour, width: item.width || 2, dash: item.dash, opacity: item.opacity });
          Object.assign(attrs, { x1: sx, x2: sx + 22, y1: cy, y2: cy });
          svgNode('line', attrs, svg);
        }
      });
      text(svg, x + colours.length * 26 + 4, cy + 4, item.text);
    });
  }

  // Labels for reference lines at the `side` ('left' or 'right') of a panel, just above their
  // lines, pushed apart to be 15 px or more, each on a white box so that lines and data they
  // cross do not hide them (the box width is estimated from the number of characters).
  function lineLabels(p, entries, side) {
    const size = 12;
    const placed = entries
      .map((e) => ({ e: e, y: p.y(e.value) - 5 }))
      .sort((a, b) => b.y - a.y);
    placed.forEach((item, i) => {
      if (i > 0) {
        item.y = Math.min(item.y, placed[i - 1].y - 15);
      }
      const width = 0.6 * size * item.e.text.replace(/[_^{}]/g, '').length + 6;
      const x = side === 'left' ? p.box.x + 4 : p.box.x + p.box.w - 4 - width;
      svgNode('rect', { x: x, y: item.y - size, width: width, height: size + 4, fill: '#ffffff', opacity: 0.85 }, p.svg);
      text(p.svg, x + 3, item.y, item.e.text, { color: item.e.color, size: size });
    });
  }

  // ---------------------------------------------------------------------------------------
  // (c) The five figures: draw(svg, data, constants)
  // ---------------------------------------------------------------------------------------

  // Chapter 1: left, q and k turned by their positions and shifted; right, the score as both
  // positions shift together, against shifting the key alone.
  function drawRotation(svg, d) {
    const limit = 1.2 * Math.max(Math.hypot(d.q[0], d.q[1]), Math.hypot(d.k[0], d.k[1]));
    const plane = panel(svg, { x: 70, y: 44, w: 250, h: 250 }, {
      x: { min: -limit, max: limit, label: 'first coordinate' },
      y: { min: -limit, max: limit, label: 'second coordinate' },
      title: 'query and key in the plane',
    });
    hline(plane, 0, { color: COLOURS.neutral, width: 0.8 });
    vline(plane, 0, { color: COLOURS.neutral, width: 0.8 });
    circle(plane, Math.hypot(d.q[0], d.q[1]), { color: COLOURS.query, width: 0.8, opacity: 0.3 });
    circle(plane, Math.hypot(d.k[0], d.k[1]), { color: COLOURS.key, width: 0.8, opacity: 0.3 });
    const thin = { width: 1.2, opacity: 0.4 };
    const dashed = { width: 2, dash: '5 3', opacity: 0.75 };
    const pairs = [
      [d.q, d.k, thin],
      [d.rotated_q, d.rotated_k, { width: 2 }],
      [d.shifted_q, d.shifted_k, dashed],
    ];
    for (const [q, k, style] of pairs) {
      arrow(plane, q, Object.assign({ color: COLOURS.query }, style));
      arrow(plane, k, Object.assign({ color: COLOURS.key }, style));
    }
    const pair = [COLOURS.query, COLOURS.key];
    legend(svg, 60, 352, [
      Object.assign({ text: 'q, k (position 0)', colors: pair }, thin),
      { text: 'R_{m} q, R_{n} k', colors: pair, width: 2 },
      Object.assign({ text: 'R_{m+s} q, R_{n+s} k', colors: pair }, dashed),
    ]);

    const bound = 1.05 * Math.hypot(d.q[0], d.q[1]) * Math.hypot(d.k[0], d.k[1]);
    const chart = panel(svg, { x: 420, y: 44, w: 260, h: 250 }, {
      x: { min: 0, max: d.shifts[d.shifts.length - 1], label: 'shift s (positions)' },
      y: { min: -bound, max: bound, label: 'attention score', labelGap: 44 },
      title: 'score as both positions shift',
    });
    line(chart, d.shifts, d.key_only, { color: COLOURS.key, width: 1.2 });
    markers(chart, d.shifts, d.key_only, { color: COLOURS.key, r: 1.8 });
    line(chart, d.shifts, d.both, { color: COLOURS.query, width: 2.2 });
    vline(chart, d.shift, { color: COLOURS.neutral, width: 1, dash: '2 3' });
    markers(chart, [d.shift], [d.both[d.shift]], { color: COLOURS.query, r: 4.5 });
    legend(svg, 384, 352, [
      { text: 'both moved: (R_{m+s} q)·(R_{n+s} k)', color: COLOURS.query, width: 2.2 },
      { text: 'key moved only: (R_{m} q)·(R_{n+s} k)', color: COLOURS.key, width: 1.2 },
      { text: `current s = ${d.shift}`, color: COLOURS.query, kind: 'dot' },
    ]);
  }

  // Chapter 1A: the complex plane with the unit circle, z, w, conj(w) (dashed), z·w (angles
  // add) and z·conj(w) (angles subtract), with the arcs of arg z and arg w.
  const CONJUGATE_COLOUR = '#9467bd';

  function drawComplexPair(svg, d) {
    const radius = (v) => Math.hypot(v[0], v[1]);
    const limit = 1.15 * Math.max(1, radius(d.z), radius(d.w), radius(d.product), radius(d.conj_product));
    const plane = panel(svg, { x: 110, y: 66, w: 320, h: 320 }, {
      x: { min: -limit, max: limit, label: 'real part' },
      y: { min: -limit, max: limit, label: 'imaginary part' },
      title: 'lengths multiply, angles add',
    });
    hline(plane, 0, { color: COLOURS.neutral, width: 0.8 });
    vline(plane, 0, { color: COLOURS.neutral, width: 0.8 });
    circle(plane, 1, { color: COLOURS.neutral, width: 0.8, opacity: 0.5 });
    arrow(plane, d.conj_w, { color: COLOURS.key, width: 1.2, dash: '5 3', opacity: 0.5 });
    arrow(plane, d.z, { color: COLOURS.query, width: 2 });
    arrow(plane, d.w, { color: COLOURS.key, width: 2 });
    arrow(plane, d.product, { color: COLOURS.accent, width: 2.6 });
    arrow(plane, d.conj_product, { color: CONJUGATE_COLOUR, width: 2.6 });
    text(svg, WIDTH / 2, 22, `|z| = ${fmtF(d.z_abs, 2)}, arg z = ${fmtF(d.z_arg, 2)}; |w| = ${fmtF(d.w_abs, 2)}, arg w = ${fmtF(d.w_arg, 2)}`, { anchor: 'middle', size: 14 });
    legend(svg, 460, 100, [
      { text: 'z', color: COLOURS.query, width: 2 },
      { text: 'w', color: COLOURS.key, width: 2 },
      { text: 'conj(w): the angle reversed', color: COLOURS.key, width: 1.2, dash: '5 3', opacity: 0.5 },
      { text: 'z·w: angles add', color: COLOURS.accent, width: 2.6 },
      { text: 'z·conj(w): angles subtract', color: CONJUGATE_COLOUR, width: 2.6 },
    ]);
    legend(svg, 460, 220, [
      { text: `arg(z·w) = ${fmtF(d.product_arg, 2, { plus: true })}`, color: COLOURS.accent, kind: 'dot' },
      { text: `arg(z·conj(w)) = ${fmtF(d.conj_product_arg, 2, { plus: true })}`, color: CONJUGATE_COLOUR, kind: 'dot' },
    ]);
  }

  // Chapter 2: the complex plane with q, k, q e^(imθ), k e^(inθ) and their product with the
  // conjugate, its real part (the score) marked on the real axis.
  function drawComplexScore(svg, d) {
    const radius = (z) => Math.hypot(z[0], z[1]);
    const limit = 1.15 * Math.max(radius(d.q), radius(d.k), radius(d.product), 1e-9);
    const plane = panel(svg, { x: 150, y: 66, w: 320, h: 320 }, {
      x: { min: -limit, max: limit, label: 'real part' },
      y: { min: -limit, max: limit, label: 'imaginary part' },
      title: 'the score is the real part of a complex product',
    });
    hline(plane, 0, { color: COLOURS.neutral, width: 0.8 });
    vline(plane, 0, { color: COLOURS.neutral, width: 0.8 });
    circle(plane, radius(d.q), { color: COLOURS.query, width: 0.8, opacity: 0.3 });
    circle(plane, radius(d.k), { color: COLOURS.key, width: 0.8, opacity: 0.3 });
    const thin = { width: 1.2, opacity: 0.4 };
    arrow(plane, d.q, Object.assign({ color: COLOURS.query }, thin));
    arrow(plane, d.k, Object.assign({ color: COLOURS.key }, thin));
    arrow(plane, d.rotated_q, { color: COLOURS.query, width: 2 });
    arrow(plane, d.rotated_k, { color: COLOURS.key, width: 2 });
    const drop = stroke({ color: COLOURS.accent, width: 1.2, dash: '2 3' });
    drop.d = `M${plane.x(d.product[0]).toFixed(1)} ${plane.y(d.product[1]).toFixed(1)}V${plane.y(0).toFixed(1)}`;
    svgNode('path', drop, plane.svg);
    arrow(plane, d.product, { color: COLOURS.accent, width: 2.6 });
    markers(plane, [d.product[0]], [0], { color: COLOURS.accent, r: 4.5 });
    text(svg, WIDTH / 2, 22, `m = ${d.m}, n = ${d.n}, θ = ${fmtF(d.theta, 2)}: score = Re[q·conj(k)·e^{i(m−n)θ}] = ${fmtF(d.score, 4, { plus: true })}`, { anchor: 'middle', size: 14 });
    legend(svg, 500, 100, [
      Object.assign({ text: 'q, k', colors: [COLOURS.query, COLOURS.key] }, thin),
      { text: 'q e^{imθ}, k e^{inθ}', colors: [COLOURS.query, COLOURS.key], width: 2 },
      { text: 'q·conj(k)·e^{i(m−n)θ}', color: COLOURS.accent, width: 2.6 },
      { text: 'its real part: the score', color: COLOURS.accent, kind: 'dot' },
    ]);
  }

  const LAYOUT_TITLES = {
    interleaved: 'interleaved: plane i on (2i, 2i+1)',
    half: 'half split: plane i on (i, i+d/2)',
  };

  // Chapter 3: the heatmap of R^d_{Θ,m}, planes 0 and 1 outlined, with a colour bar.
  function drawBlocks(svg, d) {
    const every = Math.max(1, Math.floor(d.dim / 8));
    const ticks = range(d.dim)
      .filter((i) => i % every === 0)
      .map((i) => ({ value: i, label: String(i) }));
    const axis = { min: -0.5, max: d.dim - 0.5, ticks: ticks };
    const p = panel(svg, { x: 110, y: 62, w: 360, h: 360 }, {
      x: Object.assign({ label: 'column (coordinate of x)' }, axis),
      y: Object.assign({ label: 'row (coordinate of R x)', reverse: true, labelGap: 40 }, axis),
    });
    text(svg, 290, 22, LAYOUT_TITLES[d.layout], { anchor: 'middle', size: 14, weight: 600 });
    text(svg, 290, 44, `d = ${d.dim}, β = ${formatNumber(d.base)}, m = ${d.position}`, { anchor: 'middle', size: 14 });
    heatmap(p, d.matrix);
    const outlines = [COLOURS.query, COLOURS.accent];
    const cell = Math.abs(p.x(1) - p.x(0));
    outlines.slice(0, d.dim / 2).forEach((colour, i) => {
      const [a, b] = planeCoordinates(i, d.dim, d.layout);
      for (const row of [a, b]) {
        for (const col of [a, b]) {
          svgNode('rect', { x: p.x(col) - cell / 2, y: p.y(row) - cell / 2, width: cell, height: cell, fill: 'none', stroke: colour, 'stroke-width': 2 }, svg);
        }
      }
    });
    colourBar(svg, { x: 500, y: 62, w: 16, h: 360 }, 'entry value');
    legend(svg, 575, 80, [
      { text: 'plane 0', color: COLOURS.query, kind: 'outline' },
      { text: 'plane 1', color: COLOURS.accent, kind: 'outline' },
    ].slice(0, d.dim / 2));
  }

  // Chapter 3A: the largest angle error (left) and cos-table error (right) over the planes
  // against the position, log-log, one line per way of forming the angles; points at 0 (an
  // exact product) are left out, float16's lines stop at 65,504.
  const PRECISION_STYLES = {
    float64: { color: COLOURS.neutral, text: 'angles in float64 (bound)' },
    float32: { color: COLOURS.query, text: 'angles in float32' },
    bfloat16: { color: COLOURS.key, text: 'angles in bfloat16' },
    float16: { color: COLOURS.accent, text: 'angles in float16' },
    bf16_theta: { color: '#9467bd', dash: '5 3', text: 'θ_{i} in bfloat16, angles in float32' },
  };

  function drawPrecision(svg, d) {
    const positive = (values) => values.filter((v) => v > 0);
    const every = [];
    for (const name of Object.keys(PRECISION_STYLES)) {
      every.push(...positive(d[`angle_${name}`]), ...positive(d[`cos_${name}`]));
    }
    const lo = Math.pow(10, Math.floor(Math.log10(Math.min.apply(null, every))));
    const hi = Math.pow(10, Math.ceil(Math.log10(Math.max.apply(null, every))));
    const xAxis = { min: 1, max: d.max_position, log: true, maxTicks: 6, label: 'position m (log scale)' };
    const yAxis = { min: lo, max: hi, log: true, maxTicks: 7 };
    const panels = [
      ['angle', panel(svg, { x: 72, y: 60, w: 260, h: 260 }, { x: xAxis, y: Object.assign({ label: 'error (log scale)' }, yAxis), title: 'largest angle error (rad)' })],
      ['cos', panel(svg, { x: 420, y: 60, w: 260, h: 260 }, { x: xAxis, y: yAxis, title: 'largest cos table error' })],
    ];
    hline(panels[1][1], 0.01, { color: COLOURS.neutral, width: 0.8, dash: '2 3' });
    for (const [key, p] of panels) {
      for (const [name, style] of Object.entries(PRECISION_STYLES)) {
        const values = d[`${key}_${name}`];
        const xs = [];
        const ys = [];
        values.forEach((v, i) => {
          if (v > 0) {
            xs.push(d.positions[i]);
            ys.push(v);
          }
        });
        if (xs.length) {
          line(p, xs, ys, { color: style.color, width: 1.4, dash: style.dash });
        }
      }
    }
    text(svg, WIDTH / 2, 20, `d = ${d.dim}, base = ${formatNumber(d.base)}, positions up to ${formatNumber(d.max_position)}`, { anchor: 'middle', size: 14 });
    const items = Object.values(PRECISION_STYLES).map((s) => ({ text: s.text, color: s.color, dash: s.dash, width: 2 }));
    legend(svg, 60, 378, items.slice(0, 3));
    legend(svg, 400, 378, items.slice(3).concat([{ text: 'cos error 0.01', color: COLOURS.neutral, dash: '2 3', width: 1 }]));
  }

  // Chapter 4: left, θ_i on a log axis with the threshold 2π/T_train and the reference base;
  // right, each plane's period as a bar against the training window.
  function drawSpectrum(svg, d, constants) {
    const colours = d.full_period.map((full) => (full ? COLOURS.accent : COLOURS.key));
    const planeAxis = { min: -0.5, max: d.n_planes - 0.5, integer: true, label: 'plane index i' };
    const thetaDomain = logDomain(d.theta.concat(d.reference_theta, [d.theta_threshold]), 0.05);
    const left = panel(svg, { x: 72, y: 60, w: 250, h: 270 }, {
      x: planeAxis,
      y: Object.assign({ log: true, maxTicks: 9, label: 'θ_{i} (radians per token)' }, thetaDomain),
      title: 'frequencies θ_{i} = β^{-2i/d}',
    });
    line(left, d.plane, d.reference_theta, { color: COLOURS.neutral, width: 1.2, dash: '5 3' });
    hline(left, d.theta_threshold, { color: COLOURS.neutral, width: 1.2, dash: '2 3' });
    lineLabels(left, [{ value: d.theta_threshold, text: '2π/T_{train}', color: COLOURS.neutral }], 'right');
    markers(left, d.plane, d.theta, { colors: colours, r: d.n_planes > 64 ? 2 : 2.8 });

    const longest = Math.max(Math.max.apply(null, d.wavelength), d.train_len);
    const right = panel(svg, { x: 430, y: 60, w: 250, h: 270 }, {
      x: { min: 1, max: Math.pow(10, Math.ceil(Math.log10(longest * 1.5))), log: true, maxTicks: 5, label: 'wavelength λ_{i} (tokens)' },
      y: Object.assign({ reverse: true, labelGap: 40 }, planeAxis),
      title: 'periods against T_{train}',
    });
    area(right, 1, d.train_len, -0.5, d.n_planes - 0.5, COLOURS.query, 0.1);
    hbars(right, d.plane, 1, d.wavelength, colours, 0.7);
    vline(right, d.train_len, { color: COLOURS.query, width: 1.4 });

    text(svg, WIDTH / 2, 20, `d = ${d.dim}, β = ${formatNumber(d.base)}, T_{train} = ${formatNumber(d.train_len)}: full period in ${d.n_full} of ${count(d.n_planes, 'plane')}`, { anchor: 'middle', size: 14 });
    legend(svg, 60, 392, [
      { text: `full period within T_{train}: ${count(d.n_full, 'plane')}`, color: COLOURS.accent, kind: 'dot' },
      { text: `no full period: ${count(d.n_partial, 'plane')}`, color: COLOURS.key, kind: 'dot' },
    ]);
    legend(svg, 380, 392, [
      { text: `β = ${formatNumber(constants.reference_base)} for comparison`, color: COLOURS.neutral, width: 1.2, dash: '5 3' },
      { text: `training window, T_{train} = ${formatNumber(d.train_len)}`, color: COLOURS.query, kind: 'box', opacity: 0.25 },
    ]);
  }

  // Chapter 5: the ones score with the band ±√d, and the relative upper bound, on a
  // logarithmic distance axis.
  function drawDecay(svg, d) {
    const distanceAxis = { min: 1, max: d.max_distance, log: true, maxTicks: 6, label: 'distance r (log scale)' };
    const left = panel(svg, { x: 72, y: 60, w: 260, h: 260 }, {
      x: distanceAxis,
      y: { min: -1.05 * d.dim, max: 1.05 * d.dim, label: 'score s(r) of q = k = 1' },
      title: 'ones score',
    });
    const floor = Math.sqrt(d.dim);
    area(left, 1, d.max_distance, -floor, floor, COLOURS.neutral, 0.25);
    hline(left, 0, { color: COLOURS.neutral, width: 0.8 });
    line(left, d.distances, d.ones_score, { color: COLOURS.query, width: 0.9 });

    const top = (1.05 * (d.dim / 2 + 1)) / 2;
    const right = panel(svg, { x: 420, y: 60, w: 260, h: 260 }, {
      x: distanceAxis,
      y: { min: 0, max: top, label: 'relative upper bound', labelGap: 42 },
      title: 'RoFormer\u2019s relative upper bound',
    });
    line(right, d.distances, d.relative_upper_bound, { color: COLOURS.key, width: 1.1 });

    text(svg, WIDTH / 2, 20, `d = ${d.dim}, base = ${formatNumber(d.base)}, r up to ${formatNumber(d.max_distance)}`, { anchor: 'middle', size: 14 });
    legend(svg, 60, 384, [
      { text: 's(r) = Σ_{i} 2cos(rθ_{i})', color: COLOURS.query, width: 1.5 },
      { text: `band ±√d = ±${floor.toFixed(2)}`, color: COLOURS.neutral, kind: 'box', opacity: 0.35 },
    ]);
    legend(svg, 410, 384, [
      { text: '(1/(d/2)) Σ_{j} |S_{j}|,  S_{j} = Σ_{k<j} e^{irθₖ}', color: COLOURS.key, width: 1.5 },
    ]);
  }

  // Chapter 6: every plane's wavelength at β against T_train, T_tune and T_extra, filled inside
  // the critical dimension that governs the prediction, open beyond it.
  function drawCalculator(svg, d) {
    const critical = d.effective_d_extra / 2;
    const inside = d.planes.filter((i) => i < critical);
    const beyond = d.planes.filter((i) => i >= critical);
    const refs = [{ value: d.train_len, text: `T_{train} = ${formatNumber(d.train_len)}`, color: COLOURS.text, dash: '6 3' }];
    if (d.tune_len !== d.train_len) {
      refs.push({ value: d.tune_len, text: `T_{tune} = ${formatNumber(d.tune_len)}`, color: COLOURS.text, dash: '2 3' });
    }
    if (d.regime === REGIME_LARGER_BASE) {
      refs.push({ value: d.extra_len, text: `T_{extra} = ${formatNumber(d.extra_len)}`, color: COLOURS.accent });
    }
    const domain = logDomain(d.wavelengths.concat(d.pretrain_wavelengths, refs.map((r) => r.value)), 0.04);
    const p = panel(svg, { x: 80, y: 84, w: 600, h: 270 }, {
      x: { min: -0.5, max: d.planes.length - 0.5, integer: true, label: 'plane index i' },
      y: Object.assign({ log: true, maxTicks: 9, label: 'wavelength (tokens)', labelGap: 52 }, domain),
    });
    line(p, d.planes, d.pretrain_wavelengths, { color: COLOURS.neutral, width: 1.3 });
    if (beyond.length && inside.length) {
      vline(p, critical - 0.5, { color: COLOURS.neutral, width: 1, dash: '2 3' });
    }
    for (const ref of refs) {
      hline(p, ref.value, { color: ref.color, width: 1.2, dash: ref.dash });
    }
    const r = d.planes.length > 64 ? 2 : 2.8;
    markers(p, inside, inside.map((i) => d.wavelengths[i]), { color: COLOURS.query, r: r });
    markers(p, beyond, beyond.map((i) => d.wavelengths[i]), { color: COLOURS.key, r: r, open: true });
    // The wavelengths grow with i, so the left of the panel stays clear above the first planes.
    lineLabels(p, refs, 'left');

    const bound = d.supported_length === null ? '' : ` = ${formatNumber(d.supported_length)} tokens`;
    text(svg, WIDTH / 2, 20, `d = ${d.dim}, T_{train} = ${formatNumber(d.train_len)}, base ${formatNumber(d.base)}, T_{tune} = ${formatNumber(d.tune_len)}`, { anchor: 'middle', size: 14 });
    const regime = d.regime.replace(/T_(extra|tune)/, 'T_{$1}').replace('β0', 'β_{0}');
    text(svg, WIDTH / 2, 42, `${regime}${bound}`, { anchor: 'middle', size: 15, weight: 600 });
    text(svg, WIDTH / 2, 62, `critical base β_{0} = ${formatNumber(d.critical_base)}, critical dimension ${d.effective_d_extra} of ${d.dim}`, { anchor: 'middle', size: 14 });
    legend(svg, 70, 416, [
      { text: 'base 10,000 (pre-training)', color: COLOURS.neutral, width: 1.3 },
      { text: `base ${formatNumber(d.base)}: inside the critical dimension (${count(inside.length, 'plane')})`, color: COLOURS.query, kind: 'dot' },
      { text: `base ${formatNumber(d.base)}: beyond it (${count(beyond.length, 'plane')})`, color: COLOURS.key, kind: 'open' },
    ]);
  }

  // The numbers of ropelab.widgets.extension.summary_text.
  // Chapters 6 and 8: each plane's wavelength before (grey) and after the method (coloured by
  // band) against the original and target lengths, and the bands as a strip.
  function drawExtensionMethods(svg, d) {
    const bandColours = [COLOURS.query, '#f4b183', '#c0504d'];
    const bandNames = ['kept', 'stretched', 'interpolated'];
    const refs = [
      { value: d.original_len, text: `original ${formatNumber(d.original_len)}`, color: COLOURS.key, dash: '6 3' },
      { value: d.target_len, text: `target ${formatNumber(d.target_len)}`, color: COLOURS.key, dash: '2 3' },
    ];
    const domain = logDomain(d.wavelength_before.concat(d.wavelength_after, [d.original_len, d.target_len]), 0.04);
    const axis = { min: -0.5, max: d.planes.length - 0.5, integer: true };
    const p = panel(svg, { x: 80, y: 62, w: 600, h: 270 }, {
      x: axis,
      y: Object.assign({ log: true, maxTicks: 9, label: 'wavelength (tokens)', labelGap: 52 }, domain),
    });
    line(p, d.planes, d.wavelength_before, { color: COLOURS.neutral, width: 1.3 });
    for (const ref of refs) {
      hline(p, ref.value, { color: ref.color, width: 1.2, dash: ref.dash });
    }
    vline(p, d.critical_dim / 2 - 0.5, { color: COLOURS.neutral, width: 1, dash: '2 3' });
    const r = d.planes.length > 64 ? 2 : 2.8;
    markers(p, d.planes, d.wavelength_after, { colors: d.band.map((b) => bandColours[b]), r: r });
    lineLabels(p, refs, 'left');
    const strip = panel(svg, { x: 80, y: 346, w: 600, h: 22 }, {
      x: Object.assign({ label: 'plane index i' }, axis),
      y: { min: 0, max: 1, ticks: [] },
    });
    d.band.forEach((b, i) => area(strip, i - 0.5, i + 0.5, 0, 1, bandColours[b], b === 0 ? 0.35 : 1));
    text(svg, WIDTH / 2, 20, `${d.method}: s = ${fmtG(d.factor, 4)}, ${formatNumber(d.original_len)} → ${formatNumber(d.target_len)} tokens, d = ${d.dim}, β = ${formatNumber(d.base)}`, { anchor: 'middle', size: 14 });
    text(svg, WIDTH / 2, 42, `attention factor ${fmtF(d.attention_factor, 3)}; critical dimension ${d.critical_dim} of ${d.dim} (dashed)`, { anchor: 'middle', size: 13 });
    legend(svg, 70, 420, [
      { text: 'before the method', color: COLOURS.neutral, width: 1.3 },
    ].concat(bandNames.map((name, b) => ({ text: `after: ${name} (${d[name]})`, color: bandColours[b], kind: 'dot' }))));
  }

  // Chapter 9: left, each plane's turn between the two tokens, coloured by its axis; right, the
  // all-ones score against an offset along one axis at a time, the offset's components dotted.
  function drawMultiaxis(svg, d) {
    const axisColours = ['#1f77b4', '#ff7f0e', '#2ca02c'];
    const turns = d.relative_angle;
    const high = Math.max(0.1, Math.max.apply(null, turns.map(Math.abs)));
    const left = panel(svg, { x: 72, y: 60, w: 260, h: 260 }, {
      x: { min: -0.5, max: d.axes.length - 0.5, integer: true, label: 'plane index i' },
      y: { min: -1.05 * high, max: 1.05 * high, label: 'turn (b − a)θ_{i} (rad)' },
      title: 'each plane turns along its own axis',
    });
    hline(left, 0, { color: COLOURS.neutral, width: 0.8 });
    turns.forEach((value, i) => area(left, i - 0.4, i + 0.4, 0, value, axisColours[d.axes[i]], 1));
    const scores = [].concat.apply([], d.axis_scores);
    const right = panel(svg, { x: 420, y: 60, w: 260, h: 260 }, {
      x: { min: d.offsets[0], max: d.offsets[d.offsets.length - 1], label: 'offset along one axis' },
      y: { min: Math.min.apply(null, scores) - 2, max: Math.max.apply(null, scores) + 2, label: 'all-ones score', labelGap: 42 },
      title: 'the score sees only the offset',
    });
    const offset = d.position_b.map((v, i) => v - d.position_a[i]);
    d.axis_names.forEach((name, a) => {
      line(right, d.offsets, d.axis_scores[a], { color: axisColours[a], width: 1.4 });
      if (offset[a] >= d.offsets[0] && offset[a] <= d.offsets[d.offsets.length - 1]) {
        vline(right, offset[a], { color: axisColours[a], width: 1, dash: '2 3' });
      }
    });
    text(svg, WIDTH / 2, 22, `${d.allocation}: planes per axis ${d.axis_names.map((n, a) => `${n} ${d.planes_per_axis[a]}`).join(', ')}; score at the offset ${fmtF(d.score, 3)}`, { anchor: 'middle', size: 14 });
    legend(svg, 60, 384, d.axis_names.map((n, a) => ({ text: `axis ${n}`, color: axisColours[a], kind: 'box' })));
  }

  // Chapter 10: left, the relative position each (query, key) cell of the input sees, blue
  // below the training length L, white at L, red beyond (dark red from 2L); right, what the
  // last query gives each key, against RoPE's m − n and L.
  function drawRemapping(svg, d) {
    const top = d.grid[d.grid.length - 1];
    const half = top / (d.grid.length - 1) / 2;
    const left = panel(svg, { x: 80, y: 60, w: 250, h: 250 }, {
      x: { min: -half, max: top + half, label: 'key position n', maxTicks: 3 },
      y: { min: -half, max: top + half, reverse: true, label: 'query position m', labelGap: 62, maxTicks: 4 },
      title: `${d.method}: r(m, n)`,
    });
    const cell = Math.abs(left.x(top / (d.grid.length - 1)) - left.x(0));
    const g = svgNode('g', { 'shape-rendering': 'crispEdges' }, svg);
    d.relative.forEach((row, i) => {
      row.forEach((value, j) => {
        if (value < 0) {
          return;
        }
        const shade = Math.max(-1, Math.min(1, value / Math.max(d.train_len - 1, 1) - 1));
        svgNode('rect', { x: (left.x(d.grid[j]) - cell / 2).toFixed(2), y: (left.y(d.grid[i]) - cell / 2).toFixed(2), width: (cell + 0.4).toFixed(2), height: (cell + 0.4).toFixed(2), fill: diverging(shade) }, g);
      });
    });
    colourBar(svg, { x: 340, y: 60, w: 12, h: 250 }, 'r / L − 1 (white: r = L)');
    const high = Math.max(d.length - 1, d.train_len) * 1.05;
    const right = panel(svg, { x: 480, y: 60, w: 200, h: 250 }, {
      x: { min: 0, max: top, label: 'key position n', maxTicks: 3 },
      y: { min: 0, max: high, label: 'relative position seen', labelGap: 56, maxTicks: 5 },
      title: 'the last query',
    });
    line(right, d.keys, d.keys.map((n) => d.length - 1 - n), { color: COLOURS.neutral, width: 1, dash: '2 3' });
    line(right, d.keys, d.row, { color: COLOURS.query, width: 1.8 });
    hline(right, d.train_len, { color: COLOURS.key, width: 1, dash: '5 4' });
    text(svg, WIDTH / 2, 22, `${d.method}: ${formatNumber(d.length)} tokens, L = ${formatNumber(d.train_len)}; largest relative position ${formatNumber(d.max_relative)}`, { anchor: 'middle', size: 14 });
    legend(svg, 80, 380, [
      { text: 'RoPE: m − n', color: COLOURS.neutral, width: 1, dash: '2 3' },
      { text: `${d.method}`, color: COLOURS.query, width: 1.8 },
      { text: 'training length L', color: COLOURS.key, width: 1, dash: '5 4' },
    ]);
  }

  const KINDS = {
    rotation2d: { compute: rotationData, draw: drawRotation, readout: rotationReadout, height: 410, split: 360 },
    complex_pair: { compute: complexPairData, draw: drawComplexPair, readout: complexPairReadout, height: 440 },
    complex_score: { compute: complexScoreData, draw: drawComplexScore, readout: complexScoreReadout, height: 440 },
    block_matrix: { compute: blockData, draw: drawBlocks, readout: blocksReadout, height: 470 },
    precision: { compute: precisionData, draw: drawPrecision, readout: precisionReadout, height: 450, split: 350 },
    spectrum: { compute: spectrumData, draw: drawSpectrum, readout: spectrumReadout, height: 440, split: 360 },
    decay: { compute: decayData, draw: drawDecay, readout: decayReadout, height: 420, split: 350 },
    calculator: { compute: calculatorData, draw: drawCalculator, readout: calculatorReadout, height: 475 },
    extension_methods: { compute: extensionMethodsData, draw: drawExtensionMethods, readout: extensionMethodsReadout, height: 500 },
    multiaxis: { compute: multiaxisData, draw: drawMultiaxis, readout: multiaxisReadout, height: 450, split: 350 },
    remapping: { compute: remappingData, draw: drawRemapping, readout: remappingReadout, height: 450, split: 400 },
  };

  // The data of figure `kind` for clamped parameters (ropelab.interactive: spec.compute).
  function compute(kind, params, constants) {
    return KINDS[kind].compute(params, constants);
  }

  // The readout of figure `kind` for its data (ropelab.interactive: spec.readout), in English
  // or, for a `lang` starting with "zh", in Chinese with the same numbers.
  function readout(kind, data, lang) {
    return language(lang) === 'zh' ? READOUTS_ZH[kind](data) : KINDS[kind].readout(data);
  }

  // A control's label in the language `lang` (the English label where no Chinese is given).
  function controlLabel(label, lang) {
    return language(lang) === 'zh' && Object.prototype.hasOwnProperty.call(LABELS_ZH, label) ? LABELS_ZH[label] : label;
  }

  // The text a menu shows for option `value` of control `name`.
  function optionText(name, value, lang) {
    const table = language(lang) === 'zh' ? OPTIONS_ZH[name] : null;
    return table && Object.prototype.hasOwnProperty.call(table, value) ? table[value] : value;
  }

  const api = {
    kinds: Object.keys(KINDS),
    compute: compute,
    readout: readout,
    controlLabel: controlLabel,
    optionText: optionText,
    language: language,
    translations: { labels: LABELS_ZH, options: OPTIONS_ZH },
    clamp: clamp,
    sliderValues: sliderValues,
    format: { fixed: fmtF, exponential: fmtE, general: fmtG, signedInt: fmtSignedInt, number: formatNumber },
  };
  if (typeof module === 'object' && module.exports) {
    module.exports = api;
  }
  if (!inBrowser) {
    return;
  }

  // ---------------------------------------------------------------------------------------
  // (d) Mounting
  // ---------------------------------------------------------------------------------------

  // The slider position whose value is closest to `value` (on the slider's own scale).
  function nearestIndex(values, value, spec) {
    const t = spec.scale === 'log' ? Math.log : (v) => v;
    let best = 0;
    values.forEach((v, i) => {
      if (Math.abs(t(v) - t(value)) < Math.abs(t(values[best]) - t(value))) {
        best = i;
      }
    });
    return best;
  }

  // The value shown next to a control.
  function controlText(value, spec) {
    return spec.decimals === undefined ? formatNumber(value) : fmtF(value, spec.decimals);
  }

  // ---------------------------------------------------------------------------------------
  // On a phone (issue 33): the panels of a figure stacked, no label under 11 px.
  // ---------------------------------------------------------------------------------------
  // A figure box narrower than this is a phone's: its panels go one under the other.
  const STACK_BELOW = 520;
  const SMALLEST_LABEL = 11; // CSS pixels
  // Past this, labels would crowd their panel: the figure keeps a readable size and scrolls.
  const MOST_ENLARGED = 1.3;

  // What a figure says across its whole width (a text centred at WIDTH / 2), as HTML lines
  // above the stacked panels, with its indices as <sub> and <sup>.
  function headerLines(texts) {
    return texts.map((node) => {
      const line = document.createElement('div');
      line.className = 'ropelab-figure-line';
      for (const span of node.querySelectorAll('tspan')) {
        const index = span.hasAttribute('font-size');
        const part = document.createElement(index ? (parseFloat(span.getAttribute('dy')) > 0 ? 'sub' : 'sup') : 'span');
        part.textContent = span.textContent;
        line.appendChild(part);
      }
      if (node.getAttribute('font-weight')) line.style.fontWeight = node.getAttribute('font-weight');
      return line;
    });
  }

  // Re-lay a drawn figure for a narrow box: the header texts become HTML lines, the panels
  // left and right of `split` (SVG units; null for one panel) go one under the other, the
  // drawing is cropped to what it holds, then labels smaller than SMALLEST_LABEL are enlarged
  // (up to MOST_ENLARGED), or the figure keeps a size where they are readable and scrolls.
  function stackFigure(figure, svg, split) {
    const lines = [];
    const columns = [[], []];
    for (const node of [...svg.children]) {
      if (node.tagName === 'text' && node.getAttribute('x') === String(WIDTH / 2)) {
        lines.push(node);
        continue;
      }
      const b = node.getBBox();
      columns[split !== null && b.x + b.width / 2 > split ? 1 : 0].push(node);
    }
    const notes = document.createElement('div');
    notes.className = 'ropelab-figure-notes';
    for (const line of headerLines(lines)) notes.appendChild(line);
    for (const node of lines) node.remove();
    let top = 4;
    let width = 0;
    const groups = [];
    for (const nodes of columns.filter((c) => c.length)) {
      const g = document.createElementNS(SVG_NS, 'g');
      svg.appendChild(g);
      for (const node of nodes) g.appendChild(node);
      const b = g.getBBox();
      groups.push([g, b]);
      width = Math.max(width, b.width + 8);
    }
    for (const [g, b] of groups) {
      g.setAttribute('transform', `translate(${((width - b.width) / 2 - b.x).toFixed(1)} ${(top - b.y).toFixed(1)})`);
      top += b.height + 18;
    }
    svg.setAttribute('viewBox', `0 0 ${width.toFixed(1)} ${(top - 14).toFixed(1)}`);
    if (lines.length) figure.insertBefore(notes, svg);
    const unit = figure.clientWidth / width;
    const sizes = [...svg.querySelectorAll('text')].map((node) => parseFloat(node.getAttribute('font-size')));
    const smallest = Math.min(...sizes);
    let enlarge = SMALLEST_LABEL / (smallest * unit);
    if (enlarge > MOST_ENLARGED) {
      // as wide as it must be for the labels at MOST_ENLARGED; the box scrolls (with a cue)
      svg.style.minWidth = `${Math.ceil((width * SMALLEST_LABEL) / (smallest * MOST_ENLARGED))}px`;
      figure.classList.add('ropelab-figure-scrolls');
      enlarge = MOST_ENLARGED;
    }
    if (enlarge > 1) {
      for (const node of svg.querySelectorAll('text, tspan[font-size]')) {
        node.setAttribute('font-size', (parseFloat(node.getAttribute('font-size')) * enlarge).toFixed(2));
      }
    }
  }

  const STYLE = `
.ropelab-explorable { border: 1px solid #d0d7de; border-radius: 6px; padding: 10px 14px 12px;
  margin: 0.4em 0 1.2em; background: #ffffff; color: #222222; max-width: 780px;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  font-size: 14px; line-height: 1.35; }
.ropelab-controls { display: grid; gap: 4px; margin-bottom: 6px; }
.ropelab-control { display: grid; grid-template-columns: 11em minmax(120px, 1fr) 6.5em;
  align-items: center; gap: 12px; margin: 0; font-weight: normal; }
.ropelab-control input[type=range] { width: 100%; margin: 0; accent-color: #1f77b4; }
.ropelab-control select { font: inherit; padding: 1px 4px; }
.ropelab-control output { text-align: right; font-variant-numeric: tabular-nums; }
.ropelab-figure svg { display: block; width: 100%; height: auto; }
.ropelab-figure svg text { font-family: inherit; }
.ropelab-readout { margin: 6px 0 0; padding: 6px 10px; background: #f6f8fa; border-radius: 4px;
  font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px;
  white-space: pre-wrap; overflow-x: auto; }
.ropelab-figure-notes { font-size: 13px; text-align: center; margin: 2px 0 4px; }
.ropelab-figure.ropelab-figure-scrolls { overflow-x: auto;
  background: linear-gradient(to left, #ffffff 40%, rgba(255,255,255,0)) right / 2rem 100% no-repeat local,
    radial-gradient(farthest-side at 100% 50%, rgba(0,0,0,.3), rgba(0,0,0,0)) right / 0.8rem 100% no-repeat scroll; }
@media (max-width: 600px) {
  .ropelab-explorable { padding: 8px 8px 10px; }
  .ropelab-control { grid-template-columns: minmax(0, 1fr) 5.5em; gap: 2px 8px; }
  .ropelab-control > span { grid-column: 1 / -1; }
}
`;

  function addStyle() {
    const style = document.createElement('style');
    style.setAttribute('data-ropelab-explore', '');
    style.textContent = STYLE;
    document.head.appendChild(style);
  }

  const instances = [];

  // The controls' labels and menu texts in the page's language (the markup, from Python, is
  // English; a Chinese page reads them in Chinese; the values stay the same).
  function translateControls(root, lang) {
    if (lang !== 'zh') {
      return;
    }
    root.setAttribute('data-lang', lang);
    for (const label of root.querySelectorAll('.ropelab-control')) {
      const span = label.querySelector('span');
      const field = label.querySelector('[data-param]');
      if (!span || !field) {
        continue;
      }
      span.textContent = controlLabel(span.textContent, lang);
      if (field.hasAttribute('aria-label')) {
        field.setAttribute('aria-label', span.textContent);
      }
      if (field.tagName === 'SELECT') {
        for (const option of field.options) {
          option.textContent = optionText(field.getAttribute('data-param'), option.value, lang);
        }
      }
    }
  }

  // Wire the controls inside `root` (the HTML of ropelab.explorables.explorable) to the
  // figure. config: {kind, params, controls: [control spec, ...], constants}.
  function mount(root, config) {
    if (root.getAttribute('data-mounted') === 'true') {
      return null;
    }
    root.setAttribute('data-mounted', 'true');
    const kind = KINDS[config.kind];
    const lang = pageLanguage();
    translateControls(root, lang);
    const specs = {};
    for (const spec of config.controls) {
      specs[spec.name] = spec;
    }
    const instance = { kind: config.kind, params: clamp(config.controls, config.params), data: null, root: root };
    const figure = root.querySelector('.ropelab-figure');
    const readoutBox = root.querySelector('.ropelab-readout');
    const sliders = [];

    function redraw() {
      instance.data = kind.compute(instance.params, config.constants);
      const text = readout(config.kind, instance.data, lang);
      const svg = document.createElementNS(SVG_NS, 'svg');
      svg.setAttribute('viewBox', `0 0 ${WIDTH} ${kind.height}`);
      svg.setAttribute('role', 'img');
      svg.setAttribute('aria-label', text.split('\n')[0]);
      kind.draw(svg, instance.data, config.constants);
      figure.textContent = '';
      figure.classList.remove('ropelab-figure-scrolls');
      figure.appendChild(svg);
      instance.stacked = figure.clientWidth > 0 && figure.clientWidth < STACK_BELOW;
      if (instance.stacked) {
        stackFigure(figure, svg, kind.split === undefined ? null : kind.split);
      }
      readoutBox.textContent = text;
    }
    instance.redraw = redraw;

    // A slider whose lower end follows another control (spec.at_least: T_tune ≥ T_train)
    // starts at that control's position, and its value is raised with it (clamp).
    function followFloors() {
      instance.params = clamp(config.controls, instance.params);
      for (const s of sliders) {
        const floorName = s.spec.at_least;
        if (floorName) {
          const floor = instance.params[floorName];
          s.input.min = s.values.findIndex((v) => v >= floor);
        }
        s.input.value = nearestIndex(s.values, instance.params[s.name], s.spec);
        s.output.textContent = controlText(instance.params[s.name], s.spec);
      }
    }

    for (const input of root.querySelectorAll('[data-param]')) {
      const name = input.getAttribute('data-param');
      const spec = specs[name];
      if (input.tagName === 'SELECT') {
        input.value = instance.params[name];
        input.addEventListener('input', () => {
          instance.params[name] = input.value;
          redraw();
        });
        continue;
      }
      const values = sliderValues(spec);
      Object.assign(input, { min: 0, max: values.length - 1, step: 1 });
      input.value = nearestIndex(values, instance.params[name], spec);
      const slider = { name: name, spec: spec, values: values, input: input, output: input.parentNode.querySelector('output') };
      sliders.push(slider);
      input.addEventListener('input', () => {
        instance.params[name] = values[Number(input.value)];
        followFloors();
        redraw();
      });
    }
    followFloors();
    redraw();
    instances.push(instance);
    if (watcher) {
      watcher.observe(figure);
    }
    return instance;
  }

  // Mount every explorable of the page that is not mounted yet, from its JSON config.
  function mountAll() {
    for (const root of document.querySelectorAll('.ropelab-explorable:not([data-mounted])')) {
      const config = root.querySelector('script.ropelab-config');
      if (config) {
        mount(root, JSON.parse(config.textContent));
      }
    }
  }

  // A figure whose box crossed STACK_BELOW (a phone turned, a window resized) is drawn again.
  function restack() {
    for (const instance of instances) {
      const width = instance.root.querySelector('.ropelab-figure').clientWidth;
      if (width > 0 && (width < STACK_BELOW) !== instance.stacked) {
        instance.redraw();
      }
    }
  }

  addStyle();
  window.addEventListener('resize', restack);
  // a figure shown again (print media left, a hidden block opened) may have a new width;
  // drawn again in the next frame, outside the observer's callback
  const watcher = typeof ResizeObserver === 'undefined' ? null
    : new ResizeObserver(() => requestAnimationFrame(restack));
  window.ropelabExplore = Object.assign(api, { instances: instances, mount: mount, mountAll: mountAll });
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', mountAll);
  } else {
    mountAll();
  }
})();
