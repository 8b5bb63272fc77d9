/**
 * Go's fmt.Sprintf and the strconv formatting under it, for the argument types OPA hands fmt: int,
 * *big.Int, float64 and string. Output, including fmt's error forms (`%!d(string=x)`,
 * `%!v(MISSING)`, `%!(EXTRA …)`), is Go's byte for byte.
 *
 * API: goSprintf(format, args: GoArg[]) → string; formatFloat(v, fmt, prec) (strconv.FormatFloat);
 * quote, quoteToASCII, quoteRune, canBackquote, isPrint (strconv).
 */
export { goSprintf, type GoArg } from './sprintf.js';
export { formatFloat, type FloatFormat } from './format-float.js';
export { canBackquote, isPrint, quote, quoteRune, quoteToASCII } from './quote.js';
