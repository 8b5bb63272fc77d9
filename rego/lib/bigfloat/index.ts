/**
 * Go's math/big.Float as OPA computes with it: decimal text rounded to a 64-bit mantissa (not a
 * double's 53), each operation rounded to nearest-even, and results printed as the shortest
 * decimal that reads back to the same value, so that `0.1 + 0.2` is `0.3` as in OPA.
 *
 * API: fromDecimal(text), fromValue(n), fromBigInt(i); add, sub, mul, quo, neg, abs, trunc, cmp,
 * isZero, isInt; shortestDecimal(x, prec); and, returning Rego numbers (rego-number.ts, the one
 * exception to this library holding no Rego values): toValue(x), toNumber(x), decimalToValue(text).
 */
export * from './float.js';
export { decimalToValue, toNumber, toValue } from './rego-number.js';
