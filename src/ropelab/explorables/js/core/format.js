// Python's number formats (ropelab.interactive.readouts). The readouts are defined in Python
// with Python's format specifications; these functions write numbers exactly as Python does:
// from the exact decimal value of the double, ties rounded half to even, '-' for the minus sign.

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

// [re, im] as "+0.1234 - 0.5678i"
function complexText(z) {
  return `${fmtF(z[0], 4, { plus: true })} ${z[1] < 0 ? '-' : '+'} ${fmtF(Math.abs(z[1]), 4)}i`;
}

// Python's math.degrees: x · (180/π)
function degrees(x) {
  return x * (180 / Math.PI);
}
