// ---------------------------------------------------------------------------------------
// (a) Checks: a ValueError of ropelab is an Error with the same message here
// ---------------------------------------------------------------------------------------

function fail(message) {
  throw new Error(message);
}
function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
function has(obj, key) {
  return Object.prototype.hasOwnProperty.call(obj, key);
}
// dict.get(key): null for a missing key or a JSON null
function get(obj, key, fallback) {
  if (has(obj, key) && obj[key] !== null && obj[key] !== undefined) {
    return obj[key];
  }
  return fallback === undefined ? null : fallback;
}
// Python truthiness of a JSON value
function truthy(v) {
  if (v === null || v === undefined || v === false || v === 0 || v === '') {
    return false;
  }
  if (Array.isArray(v)) {
    return v.length > 0;
  }
  if (isObject(v)) {
    return Object.keys(v).length > 0;
  }
  return true;
}
function repr(v) {
  return typeof v === 'string' ? `'${v}'` : JSON.stringify(v);
}
function isReal(v) {
  return typeof v === 'number';
}
function checkCount(value, name, minimum) {
  const low = minimum === undefined ? 1 : minimum;
  if (!isReal(value) || !Number.isFinite(value) || !Number.isInteger(value) || value < low) {
    fail(`${name} must be an integer >= ${low}, got ${repr(value)}`);
  }
  return value;
}
function checkPositive(value, name, minimum, inclusive) {
  const low = minimum === undefined ? 0 : minimum;
  if (!isReal(value) || !Number.isFinite(value)) {
    fail(`${name} must be a finite real number, got ${repr(value)}`);
  }
  if (inclusive ? value < low : value <= low) {
    fail(`${name} must be ${inclusive ? '>=' : '>'} ${low}, got ${value}`);
  }
  return value;
}
function checkFinite(value, name) {
  if (!isReal(value) || !Number.isFinite(value)) {
    fail(`${name} must be a finite real number, got ${repr(value)}`);
  }
  return value;
}
function checkDim(value, name) {
  if (!isReal(value) || !Number.isInteger(value) || value <= 0 || value % 2) {
    fail(`${name} must be a positive even integer, got ${repr(value)}`);
  }
  return value;
}
