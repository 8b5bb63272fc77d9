/**
 * Text normalization shared by every detector (DESIGN.md, The governed call): the built-in policy pack reads the
 * normalized copies the policy engine adds to its input (`input.normalized`), and output redaction finds its spans
 * in the normalized text and masks the original characters they came from.
 */
export { decodeBase64Runs, type DecodeLimits } from './base64.js';
export {
  hasNonAscii,
  hiddenTagText,
  normalize,
  normalizeMapped,
  originalSpan,
  originOf,
  type Normalized,
} from './normalize.js';
