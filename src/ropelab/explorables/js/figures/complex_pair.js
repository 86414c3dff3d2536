// Chapter 1A: complex numbers as rotations. Its data (the keys of ropelab.explorables.explorable_data('complex_pair')),
// readouts in both languages and drawing; private to this figure's block of the bundle.

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

const TURNS = { 1: ' (one turn less)', '-1': ' (one turn more)' };

// The numbers both readouts write, computed once: the data and each number's angle in degrees.
function complexPairFacts(d) {
  return Object.assign({}, d, { z_degrees: degrees(d.z_arg), w_degrees: degrees(d.w_arg) });
}

function complexPairReadout(d) {
  const number = (name, key) => {
    const arg = d[`${key}_arg`];
    return `${name} = ${fmtF(d[`${key}_abs`], 2)}·e^(${fmtF(arg, 2)}i) = ${complexText(d[key])}   (${fmtF(arg, 2)} rad = ${fmtF(d[`${key}_degrees`], 1)}°)`;
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

const TURNS_ZH = { 1: '（少转一整圈）', '-1': '（多转一整圈）' };

function complexPairReadoutZh(d) {
  const number = (name, key) => {
    const arg = d[`${key}_arg`];
    return `${name} = ${fmtF(d[`${key}_abs`], 2)}·e^(${fmtF(arg, 2)}i) = ${complexText(d[key])}   （${fmtF(arg, 2)} rad = ${fmtF(d[`${key}_degrees`], 1)}°）`;
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

register('complex_pair', {
  compute: complexPairData,
  draw: drawComplexPair,
  facts: complexPairFacts,
  readouts: { en: complexPairReadout, zh: complexPairReadoutZh },
  height: 440,
});
