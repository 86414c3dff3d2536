// (a) The formulas shared by several figures (and the decoder), each mirroring the ropelab
// function named above it.

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

// r_k = ⌊M^(k/(N−1)) + ½⌋, k = 0 .. N−1, the last one set to M, duplicates removed, sorted
// (ropelab.decay.decay_distances)
function decayDistances(maxDistance, num) {
  const raw = range(num).map((k) => Math.floor(Math.pow(maxDistance, k / (num - 1)) + 0.5));
  raw[num - 1] = maxDistance;
  return Array.from(new Set(raw)).sort((a, b) => a - b);
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
